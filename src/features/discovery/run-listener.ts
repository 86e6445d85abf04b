// Discovery announces that a run has ended, and nothing more: what follows (the diagnosis, the
// alert) belongs to whoever listens (alerts' RunFollowUp, wired in src/container.ts), so that
// discovery depends on neither.
import type { RunStatus } from './run-record.js';

export interface RunListener {
  /** Called once by whoever ended the run; must not throw. */
  runFinished(runId: string, status: RunStatus): Promise<void>;
}
