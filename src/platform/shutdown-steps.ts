// What stops what a process started: steps run in the reverse order of their adding, each one
// bounded. A step that fails or does not finish in its time (a pool's end() waiting for a
// connection that a cut network never gives back) is logged by name and left behind, so that the
// steps after it still run and stopping never hangs; a local store's stop bounds itself (it kills
// the server once its own time is up) and is given no bound here.
import { withDeadline } from './deadline.js';
import type { Logger } from './logger.js';

/** How long a step that does not bound itself may take. */
export const SHUTDOWN_STEP_MS = 15_000;

interface Step {
  name: string;
  run: () => Promise<void>;
  bounded: boolean;
}

export class ShutdownSteps {
  private readonly steps: Step[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly stepMs = SHUTDOWN_STEP_MS,
  ) {}

  /** A step bounded at stepMs. */
  add(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run, bounded: true });
  }

  /** A step that ends within a time of its own (a local store's stop). */
  addSelfBounded(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run, bounded: false });
  }

  /** Runs every step added, the last first; the steps are gone once run. */
  async run(): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      const { name, run, bounded } = step;
      const work = Promise.resolve().then(run);
      await (bounded ? withDeadline(work, this.stepMs, () => new Error(`not finished after ${this.stepMs} ms; left behind`)) : work).catch((error: unknown) =>
        this.logger.warn('error while stopping', { step: name, error }),
      );
    }
  }
}
