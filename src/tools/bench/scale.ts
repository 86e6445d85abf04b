// The scale section: the bulk paths at 100,000 assets and 10 million sub-record rows (or the
// --quick estate, labelled as such), each beside its floor, the bare store work it needs, run in
// the same benchmark process and interleaved with it. The service runs as its own process, as in
// production; the benchmark is its client and also runs the floors through the service's own
// repositories on the same stores.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { to as copyTo } from 'pg-copy-streams';
import pg from 'pg';
import type { Container } from '../../container.js';
import { AssetGraphRepository } from '../../features/assets/asset-graph-repository.js';
import type { AssetFilter, AssetSort } from '../../features/assets/asset-summary.js';
import { EXPORT_SPECS, selectSql, type SubRecordExport, type SubRecordExportFilter } from '../../features/exports/sub-record-export-store.js';
import { RELATIONSHIP_TYPES } from '../../features/inventory/relationship-types.js';
import { kindOfType } from '../../features/inventory/sub-record-kinds.js';
import { SubRecordStore } from '../../features/inventory/sub-record-store.js';
import { SynthesizedAssetStore, type KeyedRow, type SynthesizedFilter, type SynthesizedType } from '../../features/assets/synthesized-asset-store.js';
import { TopologyGraphRepository } from '../../features/topology/topology-graph-repository.js';
import { pageWindow, windowed, type PageWindow, type WindowedRows } from '../../platform/http/pagination.js';
import { copySetting } from '../../platform/postgres/copy-out.js';
import { fromProjectRoot } from '../../platform/project-root.js';
import { STARTUP_RUN_DELAY_SECONDS } from '../../platform/scheduler/scheduler.js';
import { demoEstate } from '../demo-estate.js';
import { REFERENCE_PATHS } from './reference-http.js';
import { FILTER_CHANGES, measureWebUi } from './web-ui.js';
import {
  BENCH_ACTOR, benchConfig, elapsedMs, int, interleaved, loadAverage, machine, median, ms, quietService, ratio, serviceCpuProbe, serviceProcesses, throughputs, withDataDir, withStores, writeSection,
  apiClient, lightGet, lightGetJson, type ApiClient, type ServiceProcesses, type Throughput,
} from './support.js';

export interface EstateSize {
  /** Hosts of demoEstate (about 5.4 assets each). */
  demoHosts: number;
  packagesPerHost: number;
  processesPerHost: number;
  servicesPerHost: number;
  runs: number;
  label: string;
}

export const FULL_ESTATE: EstateSize = { demoHosts: 19_000, packagesPerHost: 450, processesPerHost: 90, servicesPerHost: 45, runs: 100_000, label: '' };
export const QUICK_ESTATE: EstateSize = { demoHosts: 1_900, packagesPerHost: 45, processesPerHost: 9, servicesPerHost: 5, runs: 10_000, label: ' (--quick estate: a tenth of the assets, a hundredth of the rows; not the figures of record)' };

export interface EstateFacts {
  size: EstateSize;
  assets: number;
  relationships: number;
  importSeconds: number;
  rows: { software: number; processes: number; services: number };
  subRecordSeconds: number;
}

const ESTATE_FILE = 'bench-estate.json';
const HOSTS_PER_WRITE = 4;

/** How many assets and relationships the graph holds (each counted apart: an empty graph is 0 and 0). */
export async function graphSize(container: Container): Promise<{ assets: number; relationships: number }> {
  const { records } = await container.driver.executeQuery('RETURN COUNT { (:Asset) } AS assets, COUNT { ()-[]->() } AS relationships', {}, { database: container.config.neo4jDatabase });
  return { assets: Number(records[0]?.get('assets')), relationships: Number(records[0]?.get('relationships')) };
}

/** Loads the estate's assets and relationships through the import path (timed). */
export async function importEstateGraph(container: Container, size: EstateSize): Promise<{ assets: number; relationships: number; importSeconds: number }> {
  const started = process.hrtime.bigint();
  let assets = 0;
  let relationships = 0;
  for (const bundle of demoEstate(size.demoHosts)) {
    const result = await container.importer.import(BENCH_ACTOR, bundle);
    assets += result.assets.length;
    relationships += result.relationships;
    process.stdout.write(`\rimported ${int(assets)} assets, ${int(relationships)} relationships`);
  }
  process.stdout.write('\n');
  return { assets, relationships, importSeconds: elapsedMs(started) / 1000 };
}

