// Keeps a local store running: when the one this process started exits (a crash, an out-of-memory
// kill, a SIGKILL), it is started again after a back-off that doubles from one second to half a
// minute, and returns to one second once a start has held for a minute. Each restart is logged and
// counted (local_store_restarts_total in /metrics); meanwhile /health/ready names the store as down.
// An external store (DATABASE_URL, NEO4J_URI) is not ours to restart.
import type { Logger } from './logger.js';

export type LocalStoreName = 'neo4j' | 'postgresql';

/** What /metrics reads of a supervised store. */
export interface SupervisedStore {
  store: LocalStoreName;
  /** How many times it was started again after an unexpected exit. */
  restarts(): number;
  /** False between an unexpected exit and the next successful start. */
  running(): boolean;
}

export interface SupervisorHooks {
  /** Starts the store: a promise that settles when that start of it ends, and how to stop it. */
  start(): Promise<{ exited: Promise<unknown>; stop(): Promise<void> }>;
}

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

export class StoreSupervisor implements SupervisedStore {
  private restartCount = 0;
  private up = true;
  private stopped = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    readonly store: LocalStoreName,
    private readonly hooks: SupervisorHooks,
    private readonly logger: Logger,
  ) {}

  restarts(): number {
    return this.restartCount;
  }

  running(): boolean {
    return this.up;
  }

  /** Watches one start of the store (the first, made by the caller, or a restart). */
  watch(exited: Promise<unknown>, startedAt = Date.now()): void {
    void exited.then((how) => {
      if (this.stopped) return;
      this.up = false;
      if (Date.now() - startedAt >= STABLE_AFTER_MS) this.backoffMs = FIRST_BACKOFF_MS;
      this.logger.error('the local store stopped unexpectedly; starting it again', { store: this.store, exit: how, inMs: this.backoffMs });
      this.schedule();
    });
  }

  /** No more restarts: the service is stopping the store itself. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  private schedule(): void {
    this.retryTimer = setTimeout(() => void this.restart(), this.backoffMs);
    this.retryTimer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private async restart(): Promise<void> {
    if (this.stopped) return;
    try {
      const startedAt = Date.now();
      const { exited, stop } = await this.hooks.start();
      // Stopped while it started: the caller's stop did not see this start.
      if (this.stopped) return void (await stop());
      this.restartCount += 1;
      this.up = true;
      this.logger.warn('the local store is running again', { store: this.store, restarts: this.restartCount });
      this.watch(exited, startedAt);
    } catch (error) {
      if (this.stopped) return;
      this.logger.error('the local store could not be started again; trying later', { store: this.store, error: (error as Error).message, inMs: this.backoffMs });
      this.schedule();
    }
  }
}
