// Discovery announces that a run has ended, and nothing more: what follows (the diagnosis, the
// alert) belongs to whoever listens (alerts' RunFollowUp, which its feature adds to discovery's
// RunListeners), so that discovery depends on neither.
import type { RunStatus } from './run-record.js';

export interface RunListener {
  /** Called once by whoever ended the run; must not throw. */
  runFinished(runId: string, status: RunStatus): Promise<void>;
}

/** The listeners that features built after discovery add, told in turn of each run that ends. */
export class RunListeners implements RunListener {
  private readonly listeners: RunListener[] = [];

  add(listener: RunListener): void {
    this.listeners.push(listener);
  }

  async runFinished(runId: string, status: RunStatus): Promise<void> {
    for (const listener of this.listeners) await listener.runFinished(runId, status);
  }
}