/** Loads the estate through the import path (timed), then the sub-records of every host, host by host as the load step writes them. */
async function buildEstate(container: Container, size: EstateSize): Promise<EstateFacts> {
  const { assets, relationships, importSeconds } = await importEstateGraph(container, size);

  const hosts = (await container.driver.executeQuery('MATCH (h:Host) RETURN h.id AS id ORDER BY h.id', {}, { database: container.config.neo4jDatabase })).records.map((r) => r.get('id') as string);
  const store = new SubRecordStore(container.db);
  const subStart = process.hrtime.bigint();
  const now = new Date();
  const publishers = ['Debian', 'Red Hat, Inc.', 'Canonical', null];
  for (let h = 0; h < hosts.length; h += HOSTS_PER_WRITE) {
    const batch = hosts.slice(h, h + HOSTS_PER_WRITE);
    await store.upsertPackages(batch.flatMap((assetId) => Array.from({ length: size.packagesPerHost }, (_, g) => ({
      assetId, packageName: `pkg-${String(g).padStart(4, '0')}`, version: `1.${g % 17}.${g % 5}`, publisher: publishers[g % 4] ?? null,
      installDate: `2025-${String((g % 12) + 1).padStart(2, '0')}-01`,
      // One package in ten from apk: an export of about a tenth of the rows, for memory at two sizes.
      packageManager: g % 10 === 0 ? 'apk' : g % 2 ? 'rpm' : 'dpkg',
    }))), 'bench', now);
    await store.replaceProcesses(batch, batch.flatMap((assetId) => Array.from({ length: size.processesPerHost }, (_, g) => ({
      assetId, pid: 1000 + g, ppid: 1, processName: `worker-${g % 40}`, commandLine: `/usr/bin/worker --id ${g} --config /etc/worker.conf`,
      username: g % 4 ? 'app' : 'root', state: 'S', memoryKb: 1000 + g * 7, cpuPercent: (g % 100) / 10, sourceConnector: 'SSH',
    }))), now);
    await store.upsertServices(batch.flatMap((assetId) => Array.from({ length: size.servicesPerHost }, (_, g) => ({
      assetId, serviceName: `svc-${g}`, displayName: `Service ${g}`, state: g % 5 ? 'running' : 'stopped', startMode: 'auto',
      listenPorts: [{ protocol: 'tcp', port: 20_000 + g }], sourceConnector: 'SSH',
    }))), now);
    if (h % 400 === 0) process.stdout.write(`\rsub-records of ${int(h + batch.length)} / ${int(hosts.length)} hosts`);
  }
  const subRecordSeconds = elapsedMs(subStart) / 1000;
  process.stdout.write('\n');
  // History for the run list: finished runs, one a minute.
  await container.db.raw(
    `INSERT INTO discovery_runs (target_name, trigger, status, queued_at, started_at, finished_at, progress_done, progress_total)
     SELECT 'history', 'SCHEDULED', CASE WHEN g % 20 = 0 THEN 'COMPLETED_WITH_ERRORS' ELSE 'COMPLETED' END,
            now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval + interval '20 seconds', 10, 10
       FROM generate_series(1, ?::int) AS g`,
    [size.runs],
  );
  // The changes of the row counts that the writes above appended, folded as the service's job folds them.
  await container.rowCounts.compact();
  await container.db.raw('ANALYZE');
  const count = async (table: string) => Number((await container.db(table).count<{ count: string }[]>('* as count'))[0]?.count ?? 0);
  return {
    size, assets, relationships, importSeconds, subRecordSeconds,
    rows: { software: await count('software_packages'), processes: await count('running_processes'), services: await count('discovered_services') },
  };
}

/** The service as its own process on the stores of dataDir, until stop(). */
async function serviceProcess(dataDir: string): Promise<{ base: string; pid: number; processes: ServiceProcesses; stop(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as net.AddressInfo;
      server.close(() => resolve(free));
    });
  });
  const config = benchConfig(dataDir, {});
  const child: ChildProcess = spawn(process.execPath, [fromProjectRoot('dist/main.js')], {
    env: {
      ...process.env, SERVICE_DATA_DIR: dataDir, PORT: String(port), SERVICE_LOCAL_POSTGRES_PORT: String(config.localPostgresPort),
      SERVICE_LOCAL_NEO4J_BOLT_PORT: String(config.localNeo4jBoltPort), SERVICE_LOCAL_NEO4J_HEAP: config.localNeo4jHeap,
      SERVICE_LOCAL_NEO4J_PAGECACHE: config.localNeo4jPageCache, SERVICE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (await fetch(`${base}/health`).then((r) => r.status === 200, () => false)) break;
    if (i > 600) throw new Error('the service did not start within 2 minutes');
    await sleep(200);
  }
  // The jobs that run after every start (the retention sweeps) come and go before anything is measured.
  const processes = serviceProcesses(child.pid as number, dataDir);
  await sleep((STARTUP_RUN_DELAY_SECONDS + 5) * 1000);
  await quietService(processes);
  return {
    base,
    pid: child.pid as number,
    processes,
    stop: () => stopChild(child, 'SIGINT'),
  };
}

/** Sends a child process the signal and resolves once it has exited. */
function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** The reference of the per-request overhead (reference-http.ts) on the stores of dataDir, until stop(). */
async function referenceProcess(dataDir: string): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fromProjectRoot('dist/tools/bench/reference-http.js'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`the reference HTTP server exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () => stopChild(child, 'SIGTERM'),
  };
}

/** Resident memory of a process (MiB), from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

interface StreamRun {
  seconds: number;
  firstByteMs: number;
  rows: number;
  peakRssMb: number;
}

/** Reads an export in full as a client that keeps nothing, counting its lines, while sampling the service's memory. */
async function readExport(url: string, key: string, servicePid: number): Promise<StreamRun> {
  let peak = rssMb(servicePid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(servicePid));
  }, 100);
  const started = process.hrtime.bigint();
  let firstByteMs = 0;
  let lines = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      http.get(url, { headers: { authorization: `Bearer ${key}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => {
          if (!firstByteMs) firstByteMs = elapsedMs(started);
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', resolve);
        res.on('error', reject);
      }).on('error', reject);
    });
  } finally {
    clearInterval(sampler);
  }
  // CSV: a line per row (in RFC 4180 form, where no value holds a line break) plus the header; JSON: a line per row plus the brackets.
  return { seconds: elapsedMs(started) / 1000, firstByteMs, rows: url.includes('.csv') ? lines - 1 : lines - 2, peakRssMb: peak };
}

