// The history section: the scale section's graph (100,000 assets) changed day by day for 30
// simulated days, 1% of its facts and 1% of its edges each day, then what the history costs (bytes
// per day in PostgreSQL, entries per day in the graph) and what its reads take, each beside the bare
// store query it needs in the same run: an asset's history page, the neighbourhood at depth 2 as
// it was (beside the present-time walk: the issue asks within 2x), and the difference at depth 2.
//
// A day is one pass: the changed facts through the import path (a custom attribute of 1% of the
// facts' count of assets, the import's own source), and the changed edges through the load step's
// own statements (half a percent of the VMs' hosting edges retired as a complete read retires
// them, the previous day's restored as a read that sees them again). A sighting that changes no
// value writes no history (test/history/asset-history.test.ts), so the unchanged 99% are not
// re-imported: the days are minutes apart, not 24 hours.
import { LoadGraphRepository } from '../../features/inventory/load-graph-repository.js';
import { walkFragments } from '../../features/topology/topology-graph-repository.js';
import type { Container } from '../../container.js';
import { int as neoInt } from '../../platform/neo4j/neo4j-graph.js';
import type { AssetType } from '../../features/inventory/asset-taxonomy.js';
import { graphSize, importEstateGraph, type EstateSize } from './scale.js';
import { BENCH_ACTOR, int, interleaved, loadAverage, machine, ms, ratio, withDataDir, withService, withStores, writeSection } from './support.js';

const DAYS = 30;
const ITERATIONS = 100;
// The source of the demo estate's edges: the restores and retirements speak for it.
const DEMO_SOURCE = 'demo';

interface Counts {
  assets: number;
  relationships: number;
  facts: number;
}

async function counts(container: Container): Promise<Counts> {
  const [{ facts }] = (await container.db.raw('SELECT count(*)::int AS facts FROM asset_facts')).rows as [{ facts: number }];
  return { ...(await graphSize(container)), facts };
}

async function graphEntries(container: Container): Promise<number> {
  const { records } = await container.driver.executeQuery(
    'CALL () { MATCH (a:Asset) RETURN sum(size(coalesce(a.statusAt, []))) AS n UNION ALL MATCH ()-[r]->() RETURN sum(size(coalesce(r.activePeriods, []))) AS n } RETURN sum(n) AS entries',
    {}, { database: container.config.neo4jDatabase },
  );
  return Number(records[0]?.get('entries'));
}

const historyBytes = async (container: Container) => Number(((await container.db.raw("SELECT pg_total_relation_size('asset_history') AS b")).rows as [{ b: string }])[0].b);

/** One simulated day: `factChanges` assets get a new value of one custom attribute; VMs' hosting edges retired, and yesterday's restored. */
async function day(container: Container, d: number, changed: { id: string; assetType: AssetType; macAddresses: string[] }[], retire: { vm: string; hv: string }[], restore: { vm: string; hv: string }[]): Promise<void> {
  await container.importer.import(BENCH_ACTOR, {
    source: 'bench-history',
    assets: changed.map((a) => ({ key: a.id, assetType: a.assetType, macAddresses: a.macAddresses, customAttributes: { benchDay: d } })),
  });
  const load = new LoadGraphRepository(container.graph);
  const now = new Date().toISOString();
  await load.retireRelationships(retire.map((e) => e.vm), ['HOSTS_VM'], DEMO_SOURCE, now);
  await load.mergeRelationships(restore.map((e) => ({ type: 'HOSTS_VM', source: e.hv, target: e.vm })), DEMO_SOURCE, now);
}

