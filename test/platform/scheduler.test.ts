import { createLogger } from '../../src/platform/logger.js';
import { createDatabase } from '../../src/platform/postgres/postgres-client.js';
import { Scheduler } from '../../src/platform/scheduler/scheduler.js';
import type { ProcessRole } from '../../src/platform/config.js';
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
    for (let i = 0; i < 50 && runs.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(runs).toEqual([7]);
    expect(apiRuns).toBe(0);
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