/** COPY (sql) TO STDOUT read in full, its filter values set as the exports set them: the floor of an export. */
async function copyFloor(databaseUrl: string, { sql, settings }: { sql: string; settings: Record<string, string> }): Promise<StreamRun> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN READ ONLY');
    for (const [name, value] of Object.entries(settings)) await client.query('SELECT set_config($1, $2, true)', [copySetting(name), value]);
    const started = process.hrtime.bigint();
    let firstByteMs = 0;
    let lines = 0;
    await pipeline(client.query(copyTo(`COPY (${sql}) TO STDOUT (FORMAT csv)`)), new Writable({
      write(chunk: Buffer, _e, done) {
        if (!firstByteMs) firstByteMs = elapsedMs(started);
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done();
      },
    }));
    await client.query('COMMIT');
    return { seconds: elapsedMs(started) / 1000, firstByteMs, rows: lines, peakRssMb: 0 };
  } finally {
    await client.end();
  }
}

/** The export's SELECT with its plain columns, in its order: what COPY would send with no formatting of ours. */
function exportFloorSql(kind: SubRecordExport, filter: SubRecordExportFilter = {}): { sql: string; settings: Record<string, string> } {
  const spec = EXPORT_SPECS[kind];
  const { sql, settings } = selectSql(spec, filter, spec.columns.map((c) => c.sql).join(', '));
  return { sql: `${sql} ORDER BY ${spec.order.join(', ')}`, settings };
}

const rate = (r: StreamRun) => r.rows / r.seconds;

const LIST_ITERATIONS = 100;
const LIST_WARMUP_ROUNDS = 100;
const LOAD_SECONDS = 20;
const CONCURRENCY = 16;
const CHANGE_FEED_ITEMS = 100_000;
const SOFTWARE_WALK_ROWS = 100_000;

interface WalkRate {
  rowsPerSecond: number;
  seconds: number;
  rows: number;
}

/**
 * Every page of a list by its next links and the same walk through the repository, taken in
 * turn three times (so that neither gets a warmer store), and the better of each.
 */
async function walkRates(http: () => Promise<number>, bare: () => Promise<number>): Promise<{ http: WalkRate; bare: WalkRate }> {
  const samples: { http: WalkRate[]; bare: WalkRate[] } = { http: [], bare: [] };
  const once = async (walk: () => Promise<number>): Promise<WalkRate> => {
    const start = process.hrtime.bigint();
    const rows = await walk();
    const seconds = elapsedMs(start) / 1000;
    return { rows, seconds, rowsPerSecond: rows / seconds };
  };
  for (let i = 0; i < 3; i++) {
    samples.http.push(await once(http));
    samples.bare.push(await once(bare));
  }
  const best = (runs: WalkRate[]) => runs.reduce((a, b) => (b.rowsPerSecond > a.rowsPerSecond ? b : a));
  return { http: best(samples.http), bare: best(samples.bare) };
}

/** The estate of the data folder: built (and timed) when the folder holds none yet. */
export async function ensureEstate(dataDir: string, size: EstateSize): Promise<EstateFacts> {
  const factsFile = path.join(dataDir, ESTATE_FILE);
  const facts: EstateFacts = existsSync(factsFile)
    ? (JSON.parse(readFileSync(factsFile, 'utf8')) as EstateFacts)
    : await withStores(dataDir, async (container) => {
        const built = await buildEstate(container, size);
        writeFileSync(factsFile, JSON.stringify(built));
        return built;
      });
  if (JSON.stringify(facts.size) !== JSON.stringify(size)) throw new Error(`${dataDir} holds another estate (${JSON.stringify(facts.size)}); use another --data-dir`);
  return facts;
}

