// Stopping never hangs on one step: steps run last-added first, a step that fails or does not
// finish within its bound is logged by name and left behind, and the steps after it still run; a
// self-bounded step (a local store's stop) is waited for to its end.
import { ShutdownSteps } from '../../src/platform/shutdown-steps.js';
import { captureLogs } from '../support/log-capture.js';

describe('shutdown steps', () => {
  it('runs the steps last-added first; one that hangs or fails is logged by name and the rest still run', async () => {
    const { lines, logger } = captureLogs('warn');
    const steps = new ShutdownSteps(logger, 50);
    const ran: string[] = [];
    steps.addSelfBounded('store', async () => {
      // Longer than the bound of the other steps: a self-bounded step is waited for.
      await new Promise((r) => setTimeout(r, 200));
      ran.push('store');
    });
    steps.add('pool', () => {
      ran.push('pool');
      return new Promise(() => undefined);
    });
    steps.add('driver', async () => {
      ran.push('driver');
      throw new Error('connection reset');
    });
    steps.add('server', async () => {
      ran.push('server');
    });
    await steps.run();
    expect(ran).toEqual(['server', 'driver', 'pool', 'store']);
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.message, l.step, (l.error as { message?: string }).message])).toEqual([
      ['error while stopping', 'driver', 'connection reset'],
      ['error while stopping', 'pool', 'not finished after 50 ms; left behind'],
    ]);
  });

  it('runs each step once: a second run finds none', async () => {
    const { logger } = captureLogs('warn');
    const steps = new ShutdownSteps(logger);
    let runs = 0;
    steps.add('server', async () => {
      runs += 1;
    });
    await steps.run();
    await steps.run();
    expect(runs).toBe(1);
  });
});
