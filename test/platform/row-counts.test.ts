// The counts kept beside the counted tables (migration 20261130000000, row-counts.ts) against
// count(*) of the same rows: exact through every kind of write, in every snapshot, while writers
// run side by side, and after a compaction or a recount.
import { createDatabase, type Database } from '../../src/platform/postgres/postgres-client.js';
import { ALL_ROWS, mayHaveRowsSql, RowCounts } from '../../src/platform/postgres/row-counts.js';
import { SubRecordStore } from '../../src/features/inventory/sub-record-store.js';
import { createTestDatabase, type TestDatabase } from '../support/test-stores.js';

const HOSTS = ['0f0a1b2c-0000-4000-8000-000000000001', '0f0a1b2c-0000-4000-8000-000000000002', '0f0a1b2c-0000-4000-8000-000000000003'];
const at = new Date('2026-11-20T10:00:00Z');
const packages = (assetId: string, names: string[]) => names.map((packageName) => ({ assetId, packageName, version: '1.0' }));

describe('row counts', () => {
  let database: TestDatabase;
  let db: Database;
  let counts: RowCounts;
  let store: SubRecordStore;

  /** count(*) of the packages of each host, and of the table, as the counts must give them. */
  const actual = async () => {
    const rows: { asset_id: string; n: string }[] = await db('software_packages').select('asset_id').count('* as n').groupBy('asset_id');
    const byHost = Object.fromEntries(HOSTS.map((h) => [h, Number(rows.find((r) => r.asset_id === h)?.n ?? 0)]));
    return { byHost, total: Object.values(byHost).reduce((a, b) => a + b, 0) };
  };
  const kept = async () => ({
    byHost: Object.fromEntries(await Promise.all(HOSTS.map(async (h) => [h, await counts.count('software_packages', { keys: [h] })]))),
    total: await counts.count('software_packages', ALL_ROWS),
  });
  const version = async () => (await db.raw('SELECT ? AS v', [counts.versionSql('software_packages')])).rows[0].v as string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolMax: 6, timeoutMs: 10_000 });
    counts = new RowCounts(db);
    store = new SubRecordStore(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('count each group and the whole table as count(*) does through inserts, upserts, deletes and a truncate, before and after compaction', async () => {
    expect(await kept()).toEqual(await actual());
    await store.upsertPackages([...packages(HOSTS[0] as string, ['a', 'b', 'c']), ...packages(HOSTS[1] as string, ['a'])], 'test', at);
    // Two seen again (updated in place), one new.
    await store.upsertPackages(packages(HOSTS[0] as string, ['b', 'c', 'd']), 'test', at);
    await db('software_packages').where({ asset_id: HOSTS[0], package_name: 'a' }).delete();
    expect(await kept()).toEqual({ byHost: { [HOSTS[0] as string]: 3, [HOSTS[1] as string]: 1, [HOSTS[2] as string]: 0 }, total: 4 });
    expect(await kept()).toEqual(await actual());
    expect(await counts.compact()).toBeGreaterThan(0);
    expect(await kept()).toEqual(await actual());
    // An asset moved by hand: both groups follow.
    await db('software_packages').where({ asset_id: HOSTS[1] }).update({ asset_id: HOSTS[2] });
    expect(await kept()).toEqual(await actual());
    await db.raw('TRUNCATE software_packages');
    expect(await kept()).toEqual({ byHost: Object.fromEntries(HOSTS.map((h) => [h, 0])), total: 0 });
    await counts.compact();
    expect(await kept()).toEqual(await actual());
    // Emptied groups leave the base.
    expect([...(await counts.groups('software_packages')).keys()]).toEqual([]);
  });

  it('count runs by status and target, a deleted target\'s runs moving to no target', async () => {
    const [target] = await db('discovery_targets').insert({ name: 'counted', addresses: ['10.0.0.1'], address_count: 1, methods: ['SWEEP'] }).returning('id');
    const run = (status: string, targetId: string | null) => ({ target_id: targetId, target_name: 'counted', trigger: 'MANUAL', status });
    await db('discovery_runs').insert([run('COMPLETED', target.id), run('COMPLETED', target.id), run('FAILED', target.id), run('COMPLETED', null)]);
    const [queued] = await db('discovery_runs').insert(run('QUEUED', target.id)).returning('id');
    await db('discovery_runs').where({ id: queued.id }).update({ status: 'RUNNING' });
    await db('discovery_runs').where({ id: queued.id }).update({ progress_done: 1 });
    const runs = (groups: Parameters<RowCounts['count']>[1]) => counts.count('discovery_runs', groups);
    expect(await runs(ALL_ROWS)).toBe(5);
    expect(await runs({ keys: [`COMPLETED/${target.id}`, `RUNNING/${target.id}`] })).toBe(3);
    expect(await runs({ prefixes: ['COMPLETED/'] })).toBe(3);
    await db('discovery_targets').where({ id: target.id }).delete();
    expect(await runs({ keys: [`COMPLETED/${target.id}`] })).toBe(0);
    expect(await runs({ keys: ['COMPLETED/', 'FAILED/', 'RUNNING/'] })).toBe(5);
    const statuses: { g: string; n: string }[] = (await db.raw(`SELECT status || '/' || coalesce(target_id::text, '') AS g, count(*) AS n FROM discovery_runs GROUP BY 1`)).rows;
    expect(Object.fromEntries(await counts.groups('discovery_runs'))).toEqual(Object.fromEntries(statuses.map((s) => [s.g, Number(s.n)])));
  });

  it('show a transaction\'s rows to others only once it commits, and nothing of one that rolls back', async () => {
    const before = await kept();
    const trx = await db.transaction();
    await trx('software_packages').insert(packages(HOSTS[0] as string, ['t1', 't2']).map((p) => ({ asset_id: p.assetId, package_name: p.packageName, source: 'test', first_seen_at: at, last_seen_at: at })));
    // Inside, its own rows count; outside, not yet.
    expect(Number((await trx.raw('SELECT ? AS n', [counts.countSql('software_packages', ALL_ROWS)])).rows[0].n)).toBe(before.total + 2);
    expect(await kept()).toEqual(before);
    await trx.rollback();
    expect(await kept()).toEqual(before);
    await db.transaction(async (t) => {
      await t('software_packages').insert({ asset_id: HOSTS[2], package_name: 'committed', source: 'test', first_seen_at: at, last_seen_at: at });
    });
    expect((await kept()).total).toBe(before.total + 1);
    expect(await kept()).toEqual(await actual());
  });

  it('stay exact while many writers of the same groups run side by side, none waiting on another\'s count', async () => {
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const host = HOSTS[i % HOSTS.length] as string;
        return i % 4 === 3
          ? db('software_packages').where({ asset_id: host }).where('package_name', 'like', `w${i - 1}-%`).delete()
          : store.upsertPackages(packages(host, Array.from({ length: 20 }, (_, j) => `w${i}-${j}`)), 'test', at);
      }),
    );
    // A compaction while writers run keeps every change once.
    await Promise.all([counts.compact(), store.upsertPackages(packages(HOSTS[1] as string, ['late']), 'test', at), counts.compact()]);
    expect(await kept()).toEqual(await actual());
    await counts.compact();
    expect(await kept()).toEqual(await actual());
  });

  it('give a version that holds while nothing is written and moves with each write, an update in place or a compaction included', async () => {
    const first = await version();
    expect(await version()).toBe(first);
    await store.upsertPackages(packages(HOSTS[0] as string, ['b']), 'test', new Date('2026-11-21T10:00:00Z'));
    const afterUpdate = await version();
    expect(afterUpdate).not.toBe(first);
    await counts.compact();
    expect(await version()).not.toBe(afterUpdate);
  });

  it('say of each group that has rows that it may have rows, whether its rows were folded yet or not', async () => {
    const mayHaveRows = async (key: string) => (await db.raw(`SELECT ${mayHaveRowsSql('software_packages', '?')} AS ok`, [key, key])).rows[0].ok as boolean;
    const fresh = '0f0a1b2c-0000-4000-8000-0000000000ff';
    expect(await mayHaveRows(fresh)).toBe(false);
    await store.upsertPackages(packages(fresh, ['x']), 'test', at);
    expect(await mayHaveRows(fresh)).toBe(true);
    await counts.compact();
    expect(await mayHaveRows(fresh)).toBe(true);
    await db('software_packages').where({ asset_id: fresh }).delete();
    await counts.compact();
    expect(await mayHaveRows(fresh)).toBe(false);
  });

  it('refuse a TRUNCATE whose snapshot may be older than the statement, and recount beside compactions', async () => {
    await expect(db.transaction(async (trx) => {
      await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      await trx.raw('TRUNCATE software_packages');
    })).rejects.toThrow(/read committed/);
    await store.upsertPackages(packages(HOSTS[2] as string, ['r1', 'r2']), 'test', at);
    const [recounted] = await Promise.all([db.raw("SELECT recount_rows('software_packages') AS total"), counts.compact(), counts.compact()]);
    expect(Number(recounted.rows[0].total)).toBe((await actual()).total);
    expect(await kept()).toEqual(await actual());
  });

  it('are made anew by recount_rows after rows were written without their triggers', async () => {
    await db.transaction(async (trx) => {
      await trx.raw("SET LOCAL session_replication_role = 'replica'");
      await trx('software_packages').insert({ asset_id: HOSTS[0], package_name: 'restored', source: 'test', first_seen_at: at, last_seen_at: at });
    });
    expect((await kept()).total).toBe((await actual()).total - 1);
    const { rows } = await db.raw("SELECT recount_rows('software_packages') AS total");
    expect(Number(rows[0].total)).toBe((await actual()).total);
    expect(await kept()).toEqual(await actual());
  });
});
