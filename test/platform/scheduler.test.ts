import { createLogger } from '../../src/platform/logger.js';
import { createDatabase } from '../../src/platform/postgres/postgres-client.js';
import { Scheduler } from '../../src/platform/scheduler/scheduler.js';
import type { ProcessRole } from '../../src/platform/config.js';
import { eventually } from '../support/eventually.js';
import { createTestDatabase, type TestDatabase } from '../support/test-stores.js';

const logger = createLogger('warn');

function scheduler(databaseUrl: string, roles: ProcessRole[]): Scheduler {
  return new Scheduler({ databaseUrl, roles, lockLifetimeMs: 2000, pollIntervalMs: 200, workerConcurrency: 2, logger });
}

describe('the job queue on PostgreSQL', () => {
  let database: TestDatabase;
  const started: Scheduler[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const s of started) await s.stop();
    await database.drop();
  });

  it('runs a job enqueued by an api-only process on a separate worker process, exactly once', async () => {
    const api = scheduler(database.url, ['api']);
    const worker = scheduler(database.url, ['worker']);
    const runs: unknown[] = [];
    let apiRuns = 0;
    api.define('echo', async () => {
      apiRuns += 1;
    });
    worker.define<{ value: number }>('echo', async (data) => {
      runs.push(data.value);
    });
    started.push(api, worker);
    await api.start();
    await worker.start();

    await api.enqueue('echo', { value: 7 });
    await eventually(async () => runs.length, (n) => n > 0, 'the worker running the job');
    expect(runs).toEqual([7]);
    expect(apiRuns).toBe(0);
  });

  it('keeps the lock of a job that runs for several lock lifetimes, so that it finishes once and is not failed as expired', async () => {
    const worker = scheduler(database.url, ['worker']);
    let begun = 0;
    let finished = 0;
    worker.define('long', async () => {
      begun += 1;
      // Three lock lifetimes (2 s each): the lock expires unless it is renewed.
      await new Promise((r) => setTimeout(r, 6000));
      finished += 1;
    });
    started.push(worker);
    await worker.start();
    await worker.enqueue('long', {});
    await eventually(async () => finished, (n) => n > 0, 'the long job finishing');
    expect([begun, finished]).toEqual([1, 1]);
    const db = createDatabase({ url: database.url, poolMax: 1, timeoutMs: 5000 });
    try {
      // The queue writes the job's end just after the handler returns.
      const row: { failed_at: Date | null; fail_count: number | null; last_finished_at: Date | null } | undefined = await eventually(
        () => db('agenda_jobs').where({ name: 'long' }).first('failed_at', 'fail_count', 'last_finished_at'),
        (found) => Boolean(found?.last_finished_at),
        'the end of the long job in agenda_jobs',
      );
      expect(row).toMatchObject({ failed_at: null, last_finished_at: expect.any(Date) });
      expect(row?.fail_count ?? 0).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('keeps a recurring job scheduled in UTC from a scheduler process, with its first-start run', async () => {
    const sched = scheduler(database.url, ['scheduler']);
    sched.define('nightly', async () => undefined);
    sched.defineRecurring({ name: 'nightly', cron: '0 15 2 * * *', runAfterStart: true });
    started.push(sched);
    await sched.start();

    const db = createDatabase({ url: database.url, poolMax: 1, timeoutMs: 5000 });
    try {
      const rows = await db('agenda_jobs').where({ name: 'nightly' }).select('repeat_interval', 'repeat_timezone', 'next_run_at');
      const recurring = rows.find((r) => r.repeat_interval);
      expect(recurring).toMatchObject({ repeat_interval: '0 15 2 * * *', repeat_timezone: 'UTC' });
      const next = new Date(recurring.next_run_at);
      expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([2, 15, 0]);
      const once = rows.find((r) => !r.repeat_interval);
      expect(once).toBeDefined();
      expect(new Date(once.next_run_at).getTime()).toBeGreaterThan(Date.now());
      expect(new Date(once.next_run_at).getTime()).toBeLessThan(Date.now() + 60_000);
    } finally {
      await db.destroy();
    }
  });
});
