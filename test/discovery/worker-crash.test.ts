// A worker killed in the middle of a run: the run must not stay RUNNING once its lease has expired
// (another worker's lease sweeper fails it, WORKER_LOST), and the next run must converge to the
// same assets, no twins and nothing lost. The workers are real service processes (dist/main.js).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import type { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, testNeo4jPassword, testNeo4jUri, type TestService } from '../support/test-stores.js';

const LEASE_MS = 2000;
// 1,022 loopback addresses, one at a time for the first worker: long enough to be killed in the middle.
const ADDRESSES = '127.0.8.0/22';
const ADDRESS_COUNT = 1022;

describe('a discovery worker killed mid-run', () => {
  let service: TestService;
  let api: ApiClient;
  const workers: ChildProcess[] = [];

  /** A worker-only service process on the test's stores, probing `concurrency` addresses at a time. */
  const startWorker = (concurrency: number): ChildProcess => {
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
        SERVICE_DISCOVERY_SWEEP_PORTS: '9,13',
        SERVICE_JOBS_POLL_INTERVAL_MS: '200',
        SERVICE_JOBS_LOCK_LIFETIME_MS: '2000',
        SERVICE_LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    // The API and the scheduler only: the runs go to the worker processes.
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, roles: 'api,scheduler', discoveryLeaseMs: LEASE_MS });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await service?.stop();
  });

  const poll = (runId: string, until: (run: { status: string; progress: { done: number } }) => boolean, what: string, timeoutMs = 40_000) =>
    eventually<any>(async () => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data, until, `the run ${what}`, timeoutMs);

  it('fails the run after its lease with WORKER_LOST, and the next run loses nothing', async () => {
    const target = (await api.post('/api/v1/discovery/targets', { name: 'loopback block', addresses: [ADDRESSES], methods: ['SWEEP'] })).body.data;
    const doomed = startWorker(1);
    const first = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data;
    await poll(first.id, (r) => r.status === 'RUNNING' && r.progress.done > 0, 'started');
    doomed.kill('SIGKILL');
    await new Promise((resolve) => doomed.once('exit', resolve));
    const stuck = (await api.get(`/api/v1/discovery/runs/${first.id}`)).body.data;
    expect(stuck).toMatchObject({ status: 'RUNNING' });
    expect(stuck.progress.done).toBeLessThan(ADDRESS_COUNT);

    // Another worker's lease sweeper (every 15 s) fails it; nothing of the killed run was loaded.
    startWorker(32);
    const failed = await poll(first.id, (r) => r.status !== 'RUNNING', 'failed', 60_000);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('lease expired'), summary: { errors: 1 } });
    expect(failed.errors).toEqual([{ address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST', message: failed.failureReason }]);
    expect((await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT&size=1')).body.total).toBe(0);

    const second = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data;
    const done = await poll(second.id, (r) => !['QUEUED', 'RUNNING'].includes(r.status), 'finished', 120_000);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { done: ADDRESS_COUNT, total: ADDRESS_COUNT }, summary: { hostsResponding: ADDRESS_COUNT, assetsCreated: ADDRESS_COUNT } });
    expect((await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT&size=1')).body.total).toBe(ADDRESS_COUNT);
  }, 180_000);
});
