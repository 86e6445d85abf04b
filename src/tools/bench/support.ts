// What every benchmark section shares: timing of a path beside its floor (the bare store work it
// needs, run in the same process, interleaved so that both see the same machine), concurrency,
// the machine's description, the stores, and the sections of BENCHMARKS.md.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, type AppConfig, type ConfigOverrides } from '../../platform/config.js';
import { createLogger } from '../../platform/logger.js';
import { fromProjectRoot } from '../../platform/project-root.js';
import type { Container } from '../../container.js';
import { openStores, startService, type RunningService } from '../../start-service.js';

export const BENCH_ACTOR = { kind: 'SYSTEM' as const, name: 'bench' };

export const elapsedMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export function median(samples: number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] as number;
}

export interface Timing {
  median: number;
  p99: number;
}

const timingOf = (samples: number[]): Timing => ({ median: median(samples), p99: percentile(samples, 0.99) });

/**
 * A path and its floor, sequentially, alternating one sample of each after a warm-up of each, so
 * that a slower or busier moment of the machine weighs on both alike.
 */
export async function interleaved(path: (i: number) => Promise<unknown>, floor: (i: number) => Promise<unknown>, iterations: number, warmup = Math.min(20, iterations)): Promise<{ path: Timing; floor: Timing }> {
  for (let i = 0; i < warmup; i++) {
    await path(i);
    await floor(i);
  }
  const p: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < iterations; i++) {
    for (const [run, samples] of (i % 2 ? [[floor, f], [path, p]] : [[path, p], [floor, f]]) as [(i: number) => Promise<unknown>, number[]][]) {
      const start = process.hrtime.bigint();
      await run(i);
      samples.push(elapsedMs(start));
    }
  }
  return { path: timingOf(p), floor: timingOf(f) };
}

/** CPU time so far (ms) of each process that takes part in a measurement, by name. */
export type CpuProbe = () => Record<string, number>;

export interface Throughput {
  perSecond: number;
  median: number;
  p99: number;
  /** CPU time (ms) per call of each process of the probe. */
  cpuPerCall: Record<string, number>;
}

/** `workers` callers in a loop for `seconds`, each call timed, and the CPU the probe's processes spent per call. */
export async function underLoad(run: (i: number) => Promise<unknown>, workers: number, seconds: number, cpu: CpuProbe = () => ({})): Promise<Throughput> {
  const samples: number[] = [];
  const end = Date.now() + seconds * 1000;
  let n = 0;
  const cpuBefore = cpu();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: workers }, async () => {
    while (Date.now() < end) {
      const start = process.hrtime.bigint();
      await run(n++);
      samples.push(elapsedMs(start));
    }
  }));
  const perSecond = samples.length / (elapsedMs(started) / 1000);
  const cpuPerCall = Object.fromEntries(Object.entries(cpu()).map(([name, ms]) => [name, (ms - (cpuBefore[name] ?? 0)) / samples.length]));
  return { perSecond, ...timingOf(samples), cpuPerCall };
}

/** A path and its floor under the same load, one after the other, twice each in turn (path, floor, floor, path). */
export async function throughputs(path: (i: number) => Promise<unknown>, floor: (i: number) => Promise<unknown>, workers: number, seconds: number, cpu?: CpuProbe): Promise<{ path: Throughput; floor: Throughput }> {
  await underLoad(path, workers, 2);
  await underLoad(floor, workers, 2);
  const a = await underLoad(path, workers, seconds / 2, cpu);
  const b = await underLoad(floor, workers, seconds / 2, cpu);
  const c = await underLoad(floor, workers, seconds / 2, cpu);
  const d = await underLoad(path, workers, seconds / 2, cpu);
  const mean = (x: Throughput, y: Throughput): Throughput => ({
    perSecond: (x.perSecond + y.perSecond) / 2,
    median: (x.median + y.median) / 2,
    p99: Math.max(x.p99, y.p99),
    cpuPerCall: Object.fromEntries(Object.keys(x.cpuPerCall).map((k) => [k, ((x.cpuPerCall[k] ?? 0) + (y.cpuPerCall[k] ?? 0)) / 2])),
  });
  return { path: mean(a, d), floor: mean(b, c) };
}

export const ms = (t: Timing) => `${t.median.toFixed(1)} / ${t.p99.toFixed(1)}`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
export const int = (n: number) => Math.round(n).toLocaleString('en');

/**
 * CPU time so far (ms) of the processes of the machine: of one alone, and of one with all its
 * descendants, those that ended included (a process that ends passes its time to its parent).
 */