export async function scaleBench({ size, dataDir: keep }: { size: EstateSize; dataDir?: string }): Promise<void> {
  await withDataDir(async (dataDir) => {
    const facts = await ensureEstate(dataDir, size);
    const service = await serviceProcess(dataDir);
    const reference = await referenceProcess(dataDir).catch(async (error: unknown) => {
      await service.stop();
      throw error;
    });
    try {
      await withStores(dataDir, async (container) => {
        const key = (await container.tokens.createIntegrationKey(BENCH_ACTOR, `bench ${Date.now()}`)).token;
        const api = apiClient(service.base, key);
        const text = (url: string) => lightGet(`${service.base}${url}`, { authorization: `Bearer ${key}` });
        writeSection('scale', await measure(container, api, text, { ...service, reference }, key, facts));
      });
    } finally {
      await reference.stop();
      await service.stop();
    }
  }, keep);
}

async function measure(container: Container, api: ApiClient, text: (url: string) => Promise<number>, service: { base: string; pid: number; processes: ServiceProcesses; reference: { base: string; pid: number } }, key: string, facts: EstateFacts): Promise<string> {
  const assets = container.assetReadModel;
  const repo = new AssetGraphRepository(container.graph);
  const topologyGraph = new TopologyGraphRepository(container.graph);
  const byName: AssetSort = { field: 'displayName', direction: 'asc' };
  const firstPage: PageWindow = { kind: 'offset', offset: 0, limit: 51 };
  // The store reads of a page: its statement, with its total (from the count store, or a kept count checked by bookmark).
  const pageOf = (filter: AssetFilter, window: PageWindow = firstPage) => repo.pageAndTotal(filter, byName, window);
  const loads: string[] = [loadAverage()];
  const referenceText = (url: string) => lightGet(`${service.reference.base}${url}`, {});

  // Lists.
  const threeFilters: AssetFilter = { types: ['VM'], sites: ['paris'], environments: ['production'] };
  // Page 1,000 (or, in a smaller estate, the last but one).
  const deepPage = Math.min(1000, Math.floor(facts.assets / 50) - 2);
  const deepOffset = await api.get<{ links: { next: string } }>(`/api/v1/assets?size=50&page=${deepPage - 1}`);
  const deepUrl = deepOffset.links.next.replace(service.base, '');
  const deepCursor = new URL(deepOffset.links.next).searchParams.get('cursor') as string;
  const deepKey = (JSON.parse(Buffer.from(deepCursor, 'base64url').toString('utf8')) as { after: (string | null)[] }).after;
  // Synthesized rows (docs/interface.md §4.9, for interactive queries and CMDB sync): the store's
  // page and its total, beside each other as the read model reads them, then their hosts (the parent block).
  const synth = new SynthesizedAssetStore(container.db, container.rowCounts);
  const synthPage = async (type: SynthesizedType, filter: SynthesizedFilter = {}, window: PageWindow = firstPage) => {
    const [rows] = await Promise.all([synth.rows(type, filter, byName, window), synth.count(type, filter)]);
    // An interface's connections, and their far ends among the hosts.
    const connections = kindOfType(type).connected ? await synth.connections(rows.map((r) => r.row.id)) : [];
    await repo.summaries([...new Set([...rows.map((r) => r.row.assetId), ...connections.map((c) => c.otherAssetId)])]);
    return rows;
  };
  const searched = async (type: SynthesizedType, q: string) => synthPage(type, { q, hostsMatchingQ: await repo.ids({ q }) });
  const deepSoftware = await api.get<{ links: { next: string } }>(`/api/v1/assets?type=SOFTWARE_PACKAGE&size=50&page=${deepPage - 1}`);
  const deepSoftwareKey = (JSON.parse(Buffer.from(new URL(deepSoftware.links.next).searchParams.get('cursor') as string, 'base64url').toString('utf8')) as { after: (string | null)[] }).after;
  const listRows: [string, string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['GET /assets?size=50', 'the page statement (page with parents and total)', () => text('/api/v1/assets?size=50'), () => pageOf({})],
    ['GET /assets?q=vm-par-01&size=50', 'the same, q on the text index', () => text('/api/v1/assets?q=vm-par-01&size=50'), () => pageOf({ q: 'vm-par-01' })],
    ['GET /assets?type=VM&site=paris&environment=production&size=50', 'the same, three filters', () => text('/api/v1/assets?type=VM&site=paris&environment=production&size=50'), () => pageOf(threeFilters)],
    [`GET /assets page ${int(deepPage)} by its next link (cursor)`, 'the same, seeking after the cursor', () => text(deepUrl), () => pageOf({}, { kind: 'after', key: deepKey, limit: 51 })],
    [`GET /assets?size=50&page=${deepPage} (offset, for contrast)`, `the page statement skipping ${int(deepPage * 50)} rows`, () => text(`/api/v1/assets?size=50&page=${deepPage}`), () => pageOf({}, { kind: 'offset', offset: deepPage * 50, limit: 51 })],
    ['GET /discovery/runs?size=50', 'the run page query', () => text('/api/v1/discovery/runs?size=50'), () => container.runs.list({}, firstPage)],
    ['GET /assets?type=SOFTWARE_PACKAGE&size=50', 'the package page, its total from the row counts, its hosts', () => text('/api/v1/assets?type=SOFTWARE_PACKAGE&size=50'), () => synthPage('SOFTWARE_PACKAGE')],
    [`GET /assets?type=SOFTWARE_PACKAGE page ${int(deepPage)} by its next link (cursor)`, 'the same, seeking after the cursor', () => text(deepSoftware.links.next.replace(service.base, '')),
      () => synthPage('SOFTWARE_PACKAGE', {}, { kind: 'after', key: deepSoftwareKey.slice(1), limit: 51 })],
    ['GET /assets?type=SOFTWARE_PACKAGE&q=openssl&size=50', 'the same, q on the trigram index (its count kept), the hosts q names', () => text('/api/v1/assets?type=SOFTWARE_PACKAGE&q=openssl&size=50'), () => searched('SOFTWARE_PACKAGE', 'openssl')],
    ['GET /assets?type=INTERFACE&size=50', 'the interface page by host name, its total, its hosts', () => text('/api/v1/assets?type=INTERFACE&size=50'), () => synthPage('INTERFACE')],
    ['reference: the /assets reads behind a bare node:http handler', 'the page statement (page with parents and total)', () => referenceText(REFERENCE_PATHS.assets), () => pageOf({})],
    ['reference: the /discovery/runs reads behind a bare node:http handler', 'the run page query', () => referenceText(REFERENCE_PATHS.runs), () => container.runs.list({}, firstPage)],
  ];
  // The stores' JIT warms over minutes after the start (the first /assets floor measured 13 ms
  // against 5 ms two minutes later): every path and floor goes round first, so the ratios below
  // are the steady state's.
  for (let round = 0; round < LIST_WARMUP_ROUNDS; round++) {
    for (const [, , path, bare] of listRows) {
      await path();
      await bare();
    }
  }
  const listLines: string[] = [];
  for (const [what, floor, path, bare] of listRows) {
    const t = await interleaved(path, bare, LIST_ITERATIONS);
    listLines.push(`| ${what} | ${ms(t.path)} | ${ms(t.floor)} (${floor}) | ${ratio(t.path.median, t.floor.median)} |`);
    console.log(listLines.at(-1));
  }
  loads.push(loadAverage());

  // Walking all relationships, with the lightest JSON client (see lightGetJson).
  const json = <T>(url: string) => lightGetJson<T>(`${service.base}${url}`, { authorization: `Bearer ${key}` });
  const relFilter = { activeOnly: true };
  const relWalkHttp = async () => {
    let rows = 0;
    let url: string | undefined = '/api/v1/relationships?size=1000';
    while (url) {
      const page: { data: unknown[]; links: { next?: string } } = await json(url);
      rows += page.data.length;
      url = page.links.next?.replace(service.base, '');
    }
    return rows;
  };
  const relWalkBare = async () => {
    const counts = await container.relationships.countsByType(relFilter);
    let rows = 0;
    let window: PageWindow = { kind: 'offset', offset: 0, limit: 1001 };
    for (;;) {
      const page = windowed(window, await container.relationships.page(relFilter, window, counts), (r) => [r.relationshipType, r.id]);
      rows += page.rows.length;
      if (!page.more) return rows;
      window = pageWindow({ page: 1, size: 1000, cursor: { after: page.lastKey as (string | null)[] } });
    }
  };
  const { http: relHttp, bare: relBare } = await walkRates(relWalkHttp, relWalkBare);
  console.log(`relationships: ${int(relHttp.rowsPerSecond)} rows/s over HTTP, ${int(relBare.rowsPerSecond)} bare`);

  // A CMDB sync of software through the assets endpoint (docs/interface.md §4.9): its first rows by next links.
  const softwareWalkRows = Math.min(SOFTWARE_WALK_ROWS, facts.rows.software);
  const softwareWalkHttp = async () => {
    let rows = 0;
    let url: string | undefined = '/api/v1/assets?type=SOFTWARE_PACKAGE&size=1000';
    while (url && rows < softwareWalkRows) {
      const page: { data: unknown[]; links: { next?: string } } = await json(url);
      rows += page.data.length;
      url = page.links.next?.replace(service.base, '');
    }
    return rows;
  };
  const softwareWalkBare = async () => {
    let rows = 0;
    let window: PageWindow = { kind: 'offset', offset: 0, limit: 1001 };
    while (rows < softwareWalkRows) {
      const page: WindowedRows<KeyedRow> = windowed(window, await synthPage('SOFTWARE_PACKAGE', {}, window), (r) => r.key);
      rows += page.rows.length;
      if (!page.more) break;
      window = { kind: 'after', key: page.lastKey as (string | null)[], limit: 1001 };
    }
    return rows;
  };
  const software = await walkRates(softwareWalkHttp, softwareWalkBare);
  console.log(`software: ${int(software.http.rowsPerSecond)} rows/s over HTTP, ${int(software.bare.rowsPerSecond)} bare`);

  // Following the change feed from the beginning for 100,000 changes (the estate's creations).
  const feedTarget = Math.min(CHANGE_FEED_ITEMS, facts.assets + facts.relationships);
  const feedHttp = async () => {
    let rows = 0;
    let url = '/api/v1/changes?after=0&limit=1000';
    while (rows < feedTarget) {
      const page: { data: unknown[]; links: { next: string } } = await json(url);
      rows += page.data.length;
      url = page.links.next.replace(service.base, '');
    }
    return rows;
  };
  const feedBare = async () => {
    let rows = 0;
    let after = 0;
    while (rows < feedTarget) {
      const page = await container.changes.after(after, 1000);
      rows += page.items.length;
      after = Number(page.cursor);
    }
    return rows;
  };
  const feed = await walkRates(feedHttp, feedBare);
  console.log(`changes: ${int(feed.http.rowsPerSecond)} rows/s over HTTP, ${int(feed.bare.rowsPerSecond)} bare`);
  loads.push(loadAverage());

  // Topology.
  const hypervisors = (await api.get<{ data: { id: string }[] }>('/api/v1/assets?type=HYPERVISOR&size=100')).data.map((a) => a.id);
  const topoLines: string[] = [];
  for (const depth of [2, 5]) {
    const t = await interleaved(
      (i) => text(`/api/v1/topology/${hypervisors[i % hypervisors.length]}/neighbors?depth=${depth}`),
      (i) => topologyGraph.walk(hypervisors[i % hypervisors.length] as string, depth, 499),
      LIST_ITERATIONS,
    );
    topoLines.push(`| GET /topology/{hypervisor}/neighbors?depth=${depth} | ${ms(t.path)} | ${ms(t.floor)} | ${ratio(t.path.median, t.floor.median)} |`);
    console.log(topoLines.at(-1));
  }
  loads.push(loadAverage());

  // The web UI in Chromium: a topology from a vCenter (its sites' clusters, hypervisors and VMs) at 2,000 assets.
  const vcenter = (await api.get<{ data: { id: string }[] }>('/api/v1/assets?type=VIRTUALIZATION_MANAGER&size=1')).data[0]?.id as string;
  const ui = await measureWebUi(container, service.base, vcenter);
  console.log(`web UI: ${JSON.stringify(ui)}`);
  loads.push(loadAverage());

  // Per-request overhead under load.
  const overheadRows: [string, string, () => Promise<unknown>, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['GET /assets?size=50', 'page statement with its total from the count store', () => text('/api/v1/assets?size=50'), () => pageOf({}), () => referenceText(REFERENCE_PATHS.assets)],
    ['GET /discovery/runs?size=50', 'run page + count', () => text('/api/v1/discovery/runs?size=50'), () => container.runs.list({}, firstPage), () => referenceText(REFERENCE_PATHS.runs)],
    ['GET /relationships?type=MANAGED_BY&size=50', 'the type\'s page statement with its counts', () => text('/api/v1/relationships?type=MANAGED_BY&size=50'),
      () => container.relationships.pageAndCounts({ types: ['MANAGED_BY'], activeOnly: true }, firstPage), () => referenceText(REFERENCE_PATHS.relationships)],
  ];
  const overheadLines: string[] = [];
  const cpuLines: string[] = [];
  // Where each request's CPU goes: the service's process, its stores, and this process (the HTTP
  // client, or for the floor the driver's decoding that the service does on the path).
  const cpuOf = (t: Throughput) => ['service', 'stores', 'benchmark'].map((k) => (t.cpuPerCall[k] ?? 0).toFixed(2)).join(' / ');
  const throughputOf = (t: Throughput, note = '') => `${int(t.perSecond)} (${t.median.toFixed(1)} / ${t.p99.toFixed(1)} ms${note})`;
  for (const [what, floor, path, bare, reference] of overheadRows) {
    const t: { path: Throughput; floor: Throughput } = await throughputs(path, bare, CONCURRENCY, LOAD_SECONDS, serviceCpuProbe(service.processes));
    // The reference beside the same floor, measured again in its own turns.
    const r: { path: Throughput; floor: Throughput } = await throughputs(reference, bare, CONCURRENCY, LOAD_SECONDS, serviceCpuProbe(service.processes, service.reference.pid));
    overheadLines.push(`| ${what} | ${throughputOf(t.path)} | ${throughputOf(t.floor, `; ${floor}`)} | ${ratio(t.path.perSecond, t.floor.perSecond)} | ${throughputOf(r.path)} against ${int(r.floor.perSecond)} bare | ${ratio(r.path.perSecond, r.floor.perSecond)} |`);
    cpuLines.push(`| ${what} | ${cpuOf(t.path)} | ${cpuOf(t.floor)} | ${cpuOf(r.path)} |`);
    console.log(overheadLines.at(-1), cpuLines.at(-1));
  }
  loads.push(loadAverage());

  // Exports.
  const databaseUrl = container.addresses.databaseUrl;
  const exportLines: string[] = [];
  const exportOf = async (label: string, url: string, floorSql: { sql: string; settings: Record<string, string> }, expectedRows: number) => {
    const floor = await copyFloor(databaseUrl, floorSql);
    const csv = await readExport(`${service.base}${url}`, key, service.pid);
    const json = await readExport(`${service.base}${url.replace('.csv', '.json')}`, key, service.pid);
    if (![floor, csv, json].every((r) => r.rows === expectedRows)) throw new Error(`${label}: row counts differ: ${expectedRows} ${floor.rows} ${csv.rows} ${json.rows}`);
    exportLines.push(`| ${label} | ${int(expectedRows)} | ${int(rate(csv))} (first byte ${csv.firstByteMs.toFixed(0)} ms, ${csv.peakRssMb.toFixed(0)} MiB) | ${int(rate(json))} (first byte ${json.firstByteMs.toFixed(0)} ms, ${json.peakRssMb.toFixed(0)} MiB) | ${int(rate(floor))} (first byte ${floor.firstByteMs.toFixed(0)} ms) | ${ratio(rate(csv), rate(floor))} / ${ratio(rate(json), rate(floor))} |`);
    console.log(exportLines.at(-1));
  };
  const apkRows = Number((await container.db('software_packages').where({ package_manager: 'apk' }).count<{ count: string }[]>('* as count'))[0]?.count);
  await exportOf('software, packageManager=apk', '/api/v1/export/software.csv?packageManager=apk', exportFloorSql('software', { packageManager: 'apk' }), apkRows);
  await exportOf('software', '/api/v1/export/software.csv', exportFloorSql('software'), facts.rows.software);
  await exportOf('processes', '/api/v1/export/processes.csv', exportFloorSql('processes'), facts.rows.processes);
  await exportOf('services', '/api/v1/export/services.csv', exportFloorSql('services'), facts.rows.services);
  const plainJoin = await copyFloor(databaseUrl, { sql: `SELECT ${EXPORT_SPECS.software.columns.map((c) => c.sql).join(', ')} FROM asset_names n JOIN software_packages t ON t.asset_id = n.asset_id ORDER BY n.display_name, n.asset_id, t.package_name`, settings: {} });
  // Assets: one Cypher statement, its rows read bare through the same repository.
  const assetFloor = async (): Promise<StreamRun> => {
    const start = process.hrtime.bigint();
    let rows = 0;
    let firstByteMs = 0;
    for await (const batch of repo.streamInNameOrder({})) {
      if (!firstByteMs) firstByteMs = elapsedMs(start);
      rows += batch.length;
    }
    return { seconds: elapsedMs(start) / 1000, firstByteMs, rows, peakRssMb: 0 };
  };
  const af = await assetFloor();
  const ac = await readExport(`${service.base}/api/v1/export/assets.csv`, key, service.pid);
  const aj = await readExport(`${service.base}/api/v1/export/assets.json`, key, service.pid);
  exportLines.push(`| assets | ${int(af.rows)} | ${int(rate(ac))} (first byte ${ac.firstByteMs.toFixed(0)} ms, ${ac.peakRssMb.toFixed(0)} MiB) | ${int(rate(aj))} (first byte ${aj.firstByteMs.toFixed(0)} ms, ${aj.peakRssMb.toFixed(0)} MiB) | ${int(rate(af))} (first byte ${af.firstByteMs.toFixed(0)} ms; the Cypher statement's rows) | ${ratio(rate(ac), rate(af))} / ${ratio(rate(aj), rate(af))} |`);
  console.log(exportLines.at(-1));
  loads.push(loadAverage());

  const neo4jVersion = (await container.driver.executeQuery('CALL dbms.components() YIELD versions RETURN versions[0] AS v')).records[0]?.get('v');
  const pgVersion = (await container.db.raw('SHOW server_version')).rows[0].server_version;
  const { size } = facts;
  return `
## Bulk paths at ${int(facts.assets)} assets and ${int(facts.rows.software + facts.rows.processes + facts.rows.services)} sub-record rows${size.label}

${machine()} · Neo4j ${neo4jVersion} (local launcher, 2 GiB heap, 2 GiB page cache) · PostgreSQL ${pgVersion} (embedded) · 1-minute load average at the start of each part: ${loads.join(', ')} (other work shares this machine; ratios, measured in the same run, move less than absolute figures)

The service runs as its own process (\`node dist/main.js\`, every role) on local stores, measured once the jobs that run after its start have finished (the process and its stores quiet); the benchmark is its HTTP client. Each floor is the store work the path needs, run bare in the benchmark's process through the service's own repositories (or COPY for exports), interleaved with the path.

**Estate.** \`demoEstate(${int(size.demoHosts)})\`: ${int(facts.assets)} assets and ${int(facts.relationships)} relationships loaded through the import path (identity reconciliation, graph, sub-records) in ${facts.importSeconds.toFixed(0)} s: **${int(facts.assets / facts.importSeconds)} assets/s**. Then, host by host through the load step's own upserts, ${size.packagesPerHost} packages, ${size.processesPerHost} processes and ${size.servicesPerHost} services on each of the hosts: ${int(facts.rows.software)} package, ${int(facts.rows.processes)} process and ${int(facts.rows.services)} service rows in ${facts.subRecordSeconds.toFixed(0)} s (${int((facts.rows.software + facts.rows.processes + facts.rows.services) / facts.subRecordSeconds)} rows/s). ${int(size.runs)} finished discovery runs.

### Lists (ms, median / p99 of ${LIST_ITERATIONS} sequential requests, after ${LIST_WARMUP_ROUNDS} rounds of every path and floor)

| Path | HTTP | Floor | Ratio |
|---|---|---|---|
${listLines.join('\n')}

Walking every active relationship by next links at size=1000: **${int(relHttp.rowsPerSecond)} rows/s** over HTTP (${int(relHttp.rows)} rows in ${relHttp.seconds.toFixed(1)} s) against ${int(relBare.rowsPerSecond)} rows/s for the same pages read bare (${ratio(relHttp.rowsPerSecond, relBare.rowsPerSecond)}); the best of three walks each, taken in turn.

Walking the first ${int(software.http.rows)} software packages as synthesized assets by next links at size=1000 (\`GET /assets?type=SOFTWARE_PACKAGE\`, a CMDB sync of docs/interface.md §4.9): **${int(software.http.rowsPerSecond)} rows/s** over HTTP (${software.http.seconds.toFixed(1)} s) against ${int(software.bare.rowsPerSecond)} rows/s for the same pages read bare (each page, its total and its hosts; ${ratio(software.http.rowsPerSecond, software.bare.rowsPerSecond)}); the best of three walks each, taken in turn.

Following the change feed (\`GET /changes\`, limit=1000) from the beginning for ${int(feed.http.rows)} changes: **${int(feed.http.rowsPerSecond)} changes/s** over HTTP (${feed.http.seconds.toFixed(1)} s) against ${int(feed.bare.rowsPerSecond)} changes/s for the same reads through the feed's service in the benchmark's process (${ratio(feed.http.rowsPerSecond, feed.bare.rowsPerSecond)}); the best of three reads each, taken in turn.

### Topology (ms, median / p99; floor: the one breadth-first statement, capped at 500 assets)

| Path | HTTP | Floor | Ratio |
|---|---|---|---|
${topoLines.join('\n')}

### The web UI in Chromium (headless, 1280×800, software WebGL)

| Figure | Value |
|---|---|
| JavaScript of the first visit, gzipped | ${ui.initialJsGzipKb.toFixed(0)} KiB (and ${ui.lazyJsGzipKb.toFixed(0)} KiB loaded later, by the pages that need it) |
| Asset list: a change of filter to the new rows shown (median / p95 of ${FILTER_CHANGES}) | ${ui.filterChange.median.toFixed(0)} / ${ui.filterChange.p95.toFixed(0)} ms |
| Topology of a vCenter at depth 5, capped at 2,000 assets: assets and links drawn | ${int(ui.topology.nodes)} assets, ${int(ui.topology.edges)} links |
| Topology: from navigation to the first drawing (request, answer and first frame) | ${ui.topology.firstDrawMs.toFixed(0)} ms |
| Topology: the layout (ForceAtlas2 in a worker) after the first drawing | ${ui.topology.layoutMs.toFixed(0)} ms |
| Topology: panning by dragging, frames per second (median) and p95 frame time | ${ui.topology.panFps.toFixed(0)} fps, ${ui.topology.panP95FrameMs.toFixed(0)} ms |

### Per-request overhead at concurrency ${CONCURRENCY} (requests/s, with median / p99 latency; ${LOAD_SECONDS} s each, in two halves around the floor)

The reference is the service's own reads of the same page (its read models, row mapping included) behind a bare node:http handler in a process of its own, without Express, the validator, authentication, links or logging (src/tools/bench/reference-http.ts): what HTTP alone costs on this machine, measured against the same floor in turns of its own.

| Path | HTTP | Its store queries, bare | Ratio | Reference | Reference ratio |
|---|---|---|---|---|---|
${overheadLines.join('\n')}

CPU per request in the same runs (ms: the answering process (the service's, or the reference's) / the local stores / the benchmark's process, which is the HTTP client on the path and decodes the driver's answers for the floor); with ${os.cpus().length} cores for all three, the sum bounds the rate, and the answering process's own share bounds it again on its one thread:

| Path | HTTP | Bare | Reference |
|---|---|---|---|
${cpuLines.join('\n')}

### Exports (rows/s; peak resident memory of the service process; floor: COPY (the export's SELECT with its plain columns, same plan and order) TO STDOUT, read by the benchmark)

| Export | Rows | CSV | JSON | Floor | Ratio CSV / JSON |
|---|---|---|---|---|---|
${exportLines.join('\n')}

The exports read each asset's rows through its own index in asset-name order (a LATERAL join on the copy of asset names in PostgreSQL), so that the first bytes leave at once and nothing is sorted whole. For comparison, the plain join that PostgreSQL plans by itself (a hash join and a full sort) sends the ${int(facts.rows.software)} software rows at ${int(rate(plainJoin))} rows/s with its first byte after ${(plainJoin.firstByteMs / 1000).toFixed(1)} s.
`;
}
