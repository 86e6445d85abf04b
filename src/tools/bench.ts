// `npm run bench [-- --only graph-api|exports]`: each section runs on fresh local stores and
// writes its part of BENCHMARKS.md with the machine and the date.
//   graph-api: the demo estate at 100,000 assets; each endpoint over HTTP (median and p99) beside
//              the Cypher it runs, timed in the same process; the plans of the filtered listings.
//   exports:   10 million software rows on 10,000 hosts; CSV and JSON export throughput beside
//              COPY (SELECT ...) TO STDOUT of the same rows, and the service's peak memory at 1M
//              and at 10M rows.
import { mkdtempSync, chmodSync, existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import pg from 'pg';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.js';
import type { AssetFilter } from '../features/assets/asset-graph-repository.js';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { fromProjectRoot } from '../platform/project-root.js';
import type { Container } from '../container.js';
import { closeServer, listen, openStores } from '../start-service.js';
import { demoEstate } from './demo-estate.js';

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

/** Writes one section of BENCHMARKS.md, keeping the others. */
function writeSection(section: string, body: string): void {
  const file = fromProjectRoot('BENCHMARKS.md');
  const start = `<!-- bench:${section} -->`;
  const end = `<!-- /bench:${section} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nWritten by `npm run bench`; each section names the machine and the date of its run.\n';
  text = text.includes(start) ? text.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

/** Fresh local stores in a temporary folder, removed afterwards. */
async function withFreshStores(run: (container: Container) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inventory-bench-'));
  chmodSync(dataDir, 0o755);
  const config = loadConfig({
    file: false,
    overrides: { dataDir, localPostgresPort: 55600, localNeo4jBoltPort: 57600, localNeo4jHeap: '2g', localNeo4jPageCache: '2g', logLevel: 'warn', roles: 'api' },
  });
  const { container, close } = await openStores(config, createLogger('warn'));
  try {
    await run(container);
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${new Date().toISOString().slice(0, 10)} · ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB · ${os.type()} ${os.release()} · Node ${process.version}`;
}

async function graphApi(container: Container, hosts: number): Promise<void> {
  {
    // Load.
    const bundles = demoEstate(hosts);
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

    const key = (await container.tokens.createIntegrationKey({ kind: 'SYSTEM', name: 'bench' }, 'bench')).token;
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
    writeSection('graph-api', `
## Graph API at ${assets.toLocaleString('en')} assets

${machine()} · Neo4j ${neo4jVersion} (local launcher, 2 GiB heap, 2 GiB page cache) · PostgreSQL ${pgVersion} (embedded)

Estate: \`demoEstate(${hosts})\`, ${assets.toLocaleString('en')} assets and ${relationships.toLocaleString('en')} relationships, loaded through the import path in ${loadSeconds.toFixed(0)} s (${Math.round(assets / loadSeconds)} assets/s with identity reconciliation).

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
  }
}

interface ExportRun {
  seconds: number;
  rows: number;
  megabytes: number;
  peakRssMb: number;
  peakHeapMb: number;
}

/** Reads an export as a client that keeps nothing, while sampling this process's memory. */
async function readExport(url: string, key: string): Promise<ExportRun> {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 50);
  const started = process.hrtime.bigint();
  let bytes = 0;
  let lines = 0;
  await new Promise<void>((resolve, reject) => {
    http.get(url, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', resolve);
      res.on('error', reject);
    }).on('error', reject);
  });
  clearInterval(sampler);
  sample();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // CSV: one line per row plus the header; JSON: one line per row plus the brackets.
  const rows = url.includes('.csv') ? lines - 1 : lines - 2;
  return { seconds, rows, megabytes: bytes / 2 ** 20, peakRssMb: peakRss / 2 ** 20, peakHeapMb: peakHeap / 2 ** 20 };
}

async function copyRows(databaseUrl: string): Promise<{ seconds: number; rows: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = process.hrtime.bigint();
    let lines = 0;
    const sql = `COPY (SELECT asset_id, package_name, version, publisher, to_char(install_date, 'YYYY-MM-DD'), package_manager
                 FROM software_packages ORDER BY asset_id, package_name) TO STDOUT (FORMAT csv)`;
    await pipeline(client.query(copyTo(sql)), new Writable({
      write(chunk: Buffer, _e, done) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done();
      },
    }));
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, rows: lines };
  } finally {
    await client.end();
  }
}

async function exportsBench(container: Container, databaseUrl: string): Promise<void> {
  const HOSTS = 10_000;
  const hostBundles = Array.from({ length: HOSTS / 2000 }, (_, b) => ({
    source: 'bench',
    assets: Array.from({ length: 2000 }, (_, i) => {
      const n = b * 2000 + i;
      return { key: `h${n}`, assetType: 'SERVER' as const, displayName: `host-${String(n).padStart(5, '0')}`, hostname: `host-${n}`, serialNumber: `BENCH${String(n).padStart(6, '0')}` };
    }),
  }));
  const ids: string[] = [];
  for (const bundle of hostBundles) ids.push(...(await container.importer.import({ kind: 'SYSTEM', name: 'bench' }, bundle)).assets.map((a) => a.id));

  const key = (await container.tokens.createIntegrationKey({ kind: 'SYSTEM', name: 'bench' }, 'bench')).token;
  const server = await listen(buildApp(container), 0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: string[] = [];
  let from = 1;
  try {
    for (const perHost of [100, 1000]) {
      // Packages up to perHost on every host, generated in PostgreSQL.
      await container.db.raw(
        `INSERT INTO software_packages (asset_id, package_name, version, publisher, install_date, package_manager, source, first_seen_at, last_seen_at)
         SELECT h.id, 'package-' || lpad(g::text, 4, '0'), '1.' || (g % 50) || '.' || (g % 7), 'Publisher ' || (g % 37),
                date '2026-01-01' + (g % 300), 'dpkg', 'bench', now(), now()
           FROM unnest(?::uuid[]) AS h(id) CROSS JOIN generate_series(?::int, ?::int) AS g`,
        [ids, from, perHost],
      );
      await container.db.raw('ANALYZE software_packages');
      from = perHost + 1;
      const total = perHost * HOSTS;
      console.log(`${total} rows`);
      const copy = await copyRows(databaseUrl);
      const csv = await readExport(`${base}/api/v1/export/software.csv`, key);
      const json = await readExport(`${base}/api/v1/export/software.json`, key);
      if (csv.rows !== total || json.rows !== total || copy.rows !== total) throw new Error(`row counts differ: ${total} ${csv.rows} ${json.rows} ${copy.rows}`);
      const rate = (r: { seconds: number; rows: number }) => Math.round(r.rows / r.seconds).toLocaleString('en');
      rows.push(`| ${total.toLocaleString('en')} | ${rate(csv)} rows/s (${csv.megabytes.toFixed(0)} MiB in ${csv.seconds.toFixed(1)} s) | ${rate(json)} rows/s (${json.megabytes.toFixed(0)} MiB in ${json.seconds.toFixed(1)} s) | ${rate(copy)} rows/s (${copy.seconds.toFixed(1)} s) | ${csv.peakRssMb.toFixed(0)} / ${csv.peakHeapMb.toFixed(0)} | ${json.peakRssMb.toFixed(0)} / ${json.peakHeapMb.toFixed(0)} |`);
      console.log(rows.at(-1));
    }
  } finally {
    await closeServer(server);
  }
  writeSection('exports', `
## Software export at 10 million rows

${machine()} · PostgreSQL ${(await container.db.raw('SHOW server_version')).rows[0].server_version} (embedded) · Neo4j (local launcher)

10,000 hosts (asset names from Neo4j) with 100, then 1,000 packages each (rows in PostgreSQL). Each export is read in full by a client that keeps nothing; the service merges host names from Neo4j with the rows from PostgreSQL in asset-name order, 500 rows at a time. COPY is \`COPY (SELECT ... FROM software_packages ORDER BY asset_id, package_name) TO STDOUT (FORMAT csv)\` of the same rows, without the names. Memory is the peak RSS / heap used (MiB) of the process that serves the export (the benchmark's client reads in the same process and keeps nothing).

| Rows | CSV export | JSON export | COPY TO STDOUT | Peak RSS / heap, CSV | Peak RSS / heap, JSON |
|---|---|---|---|---|---|
${rows.join('\n')}
`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { hosts: { type: 'string', default: '19000' }, only: { type: 'string' } } });
  if (!values.only || values.only === 'graph-api') await withFreshStores((c) => graphApi(c, Number(values.hosts)));
  if (!values.only || values.only === 'exports') await withFreshStores((c) => exportsBench(c, c.addresses.databaseUrl));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