export async function historyBench({ size, dataDir: keep }: { size: EstateSize; dataDir?: string }): Promise<void> {
  await withDataDir(async (dataDir) => {
    // The scale section's estate when the folder holds it (or its graph), or its graph imported now; then the days.
    const run = await withStores(dataDir, async (container) => {
      let before = await counts(container);
      if (before.assets < size.demoHosts * 5) {
        await importEstateGraph(container, size);
        before = await counts(container);
      }
      const database = { database: container.config.neo4jDatabase };
      const assets = (await container.driver.executeQuery("MATCH (a:Asset) WHERE size(coalesce(a.macAddresses, [])) > 0 RETURN a.id AS id, a.assetType AS assetType, a.macAddresses AS macAddresses ORDER BY a.id", {}, database))
        .records.map((r) => ({ id: r.get('id') as string, assetType: r.get('assetType') as AssetType, macAddresses: r.get('macAddresses') as string[] }));
      const hosting = (await container.driver.executeQuery('MATCH (hv:Asset)-[r:HOSTS_VM]->(vm:Asset) WHERE r.active RETURN vm.id AS vm, hv.id AS hv ORDER BY vm.id', {}, database))
        .records.map((r) => ({ vm: r.get('vm') as string, hv: r.get('hv') as string }));
      const factChanges = Math.round(before.facts / 100);
      const edgeFlips = Math.round(before.relationships / 200);
      const times: string[] = [];
      const marks: { bytes: number; entries: number }[] = [];
      let yesterday: { vm: string; hv: string }[] = [];
      for (let d = 1; d <= DAYS; d++) {
        const changed = Array.from({ length: factChanges }, (_, i) => assets[((d - 1) * factChanges + i) % assets.length] as (typeof assets)[number]);
        const retire = Array.from({ length: edgeFlips }, (_, i) => hosting[((d - 1) * edgeFlips + i) % hosting.length] as (typeof hosting)[number]);
        await day(container, d, changed, retire, yesterday);
        yesterday = retire;
        times.push(new Date().toISOString());
        marks.push({ bytes: await historyBytes(container), entries: await graphEntries(container) });
        process.stdout.write(`\rday ${d}: ${int(marks.at(-1)?.bytes ?? 0)} bytes of asset_history, ${int(marks.at(-1)?.entries ?? 0)} graph entries`);
      }
      process.stdout.write('\n');
      // The first day also brings each changed asset's first report from the import's source: the days after it are the steady state.
      const steady = { bytes: ((marks.at(-1)?.bytes ?? 0) - (marks[0]?.bytes ?? 0)) / (DAYS - 1), entries: ((marks.at(-1)?.entries ?? 0) - (marks[0]?.entries ?? 0)) / (DAYS - 1) };
      const probe = assets[0] as (typeof assets)[number];
      const root = hosting[0]?.hv as string;
      return { before, factChanges, edgeFlips, times, steady, probe: probe.id, root };
    });

    await withService(dataDir, { roles: 'api' }, async (service, api) => {
      const { db, driver, config } = service.container;
      const database = config.neo4jDatabase;
      const enc = encodeURIComponent;
      const middle = run.times[Math.floor(DAYS / 2)] as string;
      const lines: string[] = [];
      const measure = async (name: string, path: () => Promise<unknown>, floor: () => Promise<unknown>, floorName: string) => {
        const t = await interleaved(path, floor, ITERATIONS);
        lines.push(`| ${name} | ${ms(t.path)} | ${floorName} | ${ms(t.floor)} | ${ratio(t.path.median, t.floor.median)} |`);
        console.log(lines.at(-1));
        return t;
      };
      const loads = [loadAverage()];
      await measure('GET /assets/{id}/history (first page of 50)', () => api.get(`/api/v1/assets/${run.probe}/history?size=50`),
        () => Promise.all([
          db.raw('SELECT * FROM asset_history WHERE asset_id = ? ORDER BY changed_at DESC, id DESC LIMIT 51', [run.probe]),
          service.container.graph.read('history/find-asset-graph-history', { id: run.probe, fields: null, from: null, to: null, after: null, before: null, asc: false, limit: neoInt(51) }),
        ]),
        'its rows of asset_history and its graph entries (both stores)');
      const walk = (at?: string) => driver.executeQuery(service.container.graph.catalog.render('topology/walk-neighbors', walkFragments(2, at ? Date.parse(at) : undefined)),
        { id: run.root, cap: neoInt(499), ...(at ? { at: neoInt(Date.parse(at)) } : {}) }, { database });
      const present = await measure('GET /topology/{id}/neighbors, depth 2, now', () => api.get(`/api/v1/topology/${run.root}/neighbors?depth=2`), () => walk(), 'its walk (Cypher)');
      const asOf = await measure(`… at day ${Math.floor(DAYS / 2) + 1}`, () => api.get(`/api/v1/topology/${run.root}/neighbors?depth=2&at=${enc(middle)}`), () => walk(middle), 'its walk at that time (Cypher)');
      await measure('GET /topology/{id}/changes, depth 2, day 1 to day 30', () => api.get(`/api/v1/topology/${run.root}/changes?depth=2&from=${enc(run.times[0] as string)}&to=${enc(run.times.at(-1) as string)}`),
        async () => { await walk(run.times[0]); await walk(run.times.at(-1)); }, 'its two walks (Cypher)');
      loads.push(loadAverage());
      writeSection('history', `## History: 30 days of changes on ${int(run.before.assets)} assets${size.label}

${machine()} · ${int(run.before.assets)} assets, ${int(run.before.relationships)} relationships, ${int(run.before.facts)} facts · load average ${loads.join(' → ')}

Each simulated day changed 1% of the facts (${int(run.factChanges)} assets each given a new value of one custom attribute, through
the import path) and 1% of the edges (${int(run.edgeFlips)} VMs' hosting edges retired as a complete read retires them, the previous
day's ${int(run.edgeFlips)} restored). Unchanged sightings write no history, so they were not replayed; the days were minutes apart.

**Cost per day** (days 2 to 30; day 1 also holds each changed asset's first report from the import's source):
${int(run.steady.bytes)} bytes of \`asset_history\` with its indexes in PostgreSQL, and ${int(run.steady.entries)} entries added to the
graph's status logs and edge periods (epoch-millisecond integers in Neo4j's array store, each with its "who" string).

Reads, ${ITERATIONS} times each, interleaved with the bare store query they need. Median / p99 in ms.

| Read | Service | Bare store query | Store | Service / store |
|---|---|---|---|---|
${lines.join('\n')}

The neighbourhood as it was takes ${ratio(asOf.path.median, present.path.median)} the time of the present one through the service
(the issue asks within 2×), its walk ${ratio(asOf.floor.median, present.floor.median)} the present walk.
`);
    });
  }, keep);
}
