import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockDataDir } from '../../src/platform/data-dir-lock.js';
import { createLogger } from '../../src/platform/logger.js';
import { startLocalNeo4j } from '../../src/platform/neo4j/local-neo4j-server.js';
import { testNeo4jPassword, testNeo4jUri } from '../support/test-stores.js';

describe('the data folder', () => {
  it('is held by one service at a time, and a lock left by a dead process is taken over', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lock-'));
    const sleeper = spawn('sleep', ['30']);
    writeFileSync(path.join(dir, 'service.lock'), `${sleeper.pid}\n`);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`Another service \\(pid ${sleeper.pid}\\)`));
    sleeper.kill();
    await new Promise((r) => sleeper.once('exit', r));
    const lock = lockDataDir(dir);
    expect(lock.afterCrash).toBe(true);
    expect(existsSync(path.join(dir, 'service.lock'))).toBe(true);
    await lock.release();
    expect(existsSync(path.join(dir, 'service.lock'))).toBe(false);
    const next = lockDataDir(dir);
    expect(next.afterCrash).toBe(false);
    await next.release();
  });

  it('uses a local Neo4j that already answers on its port instead of starting another', async () => {
    const port = Number(new URL(testNeo4jUri()).port);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reuse-'));
    const passwordFile = path.join(dir, 'neo4j-password');
    writeFileSync(passwordFile, testNeo4jPassword(), { mode: 0o600 });
    const server = await startLocalNeo4j({ dataDir: dir, passwordFile, boltPort: port, heap: '256m', pageCache: '64m', procedures: [], logger: createLogger('error') });
    expect(server.uri).toBe(`bolt://127.0.0.1:${port}`);
    await server.stop();
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });
});
