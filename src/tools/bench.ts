// `npm run bench`: the graph API at 100,000 assets. Loads the demo estate into fresh local stores,
// then times each endpoint over HTTP (median and p99) beside the Cypher it runs, timed in the same
// process, and checks the plans of the filtered listings for full scans. Writes its section of
// BENCHMARKS.md with the machine and the date.
import { mkdtempSync, chmodSync, existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.js';
import type { AssetFilter } from '../features/assets/asset-graph-repository.js';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { fromProjectRoot } from '../platform/project-root.js';
import { closeServer, listen, openStores } from '../start-service.js';
import { demoEstate } from './demo-estate.js';

const SECTION = 'graph-api';
const ITERATIONS = 200;
const WARMUP = 20;

interface Timing {
  median: number;
  p99: number;
}

async function time(run: (i: number) => Promise<unknown>, iterations = ITERATIONS): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await run(i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await run(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)] as number, p99: samples[Math.ceil(samples.length * 0.99) - 1] as number };
}

const ms = (t: Timing) => `${t.median.toFixed(1)} / ${t.p99.toFixed(1)}`;

/** Writes this benchmark's section of BENCHMARKS.md, keeping the other sections. */
function writeSection(body: string): void {
  const file = fromProjectRoot('BENCHMARKS.md');
  const start = `<!-- bench:${SECTION} -->`;
  const end = `<!-- /bench:${SECTION} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nWritten by `npm run bench`; each section names the machine and the date of its run.\n';
  text = text.includes(start) ? text.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { hosts: { type: 'string', default: '19000' } } });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inventory-bench-'));
  chmodSync(dataDir, 0o755);
  const config = loadConfig({
    file: false,
    overrides: { dataDir, localPostgresPort: 55600, localNeo4jBoltPort: 57600, localNeo4jHeap: '2g', localNeo4jPageCache: '2g', logLevel: 'warn', roles: 'api' },
  });
  const logger = createLogger('warn');
  const { container, close } = await openStores(config, logger);
  try {
    // Load.
    const bundles = demoEstate(Number(values.hosts));
    const loadStart = Date.now();
    let assets = 0;
    let relationships = 0;
    for (const bundle of bundles) {
      const result = await container.importer.import({ kind: 'SYSTEM', name: 'bench' }, bundle);
      assets += result.assets.length;
      relationships += result.relationships;
      process.stdout.write(`\rloaded ${assets} assets, ${relationships} relationships`);
    }
    const loadSeconds = (Date.now() - loadStart) / 1000;
    process.stdout.write('\n');

    const key = (await container.tokens.createIntegrationKey({ kind: 'SYSTEM', name: 'bench' }, 'bench', null)).token;
    const server = await listen(buildApp(container), 0);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (url: string) => {
      const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ data: unknown }>;
    };
    const repo = container.assetReadModel;

    const vmIds = ((await get('/api/v1/assets?type=VM&size=200')) as { data: { id: string }[] }).data.map((a) => a.id);
    const defaultSort = { field: 'displayName' as const, direction: 'asc' as const };
    const listing = async (filter: AssetFilter) => repo.page(filter, defaultSort, 0, 50);
    const scenarios: [string, string, (i: number) => Promise<unknown>, (i: number) => Promise<unknown>][] = [
      ['GET /assets?size=50 (with parents)', 'page + count + parent edges + parent assets', () => get('/api/v1/assets?size=50'), () => listing({})],
      ['GET /assets?q=vm-par-01&size=50', 'same, q on the text index', () => get('/api/v1/assets?q=vm-par-01&size=50'), () => listing({ q: 'vm-par-01' })],
      ['GET /assets?type=VM&site=paris&environment=production&size=50', 'same, three filters', () => get('/api/v1/assets?type=VM&site=paris&environment=production&size=50'), () => listing({ types: ['VM'], sites: ['paris'], environments: ['production'] })],
      ['GET /assets/{id}', 'asset + parent edge + parent', (i) => get(`/api/v1/assets/${vmIds[i % vmIds.length]}`), (i) => repo.get(vmIds[i % vmIds.length] as string)],
      ['GET /topology/{id}/neighbors?depth=2', 'the hop queries', (i) => get(`/api/v1/topology/${vmIds[i % vmIds.length]}/neighbors?depth=2`), (i) => container.topology.neighbors(vmIds[i % vmIds.length] as string, 2)],
      ['GET /topology/{id}/neighbors?depth=5', 'the hop queries', (i) => get(`/api/v1/topology/${vmIds[i % vmIds.length]}/neighbors?depth=5`), (i) => container.topology.neighbors(vmIds[i % vmIds.length] as string, 5)],
    ];
    const rows: string[] = [];
    for (const [endpoint, bare, http, cypher] of scenarios) {
      const h = await time(http);
      const c = await time(cypher);
      rows.push(`| ${endpoint} | ${ms(h)} | ${ms(c)} (${bare}) |`);
      console.log(rows.at(-1));
    }

    // Plans: a filtered page must seek an index, never scan every node.
    const plans: string[] = [];
    const session = container.driver.session();
    try {
      for (const [what, filter] of [['type + site + environment', "a.assetType IN ['VM'] AND a.site IN ['paris'] AND a.environment IN ['production']"], ['q', "a.searchText CONTAINS 'vm-par-01'"], ['no filter', 'true']] as const) {
        const result = await session.run(`EXPLAIN MATCH (a:Asset) WHERE a.displayName IS NOT NULL AND ${filter} RETURN a ORDER BY a.displayName, a.id LIMIT 50`);
        const operators: string[] = [];
        const walk = (plan: { operatorType: string; children: unknown[] }) => {
          operators.push(plan.operatorType.replace(/@.*$/, ''));
          for (const child of plan.children) walk(child as typeof plan);
        };
        walk(result.summary.plan as never);
        const scans = operators.filter((o) => /AllNodesScan|NodeByLabelScan/.test(o));
        plans.push(`| ${what} | ${operators.reverse().join(' → ')} | ${scans.length ? 'FULL SCAN' : 'index-backed'} |`);
      }
    } finally {
      await session.close();
    }

    const neo4jVersion = (await container.driver.executeQuery('CALL dbms.components() YIELD versions RETURN versions[0] AS v')).records[0]?.get('v');
    const pgVersion = (await container.db.raw('SHOW server_version')).rows[0].server_version;
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    writeSection(`
## Graph API at ${assets.toLocaleString('en')} assets

${new Date().toISOString().slice(0, 10)} · ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB · ${os.type()} ${os.release()} · Node ${process.version} · Neo4j ${neo4jVersion} (local launcher, 2 GiB heap, 2 GiB page cache) · PostgreSQL ${pgVersion} (embedded)

Estate: \`demoEstate(${values.hosts})\`, ${assets.toLocaleString('en')} assets and ${relationships.toLocaleString('en')} relationships, loaded through the import path in ${loadSeconds.toFixed(0)} s (${Math.round(assets / loadSeconds)} assets/s with identity reconciliation).

Latency in ms, median / p99 over ${ITERATIONS} sequential requests after ${WARMUP} of warm-up. "HTTP" is the whole request through Express, authentication, validation and JSON; "Cypher" is the queries the endpoint needs, run in the same process through the same repositories.

| Endpoint | HTTP | Cypher |
|---|---|---|
${rows.join('\n')}

Plans of the page query (EXPLAIN):

| Filter | Operators | Verdict |
|---|---|---|
${plans.join('\n')}
`);
    await closeServer(server);
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
