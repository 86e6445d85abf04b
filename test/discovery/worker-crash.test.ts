// A worker killed in the middle of a run: the chunks it held go back to the queue once their lease
// has expired (another worker's lease sweeper hands them over), and another worker completes them,
// scanning only the addresses the lost worker had not kept; after a chunk's last attempt it fails
// instead (WORKER_LOST, naming its addresses) and the run ends COMPLETED_WITH_ERRORS with the rest.
// The workers are real service processes (dist/main.js), the first one killed with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import type { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, testNeo4jPassword, testNeo4jUri, type TestService } from '../support/test-stores.js';

const LEASE_MS = 2000;
// 1,022 loopback addresses in chunks of 128 (eight), one address at a time for the first worker:
// long enough to be killed in the middle.
const ADDRESS_COUNT = 1022;
const CHUNK_SIZE = 128;

describe('a discovery worker killed mid-run', () => {
  let service: TestService;
  let api: ApiClient;
  let probed: net.Server;
  /** How often each loopback address was probed: the sweep connects to the test's port once per address it scans. */
  const probes = new Map<string, number>();
  const workers: ChildProcess[] = [];

  /** A worker-only service process on the test's stores, probing `concurrency` addresses at a time. */
  const startWorker = (concurrency: number, env: Record<string, string> = {}): ChildProcess => {
    const child = spawn(process.execPath, [fromProjectRoot('dist', 'main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: service.database.url,
        NEO4J_URI: testNeo4jUri(),
        NEO4J_PASSWORD: testNeo4jPassword(),
        SERVICE_ROLES: 'worker',
        PORT: '0',
        SERVICE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'inventory-worker-')),
        SERVICE_DISCOVERY_LEASE_MS: String(LEASE_MS),
        SERVICE_DISCOVERY_CONCURRENCY: String(concurrency),
        SERVICE_DISCOVERY_CHUNK_SIZE: String(CHUNK_SIZE),
        SERVICE_DISCOVERY_SWEEP_PORTS: String((probed.address() as net.AddressInfo).port),
        SERVICE_JOBS_POLL_INTERVAL_MS: '200',
        SERVICE_JOBS_LOCK_LIFETIME_MS: '2000',
        SERVICE_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: 'ignore',
    });
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    probed = net.createServer((socket) => {
      probes.set(socket.localAddress as string, (probes.get(socket.localAddress as string) ?? 0) + 1);
      socket.destroy();
    });
    await new Promise<void>((resolve) => probed.listen(0, '0.0.0.0', resolve));
    // The API and the scheduler only: the runs go to the worker processes.
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, roles: 'api,scheduler', discoveryLeaseMs: LEASE_MS });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
  });
  // Each test with its own workers: another's lease sweeper would hand its lost chunks over by its own settings.
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => (w.exitCode === null && w.signalCode === null ? new Promise((resolve) => {
      w.once('exit', resolve);
      w.kill('SIGKILL');
    }) : undefined)));
  });
  afterAll(async () => {
    await service?.stop();
    probed?.close();
  });

  const poll = (runId: string, until: (run: any) => boolean, what: string, timeoutMs = 40_000) =>
    eventually<any>(async () => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data, until, `the run ${what}`, timeoutMs);
  const endpoints = async () => (await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT&size=1')).body.total as number;

  /** Scans the block with a worker killed mid-run (after it kept some addresses); answers the run as the kill left it, and the addresses it had kept. */
  async function killedMidRun(block: string): Promise<{ runId: string; kept: string[]; lostWorker: string }> {
    const target = (await api.post('/api/v1/discovery/targets', { name: `loopback ${block}`, addresses: [block], methods: ['SWEEP'] })).body.data;
    const doomed = startWorker(1);
    const run = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data;
    await poll(run.id, (r) => r.status === 'RUNNING' && r.progress.done > 0, 'started');
    doomed.kill('SIGKILL');
    await new Promise((resolve) => doomed.once('exit', resolve));
    const stuck = (await api.get(`/api/v1/discovery/runs/${run.id}`)).body.data;
    expect(stuck).toMatchObject({ status: 'RUNNING', chunks: { total: 8, running: expect.any(Number) } });
    expect(stuck.chunks.running).toBeGreaterThan(0);
    expect(stuck.progress.done).toBeLessThan(ADDRESS_COUNT);
    const kept: string[] = await service.running.container.db('discovery_run_results').where({ run_id: run.id }).pluck('address');
    expect(kept.length).toBe(stuck.progress.done);
    return { runId: run.id, kept, lostWorker: `${os.hostname()}:${doomed.pid}` };
  }

  it('hands the chunks of the killed worker to another, which scans only what was not kept: the run completes with every host once', async () => {
    const before = await endpoints();
    const { runId, kept, lostWorker } = await killedMidRun('127.0.8.0/22');
    // Another worker's lease sweeper (every 15 s) queues the lost chunks again; that worker takes them.
    const survivor = `${os.hostname()}:${startWorker(32).pid}`;
    const done = await poll(runId, (r) => !['QUEUED', 'RUNNING'].includes(r.status), 'finished', 120_000);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: { done: ADDRESS_COUNT, total: ADDRESS_COUNT },
      chunks: { total: 8, done: 8, queued: 0, running: 0, failed: 0, cancelled: 0 },
      summary: { hostsResponding: ADDRESS_COUNT, assetsCreated: ADDRESS_COUNT, errors: 0 },
    });
    expect(await endpoints()).toBe(before + ADDRESS_COUNT);
    // The run's chunk list names who ran each: a chunk taken again (after the lease of the lost worker) was ended by the survivor.
    const chunks: any[] = (await api.get(`/api/v1/discovery/runs/${runId}/chunks`)).body.data;
    expect(chunks.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(chunks.filter((c) => c.attempts >= 2).length).toBeGreaterThan(0);
    for (const c of chunks) {
      expect(c).toMatchObject({ status: 'DONE', done: c.size, ranBy: { kind: 'WORKER', scannerId: null } });
      expect(c.ranBy.name).toEqual(c.attempts >= 2 ? survivor : expect.stringMatching(new RegExp(`^(${lostWorker}|${survivor})$`)));
    }
    // Every address was probed; those the lost worker had kept, once only.
    const block = [...probes.keys()].filter((a) => a.startsWith('127.0.8.') || /^127\.0\.(9|10|11)\./.test(a));
    expect(block).toHaveLength(ADDRESS_COUNT);
    expect(kept.filter((a) => probes.get(a) !== 1)).toEqual([]);
  }, 180_000);

  it('fails a chunk that has used its attempts (WORKER_LOST, naming its addresses), and completes the run with errors and the rest', async () => {
    const before = await endpoints();
    const { runId } = await killedMidRun('127.0.12.0/22');
    startWorker(32, { SERVICE_DISCOVERY_CHUNK_MAX_ATTEMPTS: '1' });
    const done = await poll(runId, (r) => !['QUEUED', 'RUNNING'].includes(r.status), 'finished', 120_000);
    const lost: { first_address: string; last_address: string; size: number; done: number }[] = await service.running.container
      .db('discovery_run_chunks').where({ run_id: runId, status: 'FAILED' }).orderBy('seq').select('first_address', 'last_address', 'size', 'done');
    expect(lost.length).toBeGreaterThan(0);
    const unscanned = lost.reduce((n, c) => n + c.size - c.done, 0);
    expect(done).toMatchObject({
      status: 'COMPLETED_WITH_ERRORS',
      chunks: { total: 8, done: 8 - lost.length, failed: lost.length, queued: 0, running: 0 },
      progress: { done: ADDRESS_COUNT - unscanned, total: ADDRESS_COUNT },
      // What the failed chunks had kept is loaded with the rest.
      summary: { hostsResponding: ADDRESS_COUNT - unscanned, assetsCreated: ADDRESS_COUNT - unscanned, errors: lost.length },
    });
    // One record per failed chunk, in the order the sweeper found them.
    expect(done.errors).toHaveLength(lost.length);
    expect(done.errors).toEqual(expect.arrayContaining(lost.map((c) => ({
      address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST',
      message: `The chunk ${c.first_address} to ${c.last_address} (${c.size} addresses) was lost with its worker (its lease expired) on attempt 1 of 1: ${c.size - c.done} of its addresses were not scanned.`,
    }))));
    expect(await endpoints()).toBe(before + ADDRESS_COUNT - unscanned);
  }, 180_000);
});
