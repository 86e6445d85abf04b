import { randomUUID } from 'node:crypto';
import { ChangeGraphRepository } from '../../src/features/changes/change-graph-repository.js';
import { AssetNameStore } from '../../src/features/inventory/asset-name-store.js';
import { RetentionSweep } from '../../src/features/maintenance/retention-sweep.js';
import { importEstate } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const DAY = 86_400_000;

describe('retention and aging', () => {
  let service: TestService;
  let p: Principals;
  let ids: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, retentionSubAssetDays: 30, agingStaleAfterDays: 7, agingInactiveAfterDays: 30 });
    p = await createPrincipals(service.url);
    ids = await importEstate(p.integrationKey, {
      source: 'sweeps',
      assets: ['fresh', 'old', 'older', 'retired'].map((k) => ({ key: k, assetType: 'SERVER', hostname: `sweep-${k}`, serialNumber: `SWEEP-${k.toUpperCase()}` })),
    });
  });
  afterAll(() => service.stop());
  const db = () => service.running.container.db;
  const cypher = (text: string, params: Record<string, unknown>) => service.running.container.driver.executeQuery(text, params);
  const run = (name: string) => p.adminSession.post(`/api/v1/jobs/${name}/run`);

  it('schedules both sweeps on the job queue, the retention sweep also shortly after start', async () => {
    const jobs = await db()('agenda_jobs').select('name', 'repeat_interval', 'repeat_timezone');
    expect(jobs).toEqual(expect.arrayContaining([
      { name: 'retention-sweep', repeat_interval: '0 15 2 * * *', repeat_timezone: 'UTC' },
      { name: 'aging-sweep', repeat_interval: '0 45 2 * * *', repeat_timezone: 'UTC' },
      { name: 'retention-sweep', repeat_interval: null, repeat_timezone: null },
    ]));
  });

  it('removes packages and services last seen more than 30 days ago, to the minute, and keeps the others', async () => {
    const now = Date.now();
    const at = (ms: number) => new Date(now - 30 * DAY + ms);
    const packages = [['just-expired', at(-60_000)], ['just-kept', at(60_000)], ['long-gone', at(-40 * DAY)]] as const;
    for (const [name, seen] of packages) {
      await db()('software_packages').insert({ asset_id: ids.fresh, package_name: name, source: 'test', first_seen_at: seen, last_seen_at: seen });
      await db()('discovered_services').insert({ asset_id: ids.fresh, service_name: name, first_seen_at: seen, last_seen_at: seen });
    }
    const res = await run('retention-sweep');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ job: 'retention-sweep', summary: { packagesRemoved: 2, servicesRemoved: 2 } });
    expect(await db()('software_packages').pluck('package_name')).toEqual(['just-kept']);
    expect(await db()('discovered_services').pluck('service_name')).toEqual(['just-kept']);
  });

  it('removes the sub-records of an asset that is no longer in the graph', async () => {
    const ghost = randomUUID();
    const now = new Date();
    await db()('software_packages').insert({ asset_id: ghost, package_name: 'orphan', source: 'test', first_seen_at: now, last_seen_at: now });
    await db()('running_processes').insert({ asset_id: ghost, pid: 1, process_name: 'init', observed_at: now });
    const res = await run('retention-sweep');
    expect(res.body.data.summary.orphanRowsRemoved).toBe(2);
    expect(await db()('software_packages').where({ asset_id: ghost }).count('* as c')).toEqual([{ c: '0' }]);
  });

  it('removes the identity rows, facts and name of an asset an import never wrote to the graph once they are older than any import in flight, and keeps recent ones', async () => {
    const unwritten = async (updatedAt: Date) => {
      const id = randomUUID();
      await db()('asset_identifiers').insert({ rule: 'SERIAL_NUMBER', value: `UNWRITTEN-${id}`, asset_id: id, asset_category: 'HOST', updated_at: updatedAt });
      await db()('asset_facts').insert({ asset_id: id, field: 'serialNumber', source: 'import:crashed', value: JSON.stringify(`UNWRITTEN-${id}`), owned: false, observed_at: updatedAt });
      await db()('asset_names').insert({ asset_id: id, display_name: 'unwritten', hostname: null, updated_at: updatedAt });
      return id;
    };
    const rows = async (id: string) => Promise.all(['asset_identifiers', 'asset_facts', 'asset_names'].map(async (t) => Number((await db()(t).where({ asset_id: id }).count<{ c: string }[]>('* as c'))[0]?.c)));
    const crashed = await unwritten(new Date(Date.now() - DAY));
    const inFlight = await unwritten(new Date());
    const written = (await db()('asset_identifiers').where({ asset_id: ids.fresh }).count<{ c: string }[]>('* as c'))[0]?.c;

    const res = await run('retention-sweep');
    expect(res.body.data.summary.unwrittenAssetsRemoved).toBe(1);
    expect(await rows(crashed)).toEqual([0, 0, 0]);
    expect(await rows(inFlight)).toEqual([1, 1, 1]);
    expect((await db()('asset_identifiers').where({ asset_id: ids.fresh }).count<{ c: string }[]>('* as c'))[0]?.c).toBe(written);
    for (const table of ['asset_identifiers', 'asset_facts', 'asset_names']) await db()(table).where({ asset_id: inFlight }).delete();
  });

  it('keeps the copied name of every asset across the pages of the name reconciliation, and drops only the names the graph lacks', async () => {
    const { container } = service.running;
    // Pages of two assets: every page but the first starts after an id that the page before holds.
    const sweep = new RetentionSweep(container.db, container.graph, container.rowCounts, new AssetNameStore(container.db), new ChangeGraphRepository(container.graph), container.unwrittenAssets, container.historyRetention, { subAssetDays: 30, retiredDays: 30, historyDays: 30 }, 2);
    const gone = randomUUID();
    await db()('asset_names').insert({ asset_id: gone, display_name: 'gone', hostname: null, updated_at: new Date() });
    await db()('asset_names').update({ updated_at: new Date(Date.now() - DAY) });
    const graphIds = (await cypher('MATCH (a:Asset) RETURN a.id AS id', {})).records.map((r) => r.get('id') as string);
    expect(graphIds.length).toBeGreaterThanOrEqual(4);
    const summary = await sweep.run();
    expect(summary.assetNamesRemoved).toBe(1);
    expect((await db()('asset_names').pluck('asset_id')).sort()).toEqual([...graphIds].sort());
  });

  it('moves ACTIVE to STALE after 7 days and STALE to INACTIVE after 30, never touches DECOMMISSIONED, and an observation revives', async () => {
    const seen = (key: string, days: number, status: string) =>
      cypher('MATCH (a:Asset {id: $id}) SET a.lastSeenAt = datetime() - duration({days: $days}), a.status = $status', { id: ids[key], days, status });
    await seen('fresh', 1, 'ACTIVE');
    await seen('old', 8, 'ACTIVE');
    await seen('older', 31, 'STALE');
    await seen('retired', 400, 'DECOMMISSIONED');
    const res = await run('aging-sweep');
    expect(res.body.data.summary).toEqual({ movedToStale: 1, movedToInactive: 1, assetsWithFactsDropped: 0 });
    const status = async (key: string) => (await p.viewer.get(`/api/v1/assets/${ids[key]}`)).body.data;
    expect(await status('fresh')).toMatchObject({ status: 'ACTIVE', staleSince: null });
    expect(await status('old')).toMatchObject({ status: 'STALE', staleSince: expect.any(String) });
    expect(await status('older')).toMatchObject({ status: 'INACTIVE' });
    expect(await status('retired')).toMatchObject({ status: 'DECOMMISSIONED' });
    // A second sweep moves nothing more; the STALE one is seen again and is ACTIVE again.
    expect((await run('aging-sweep')).body.data.summary).toEqual({ movedToStale: 0, movedToInactive: 0, assetsWithFactsDropped: 0 });
    await importEstate(p.integrationKey, { source: 'sweeps', assets: [{ key: 'old', assetType: 'SERVER', serialNumber: 'SWEEP-OLD' }] });
    expect(await status('old')).toMatchObject({ status: 'ACTIVE', staleSince: null });
  });

  it('answers 404 for an unknown job and records runs in the audit trail', async () => {
    expect((await run('defragment')).status).toBe(404);
    const audit = await p.adminSession.get('/api/v1/audit-events?action=job.run');
    expect(audit.body.data.map((e: { targetId: string }) => e.targetId)).toContain('aging-sweep');
  });
});
