// A store that stops answering (SIGSTOP: its connections stay open, nothing comes back) costs a
// request at most service.store-timeout-ms: every request answers 503 naming the store, and all is
// well again once the store resumes (SIGCONT). The stores here are the test's own, not the suite's.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ANSWER_MARGIN_MS } from '../../src/features/graph-query/graph-query-service.js';
import { createLogger } from '../../src/platform/logger.js';
import { startLocalNeo4j, type LocalNeo4jServer } from '../../src/platform/neo4j/local-neo4j-server.js';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../src/platform/postgres/embedded-postgres-server.js';
import { importEstate } from '../support/estate.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { listenerPid } from '../support/processes.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const STORE_TIMEOUT_MS = 1500;
// Writes get longer (service.store-write-timeout-ms): the estate's first import must pass on a cold Neo4j.
const WRITE_TIMEOUT_MS = 15_000;
// What a loaded machine may add to the bound: the request's own work, not a wait on the store.
const MARGIN_MS = 10_000;

/** A process and all its descendants (PostgreSQL serves each connection from a child of the postmaster). */
function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while the list was read.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i += 1) out.push(...(parents.get(out[i] as number) ?? []));
  return out;
}

function signal(pids: number[], sig: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // A child that ended meanwhile.
    }
  }
}

describe('a stalled store', () => {
  let dir: string;
  let postgres: EmbeddedPostgresServer;
  let neo4jServer: LocalNeo4jServer;
  let neo4jPid: number;
  let postgresPids: () => number[] = () => [];
  let service: TestService;
  let p: Principals;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stalled-store-'));
    // PostgreSQL runs as the user postgres, who must reach its data folder.
    chmodSync(dir, 0o755);
    const logger = createLogger('error');
    const boltPort = await freePort();
    // Side by side, both settled before a failure is reported, so that afterAll stops whichever came up.
    const started = await Promise.allSettled([
      startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), passwordFile: path.join(dir, 'postgres-password'), port: await freePort(), database: 'inventory', logger }).then((s) => {
        postgres = s;
      }),
      startLocalNeo4j({ dataDir: path.join(dir, 'neo4j'), passwordFile: path.join(dir, 'neo4j-password'), boltPort, heap: '256m', pageCache: '32m', procedures: [], logger }).then((s) => {
        neo4jServer = s;
      }),
    ]);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    neo4jPid = listenerPid(boltPort);
    const postmaster = Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    postgresPids = () => processTree(postmaster);
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD, storeTimeoutMs: STORE_TIMEOUT_MS, storeWriteTimeoutMs: WRITE_TIMEOUT_MS, graphQueryTimeoutMs: STORE_TIMEOUT_MS, databaseUrl: postgres.url, neo4jUri: neo4jServer.uri, neo4jPassword: neo4jServer.password,
    });
    p = await createPrincipals(service.url);
    await importEstate(p.integrationKey);
  }, 300_000);

  afterAll(async () => {
    signal([...(neo4jPid ? [neo4jPid] : []), ...postgresPids()], 'SIGCONT');
    await service?.stop();
    await Promise.allSettled([postgres?.stop(), neo4jServer?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** `n` requests at once while `pids` are stopped: each answer and how long it took. */
  async function whileStopped(pids: number[], paths: string[]) {
    signal(pids, 'SIGSTOP');
    try {
      return await Promise.all(paths.map(async (route) => {
        const started = Date.now();
        const res = await p.integrationKey.get(route);
        return { route, status: res.status, detail: res.body?.detail as string, type: res.headers.get('content-type'), ms: Date.now() - started };
      }));
    } finally {
      signal(pids, 'SIGCONT');
    }
  }

  it.each([
    ['Neo4j', () => [neo4jPid], ['/api/v1/assets', '/api/v1/relationships', '/api/v1/assets?q=web', '/api/v1/export/assets.csv']],
    ['PostgreSQL', () => postgresPids(), ['/api/v1/credentials', '/api/v1/audit-events', '/api/v1/discovery/targets', '/api/v1/export/software.csv']],
  ] as [string, () => number[], string[]][])('with %s stopped, every request answers 503 naming it within the store time-out, and all recovers after', async (store, pids, routes) => {
    const answers = await whileStopped(pids(), [...routes, ...routes]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, detail: expect.stringContaining(store), type: expect.stringMatching(/^application\/problem\+json/) });
      expect(answer.ms).toBeLessThan(STORE_TIMEOUT_MS + MARGIN_MS);
    }
    for (const route of routes) await eventually(() => p.integrationKey.get(route).then((r) => r.status), (s) => s === 200, `${route} after ${store} resumed`, 60_000);
    expect((await p.integrationKey.get('/health')).status).toBe(200);
  }, 180_000);

  it.each([
    ['Neo4j', () => [neo4jPid], WRITE_TIMEOUT_MS, '/api/v1/import', { source: 'stalled-write', assets: [{ key: 'w1', assetType: 'SERVER', hostname: 'stalled-write-1' }] }],
    ['PostgreSQL', () => postgresPids(), STORE_TIMEOUT_MS, '/api/v1/discovery/targets', { name: 'stalled-write', addresses: ['192.0.2.10'] }],
  ] as [string, () => number[], number, string, object][])('with %s stopped, a write answers 503 naming it within its time-out, and the same write succeeds after', async (store, pids, timeoutMs, route, body) => {
    signal(pids(), 'SIGSTOP');
    let answer: { status: number; detail: string; ms: number };
    try {
      const started = Date.now();
      const res = await p.integrationKey.post(route, body);
      answer = { status: res.status, detail: res.body?.detail as string, ms: Date.now() - started };
    } finally {
      signal(pids(), 'SIGCONT');
    }
    expect(answer).toMatchObject({ status: 503, detail: expect.stringContaining(store) });
    expect(answer.ms).toBeLessThan(timeoutMs + MARGIN_MS);
    await eventually(() => p.integrationKey.post(route, body).then((r) => r.status), (s) => s === 200 || s === 201, `${route} after ${store} resumed`, 60_000);
  }, 180_000);

  it.each([
    ['Neo4j', () => [neo4jPid]],
    ['PostgreSQL', () => postgresPids()],
  ] as [string, () => number[]][])('with %s stopped, an analyst query answers 503 naming it within the query time-out and its margin, and runs again after', async (store, pids) => {
    const body = { query: 'MATCH (a:Asset) RETURN count(a) AS n' };
    signal(pids(), 'SIGSTOP');
    let answers: { status: number; detail: string; ms: number }[];
    try {
      // Two: the most one caller may have at once (service.graph-query.per-principal).
      answers = await Promise.all([1, 2].map(async () => {
        const started = Date.now();
        const res = await p.integrationKey.post('/api/v1/graph/query', body);
        return { status: res.status, detail: res.body?.detail as string, ms: Date.now() - started };
      }));
    } finally {
      signal(pids(), 'SIGCONT');
    }
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, detail: expect.stringContaining(store) });
      expect(answer.ms).toBeLessThan(STORE_TIMEOUT_MS + ANSWER_MARGIN_MS + MARGIN_MS);
    }
    await eventually(() => p.integrationKey.post('/api/v1/graph/query', body).then((r) => r.status), (s) => s === 200, `the query after ${store} resumed`, 60_000);
  }, 180_000);
});