function cpuTimes(): { own(pid: number): number; tree(pid: number): number } {
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      // After the command's closing parenthesis: state, ppid, ..., utime, stime, and the ended
      // children's cutime, cstime (the 12th to 15th), in hundredths of a second.
      const f = (readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []).map(Number);
      const own = ((f[11] ?? 0) + (f[12] ?? 0)) * 10;
      return [{ pid: Number(d), ppid: f[1] ?? 0, own, ms: own + ((f[13] ?? 0) + (f[14] ?? 0)) * 10 }];
    } catch {
      return [];
    }
  });
  return {
    own: (pid) => procs.find((p) => p.pid === pid)?.own ?? 0,
    tree: (pid) => {
      const tree = new Set([pid]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) grew = tree.add(p.pid) !== undefined;
      }
      return procs.filter((p) => tree.has(p.pid)).reduce((total, p) => total + p.ms, 0);
    },
  };
}

/** The service's process and the PostgreSQL server it started in dataDir (which runs on its own: pg_ctl starts it apart); Neo4j is a child of the service. */
export interface ServiceProcesses {
  service: number;
  postgres: number;
}

export function serviceProcesses(servicePid: number, dataDir: string): ServiceProcesses {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { service: servicePid, postgres: postmaster };
}

/**
 * The CPU of the process that answers (the service's, or another's on the same stores), of the
 * service's local stores (Neo4j, its child, and PostgreSQL) and of the benchmark's own.
 */
export function serviceCpuProbe({ service, postgres }: ServiceProcesses, answering = service): CpuProbe {
  return () => {
    const cpu = cpuTimes();
    const bench = process.cpuUsage();
    return { service: cpu.own(answering), stores: cpu.tree(service) - cpu.own(service) + cpu.tree(postgres), benchmark: (bench.user + bench.system) / 1000 };
  };
}

/**
 * Waits until the service and its stores have used under 5% of a core for 3 seconds in a row, so
 * that the work of its start (jobs that run after every start) is not measured as the paths' cost.
 */
export async function quietService(processes: ServiceProcesses, timeoutMs = 15 * 60_000): Promise<void> {
  const windowMs = 3000;
  const deadline = Date.now() + timeoutMs;
  const probe = serviceCpuProbe(processes);
  const busyMs = () => {
    const { service = 0, stores = 0 } = probe();
    return service + stores;
  };
  for (let before = busyMs(); Date.now() < deadline; ) {
    await sleep(windowMs);
    const now = busyMs();
    if ((now - before) / windowMs < 0.05) return;
    before = now;
  }
  throw new Error(`the service was not quiet within ${timeoutMs / 60_000} minutes`);
}

/** The 1-minute load average, for the text beside each figure. */
export const loadAverage = () => (os.loadavg()[0] as number).toFixed(1);

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${new Date().toISOString().slice(0, 10)} · ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB · ${os.type()} ${os.release()} · Node ${process.version}`;
}

/** Writes one section of BENCHMARKS.md, keeping the others. */
export function writeSection(section: string, body: string): void {
  const file = fromProjectRoot('BENCHMARKS.md');
  const start = `<!-- bench:${section} -->`;
  const end = `<!-- /bench:${section} -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nWritten by `npm run bench`; each section names the machine and the date of its run.\n';
  text = text.includes(start) ? text.replace(new RegExp(`${start}[\\s\\S]*?${end}`), block) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}

/** Drops a section that a renamed or merged benchmark no longer writes. */
export function dropSection(section: string): void {
  const file = fromProjectRoot('BENCHMARKS.md');
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8').replace(new RegExp(`\\n*<!-- bench:${section} -->[\\s\\S]*?<!-- /bench:${section} -->\\n?`), '\n');
  writeFileSync(file, text);
}

