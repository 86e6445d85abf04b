// One service per data folder: the service holds data/service.lock (its pid) while it runs the
// local stores. A lock whose process is gone was left by a crash and is taken over; the service
// then knows that the previous run ended without stopping (and sweeps what it left half-written).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
  /** The previous service on this folder died holding the lock (a kill -9, a crash, a power cut). */
  afterCrash: boolean;
}

/** Takes the lock of the data folder. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.resolve(dataDir, 'service.lock');
  mkdirSync(path.dirname(file), { recursive: true });
  let holder: number | undefined;
  try {
    holder = Number(readFileSync(file, 'utf8').trim());
  } catch {
    holder = undefined;
  }
  if (holder && holder !== process.pid && alive(holder)) {
    throw new Error(`Another service (pid ${holder}) is running on the data folder ${path.resolve(dataDir)}; stop it first, or give this one another service.data-dir.`);
  }
  writeFileSync(file, `${process.pid}\n`);
  return { release: async () => rmSync(file, { force: true }), afterCrash: Boolean(holder) && holder !== process.pid };
}
