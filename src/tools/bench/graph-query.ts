// The graph-query section: what admitting an analyst's statement costs (its EXPLAIN in the READ
// transaction it runs in, cypher-admission.ts) beside running the statement itself, for the example
// queries of docs/graph-model.md on the scale section's graph (100,000 assets; Cypher reads no
// sub-record, so they are not loaded here), and the whole endpoint over HTTP beside the same bare run.
import neo4j, { type Driver } from 'neo4j-driver';
import { documentedQueries } from '../../features/graph-query/documented-queries.js';
import { graphSize, importEstateGraph, type EstateSize } from './scale.js';
import { interleaved, loadAverage, machine, ms, ratio, withDataDir, withService, withStores, writeSection } from './support.js';

const ITERATIONS = 200;
const ROW_CAP = 1000;

/** One statement in a READ transaction as the endpoint runs it, its rows pulled up to the cap, then rolled back. */
async function inReadTransaction(driver: Driver, database: string, text: string): Promise<void> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.READ, fetchSize: ROW_CAP + 1 });
  const tx = session.beginTransaction({ timeout: 60_000 });
  try {
    let rows = 0;
    for await (const _record of tx.run(text)) if (++rows > ROW_CAP) break;
  } finally {
    await tx.rollback().catch(() => undefined);
    await session.close();
  }
}

export async function graphQueryBench({ size, dataDir: keep }: { size: EstateSize; dataDir?: string }): Promise<void> {
  await withDataDir(async (dataDir) => {
    // The scale section's estate when the folder holds it (or its graph), or its graph imported now.
    const graph = await withStores(dataDir, async (container) => {
      const found = await graphSize(container);
      if (found.assets >= size.demoHosts * 5) return found;
      await importEstateGraph(container, size);
      return graphSize(container);
    });
    await withService(dataDir, { roles: 'api' }, async (service, api) => {
      const { analystDriver: driver, config } = service.container;
      const database = config.neo4jDatabase;
      const lines: string[] = [];
      const loads = [loadAverage()];
      for (const [i, query] of documentedQueries().entries()) {
        const run = () => inReadTransaction(driver, database, query);
        const admission = () => inReadTransaction(driver, database, `EXPLAIN ${query}`);
        const endpoint = () => api.post('/api/v1/graph/query', { query, limit: ROW_CAP }, 200);
        const check = await interleaved(admission, run, ITERATIONS);
        const whole = await interleaved(endpoint, run, ITERATIONS);
        lines.push(`| ${i + 1} | ${ms(check.path)} | ${ms(check.floor)} | ${ratio(check.path.median, check.floor.median)} | ${ms(whole.path)} | ${ratio(whole.path.median, whole.floor.median)} |`);
        console.log(lines.at(-1));
      }
      loads.push(loadAverage());
      writeSection('graph-query', `## Analysts' Cypher: the admission check beside the query${size.label}

${machine()} · ${graph.assets.toLocaleString('en')} assets, ${graph.relationships.toLocaleString('en')} relationships · load average ${loads.join(' → ')}

Each example query of docs/graph-model.md ("Ten useful queries"), ${ITERATIONS} times interleaved with its bare run: the
admission check (its EXPLAIN in a READ transaction, as POST /graph/query makes it before running the statement: Neo4j's
plan cache answers it after the first), the statement itself in a READ transaction (rows pulled up to ${ROW_CAP}, then
rolled back), and the whole endpoint over HTTP (check, run, JSON, audit write). Median / p99 in ms.

| Example | Admission (EXPLAIN) | The query itself | Admission / query | POST /graph/query | Endpoint / query |
|---|---|---|---|---|---|
${lines.join('\n')}
`);
    });
  }, keep);
}