/** A temporary folder for fresh local stores, removed afterwards; or `keep`, used as it is and kept. */
export async function withDataDir<T>(run: (dataDir: string) => Promise<T>, keep?: string): Promise<T> {
  if (keep) return run(keep);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inventory-bench-'));
  chmodSync(dataDir, 0o755);
  try {
    return await run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function benchConfig(dataDir: string, overrides: ConfigOverrides): AppConfig {
  return loadConfig({
    file: false,
    overrides: { dataDir, localPostgresPort: 55600, localNeo4jBoltPort: 57600, localNeo4jHeap: '2g', localNeo4jPageCache: '2g', logLevel: 'warn', ...overrides },
  });
}

// The benchmark's own statements fill estates in bulk: as long as the setting allows.
const BULK_STORE_TIMEOUT_MS = 120_000;

/** The local stores of dataDir, opened without a service. */
export async function withStores<T>(dataDir: string, run: (container: Container) => Promise<T>): Promise<T> {
  const { container, close } = await openStores(benchConfig(dataDir, { roles: 'api', storeTimeoutMs: BULK_STORE_TIMEOUT_MS }), createLogger('warn'));
  try {
    return await run(container);
  } finally {
    await close();
  }
}

export type ApiClient = ReturnType<typeof apiClient>;

/** The whole service (HTTP on a free port, worker, scheduler) on the local stores of dataDir, and a client of its API. */
export async function withService<T>(dataDir: string, overrides: ConfigOverrides, run: (service: RunningService, api: ApiClient, key: string) => Promise<T>): Promise<T> {
  // After stop(), each job run leaves an agenda timer of half the lock lifetime (10 min by default): a short one lets the process end.
  const service = await startService(benchConfig(dataDir, { port: 0, adminPassword: randomBytes(18).toString('base64url'), jobsLockLifetimeMs: 10_000, ...overrides }), createLogger('warn'));
  try {
    const key = (await service.container.tokens.createIntegrationKey(BENCH_ACTOR, `bench ${randomBytes(4).toString('hex')}`)).token;
    return await run(service, apiClient(service.url as string, key), key);
  } finally {
    await service.stop();
  }
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * A GET read in full as bytes, on kept-alive connections: the lightest client Node has, so that
 * on one machine the client takes as little as it can from the service it measures.
 */
export async function lightGet(url: string, headers: Record<string, string>): Promise<number> {
  let bytes = 0;
  await lightRead(url, headers, (chunk) => {
    bytes += chunk.length;
  });
  return bytes;
}

/** A JSON answer read as lightGet reads (node:http on the kept-alive agent), parsed whole. */
export async function lightGetJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const chunks: Buffer[] = [];
  await lightRead(url, headers, (chunk) => chunks.push(chunk));
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

function lightRead(url: string, headers: Record<string, string>, take: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: keepAlive, headers }, (res) => {
      res.on('data', take);
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** What the benchmarks read of a run. */
export interface BenchRunView {
  id: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  errors?: unknown[];
}

/**
 * Scans a target through the API and waits for its run, which must end COMPLETED (or with a status
 * `accept` takes); answers it with its duration (s) as the service recorded it, from claim to
 * finish: queueing is left out.
 */
export async function scanThrough<R extends BenchRunView>(api: ApiClient, targetId: string, deadlineMs: number, accept: (run: R) => boolean = (run) => run.status === 'COMPLETED'): Promise<R & { seconds: number }> {
  const queued = (await api.post<{ data: R }>(`/api/v1/discovery/targets/${targetId}/scan`, undefined, 202)).data;
  for (const end = Date.now() + deadlineMs; Date.now() < end; await sleep(200)) {
    const run = (await api.get<{ data: R }>(`/api/v1/discovery/runs/${queued.id}`)).data;
    if (run.status === 'QUEUED' || run.status === 'RUNNING') continue;
    if (!accept(run)) throw new Error(`run ${run.id} ended ${run.status}: ${JSON.stringify(run.errors)}`);
    return { ...run, seconds: (Date.parse(run.finishedAt as string) - Date.parse(run.startedAt as string)) / 1000 };
  }
  throw new Error(`run ${queued.id} did not finish within ${deadlineMs / 1000} s`);
}

/** The target scanned `runs` times one after another (scanThrough), each run logged as it ends. */
export async function scanRepeatedly<R extends BenchRunView>(api: ApiClient, targetId: string, runs: number, deadlineMs: number, accept?: (run: R) => boolean): Promise<(R & { seconds: number })[]> {
  const out: (R & { seconds: number })[] = [];
  for (let i = 0; i < runs; i++) {
    out.push(await scanThrough<R>(api, targetId, deadlineMs, accept));
    console.log(`run ${i + 1}/${runs}: ${out.at(-1)?.seconds.toFixed(1)} s`);
  }
  return out;
}

/** Requests with an integration key (it holds every role); another status than the expected one throws. */
export function apiClient(base: string, key: string) {
  const call = async <T>(method: string, url: string, expected: number, body?: object): Promise<T> => {
    const res = await fetch(url.startsWith('http') ? url : `${base}${url}`, {
      method,
      // Uncompressed, as lightGet: on loopback gzip is only a cost, paid by the service and by this client on the same cores.
      headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  return {
    base,
    get: <T = { data: unknown }>(url: string) => call<T>('GET', url, 200),
    post: <T = { data: unknown }>(url: string, body?: object, expected = 201) => call<T>('POST', url, expected, body),
  };
}
