import net from 'node:net';
import { LEASE_EXPIRED } from '../../src/features/discovery/discovery-jobs.js';
import type { ApiClient } from '../support/api-client.js';
import { runToEnd } from '../support/discovery-scans.js';
import { eventually } from '../support/eventually.js';
import { parsePrometheus } from '../support/prometheus.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, testNeo4jUri, type TestService } from '../support/test-stores.js';

async function listen(host: string): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
}
const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;

describe('discovery runs with the SWEEP method', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let web: net.Server;
  const neo4jPort = Number(new URL(testNeo4jUri()).port);

  beforeAll(async () => {
    web = await listen('127.0.0.2');
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD,
      discoverySweepPorts: `${portOf(web)},${neo4jPort}`,
      discoveryConnectTimeoutMs: 500,
      discoveryConcurrency: 4,
      // Small chunks, so that a few loopback addresses make a run of several.
      discoveryChunkSize: 2,
    });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
  });
  afterAll(async () => {
    await service.stop();
    web.close();
  });

  const target = async (body: object) => (await api.post('/api/v1/discovery/targets', body)).body.data;
  const finished = (runId: string) => runToEnd(api, runId);

  it('queues a run (202), sweeps every address, creates unknown endpoints with their open ports and scan outcome', async () => {
    const t = await target({ name: 'loopback', addresses: ['127.0.0.2-3'], methods: ['SWEEP'] });
    const queued = await api.post(`/api/v1/discovery/targets/${t.id}/scan`);
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({ targetId: t.id, targetName: 'loopback', trigger: 'MANUAL', status: 'QUEUED' });
    const run = await finished(queued.body.data.id);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 2, total: 2 }, chunks: { total: 1, done: 1, queued: 0, running: 0, failed: 0, cancelled: 0 }, summary: { hostsResponding: 2, assetsCreated: 2, assetsUpdated: 0, errors: 0 }, errors: [] });
    expect(run.startedAt).toEqual(expect.any(String));
    const endpoints = (await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT')).body.data;
    const byIp = Object.fromEntries(endpoints.map((e: { ipAddresses: string[] }) => [e.ipAddresses[0], e]));
    expect(JSON.parse(byIp['127.0.0.2'].customAttributes)).toEqual({ openPorts: String(portOf(web)) });
    expect(JSON.parse(byIp['127.0.0.3'].customAttributes)).toEqual({ openPorts: '' });
    expect(byIp['127.0.0.2']).toMatchObject({ lastScanOutcome: 'SUCCESS', consecutiveScanFailures: 0, lastScanAt: expect.any(String), sources: ['discovery'] });
  });

  it('finds the same hosts again without a twin, and leaves a known asset its type and name', async () => {
    const imported = await p.integrationKey.post('/api/v1/import', { source: 'cmdb', assets: [{ key: 'srv', assetType: 'PHYSICAL_HOST', displayName: 'known-server', serialNumber: 'KNOWN-0001' }] });
    // Identity ignores loopback addresses (every host has them); record this one as a connector
    // that saw the server there would, so that the sweep can know it.
    await service.running.container.db('asset_identifiers').insert({ rule: 'IP_ADDRESS', value: '127.0.0.4', asset_id: imported.body.data.assets[0].id, asset_category: 'HOST' });
    const t = await target({ name: 'again', addresses: ['127.0.0.2', '127.0.0.4'], methods: ['SWEEP'] });
    const run = await finished((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).body.data.id);
    expect(run.summary).toMatchObject({ hostsResponding: 2, assetsCreated: 0, assetsUpdated: 2 });
    expect((await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT')).body.total).toBe(2);
    const known = (await api.get('/api/v1/assets?q=known-server')).body.data[0];
    expect(known).toMatchObject({ assetType: 'PHYSICAL_HOST', displayName: 'known-server', lastScanOutcome: 'SUCCESS', sources: ['cmdb', 'discovery'] });
  });

  it('never probes the endpoints of its own stores', async () => {
    const t = await target({ name: 'self', addresses: ['127.0.0.1'], methods: ['SWEEP'] });
    await finished((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).body.data.id);
    const self = (await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT&size=100')).body.data.find((e: { ipAddresses: string[] }) => e.ipAddresses[0] === '127.0.0.1');
    expect(JSON.parse(self.customAttributes).openPorts.split(',')).not.toContain(String(neo4jPort));
  });

  it('records an error for a name that does not resolve, and once per method that has no credential at all', async () => {
    const t = await target({ name: 'errors', addresses: ['no-such-host.invalid'] });
    const run = await finished((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).body.data.id);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(run.errors).toEqual(expect.arrayContaining([
      { address: 'no-such-host.invalid', method: 'SWEEP', stage: 'resolve', code: 'DNS_FAILURE', message: expect.any(String) },
      { address: null, method: 'SSH', stage: 'authenticate', code: 'NO_CREDENTIALS', message: expect.stringContaining('SSH was not tried') },
      { address: null, method: 'SNMP', stage: 'authenticate', code: 'NO_CREDENTIALS', message: expect.stringContaining('SNMP was not tried') },
    ]));
    expect(run.summary.errors).toBe(3);
  });

  it('keeps one queued or running run per target, refuses a disabled target, and cancels a queued run', async () => {
    const t = await target({ name: 'single', addresses: ['127.0.0.5'], methods: ['SWEEP'] });
    const { runs } = service.running.container;
    const queued = await runs.create(t.id, t.name, 'MANUAL');
    expect((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).status).toBe(409);
    const cancelled = await api.post(`/api/v1/discovery/runs/${queued?.id}/cancel`);
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', finishedAt: expect.any(String) });
    expect((await api.post(`/api/v1/discovery/runs/${queued?.id}/cancel`)).status).toBe(409);
    await api.put(`/api/v1/discovery/targets/${t.id}`, { enabled: false });
    expect((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).status).toBe(409);
  });

  it('takes a run in chunks that any worker may take, its progress their sum, and shows them in the run and the list', async () => {
    const t = await target({ name: 'chunked', addresses: ['127.0.0.10-14'], methods: ['SWEEP'] });
    const run = await finished((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).body.data.id);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 5, total: 5 }, chunks: { total: 3, done: 3, queued: 0, running: 0, failed: 0, cancelled: 0 }, summary: { hostsResponding: 5, assetsCreated: 5 } });
    const listed = (await api.get(`/api/v1/discovery/runs?targetId=${t.id}`)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: run.id, progress: { done: 5, total: 5 }, chunks: run.chunks })]);
    const { db } = service.running.container;
    expect(await db('discovery_run_chunks').where({ run_id: run.id }).orderBy('seq').select('entries', 'first_address', 'last_address', 'size', 'done', 'attempts')).toEqual([
      { entries: ['127.0.0.10-127.0.0.11'], first_address: '127.0.0.10', last_address: '127.0.0.11', size: 2, done: 2, attempts: 1 },
      { entries: ['127.0.0.12-127.0.0.13'], first_address: '127.0.0.12', last_address: '127.0.0.13', size: 2, done: 2, attempts: 1 },
      { entries: ['127.0.0.14-127.0.0.14'], first_address: '127.0.0.14', last_address: '127.0.0.14', size: 1, done: 1, attempts: 1 },
    ]);
    // What the chunks kept is gone once loaded.
    expect(await db('discovery_run_results').where({ run_id: run.id }).count('* as c')).toEqual([{ c: '0' }]);
  });

  it('stops a run whose cancel came before its load (dropping its queued chunks, stopping its running ones); once loading, a cancel is refused and the run ends as it would have', async () => {
    const t = await target({ name: 'late cancel', addresses: ['127.0.0.8-9', '127.0.0.15'], methods: ['SWEEP'] });
    const { runs, db } = service.running.container;
    const made = async () => {
      const run = await runs.create(t.id, t.name, 'MANUAL');
      await runs.claim(run?.id as string, 'a-worker', 60_000);
      expect(await runs.plan(run?.id as string, [{ entries: ['127.0.0.8-127.0.0.9'], size: 2, first: '127.0.0.8', last: '127.0.0.9' }, { entries: ['127.0.0.15'], size: 1, first: '127.0.0.15', last: '127.0.0.15' }])).toBe(2);
      return run?.id as string;
    };
    // A chunk running, one queued: the cancel drops the queued one, the running one stops at its next report and ends the run.
    const first = await made();
    const running = await runs.takeChunk(first, 'a-worker', 60_000);
    expect((await api.post(`/api/v1/discovery/runs/${first}/cancel`)).body.data).toMatchObject({ status: 'RUNNING', chunks: { running: 1, cancelled: 1 } });
    expect(await runs.takeChunk(first, 'another-worker', 60_000)).toBeUndefined();
    expect(await runs.saveProgress(running!, 'a-worker', [], 60_000)).toBe('STOP');
    expect(await runs.endChunk(running!, 'a-worker', 'CANCELLED')).toBe(true);
    expect(await runs.conclude(first, 'a-worker', 60_000)).toBe('CANCELLED');
    expect((await api.get(`/api/v1/discovery/runs/${first}`)).body.data).toMatchObject({ status: 'CANCELLED', chunks: { total: 2, cancelled: 2 } });
    // Every chunk done, the load not begun: the cancel ends the run at once, and nothing loads.
    const second = await made();
    for (const worker of ['a-worker', 'another-worker']) await runs.endChunk((await runs.takeChunk(second, worker, 60_000))!, worker, 'DONE');
    expect((await api.post(`/api/v1/discovery/runs/${second}/cancel`)).body.data).toMatchObject({ status: 'CANCELLED', chunks: { done: 2 } });
    expect(await runs.conclude(second, 'a-worker', 60_000)).toBeUndefined();
    // Loading: the cancel is refused, says why, changes nothing and is not audited as one.
    const third = await made();
    for (const worker of ['a-worker', 'another-worker']) await runs.endChunk((await runs.takeChunk(third, worker, 60_000))!, worker, 'DONE');
    expect(await runs.conclude(third, 'a-worker', 60_000)).toBe('LOAD');
    expect(await runs.conclude(third, 'another-worker', 60_000)).toBeUndefined();
    const refused = await api.post(`/api/v1/discovery/runs/${third}/cancel`);
    expect([refused.status, refused.body.detail]).toEqual([409, 'The run has scanned every address and is loading what it found: it can no longer be cancelled.']);
    expect((await api.get(`/api/v1/discovery/runs/${third}`)).body.data).toMatchObject({ status: 'RUNNING' });
    expect(await runs.finish(third, 'COMPLETED', { hostsResponding: 0, assetsCreated: 0, assetsUpdated: 0 })).toBe(true);
    const audited = await db('audit_events').where({ action: 'run.cancel' }).whereIn('target_id', [first, second, third]).pluck('target_id');
    expect(audited.sort()).toEqual([first, second].sort());
    // The runs made here by hand are not the file's other tests' to count.
    await db('discovery_runs').whereIn('id', [first, second, third]).delete();
  });

  it('hands a chunk whose worker stopped renewing its lease to another, and after its last attempt fails it: the run ends COMPLETED_WITH_ERRORS naming it', async () => {
    const t = await target({ name: 'lost chunks', addresses: ['127.0.0.20-23'], methods: ['SWEEP'] });
    const { runs, discoveryRunner } = service.running.container;
    const run = (await runs.create(t.id, t.name, 'MANUAL'))?.id as string;
    await runs.claim(run, 'a-worker', 60_000);
    await runs.plan(run, [{ entries: ['127.0.0.20-127.0.0.21'], size: 2, first: '127.0.0.20', last: '127.0.0.21' }, { entries: ['127.0.0.22-127.0.0.23'], size: 2, first: '127.0.0.22', last: '127.0.0.23' }]);
    await runs.release(run, 'a-worker');
    const lease = async (worker: string) => {
      const chunk = await runs.takeChunk(run, worker, 1);
      await new Promise((r) => setTimeout(r, 20));
      return chunk;
    };
    expect((await lease('a-worker-that-died'))?.seq).toBe(0);
    expect(await runs.expireChunks(2)).toEqual({ requeued: [run], ended: [] });
    // The same chunk again (its second attempt), lost again: its attempts used, it fails.
    expect(await lease('another-worker-that-died')).toMatchObject({ seq: 0, attempts: 2 });
    expect(await runs.expireChunks(2)).toEqual({ requeued: [], ended: [run] });
    // A live worker takes the other chunk and ends the run.
    await discoveryRunner.runChunk(run, 'a-live-worker');
    const ended = await finished(run);
    expect(ended).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', progress: { done: 2, total: 4 }, chunks: { total: 2, done: 1, failed: 1 }, summary: { hostsResponding: 2, errors: 1 } });
    expect(ended.errors).toEqual([{ address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST', message: 'The chunk 127.0.0.20 to 127.0.0.21 (2 addresses) was lost with its worker (its lease expired) on attempt 2 of 2: 2 of its addresses were not scanned.' }]);
  });

  it('accepts a /16 target by default, planned as 256 chunks without a scan of its own, and refuses a larger one with nothing written', async () => {
    const before = (await api.get('/api/v1/discovery/targets')).body.total;
    const refused = await api.post('/api/v1/discovery/targets', { name: 'too wide', addresses: ['127.2.0.0/15'], methods: ['SWEEP'] });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.errors).toEqual([{ path: 'body.addresses', message: expect.stringContaining('covers 131070 addresses; the limit is 65536') }]);
    expect((await api.get('/api/v1/discovery/targets')).body.total).toBe(before);

    const wide = await api.post('/api/v1/discovery/targets', { name: 'a /16', addresses: ['127.1.0.0/16'], methods: ['SWEEP'] });
    expect(wide.status).toBe(201);
    expect(wide.body.data.addressCount).toBe(65_534);
    const queued = (await api.post(`/api/v1/discovery/targets/${wide.body.data.id}/scan`)).body.data;
    // In chunks of 2 here: 32,767 of them. Once planned, the run is cancelled: nothing of it loads.
    const planned = await eventually(async () => (await api.get(`/api/v1/discovery/runs/${queued.id}`)).body.data, (r) => r.chunks.total > 0, 'the /16 planned', 120_000);
    expect(planned).toMatchObject({ status: 'RUNNING', progress: { total: 65_534 }, chunks: { total: 32_767 } });
    expect((await api.post(`/api/v1/discovery/runs/${queued.id}/cancel`)).status).toBe(200);
    const cancelled = await finished(queued.id);
    expect(cancelled).toMatchObject({ status: 'CANCELLED', chunks: { total: 32_767, queued: 0, running: 0 } });
    expect((await api.get('/api/v1/assets?q=127.1.&type=UNKNOWN_ENDPOINT')).body.total).toBe(0);
    // Its other chunk jobs find nothing left to take; they end before the file's service stops.
    const chunkJobsLeft = () => service.running.container.db('agenda_jobs').where({ name: 'discovery-run-chunk' }).where((q) => q.whereNotNull('locked_at').orWhere('next_run_at', '<=', new Date())).count('* as c');
    await eventually(chunkJobsLeft, ([row]) => Number(row?.c) === 0, 'the chunk jobs ended', 120_000);
  }, 300_000);

  it('counts every error record of a run in /metrics, by method and code', async () => {
    const count = async (method: string, code: string) =>
      parsePrometheus((await p.adminToken.get('/metrics')).text).find((s) => s.name === 'discovery_run_errors_total' && s.labels.method === method && s.labels.code === code)?.value ?? 0;
    const before = await count('SWEEP', 'DNS_FAILURE');
    const t = await target({ name: 'counted', addresses: ['no-such-host.invalid', 'neither-such-host.invalid'], methods: ['SWEEP'] });
    const run = await finished((await api.post(`/api/v1/discovery/targets/${t.id}/scan`)).body.data.id);
    expect(run.errors.filter((e: { code: string }) => e.code === 'DNS_FAILURE')).toHaveLength(2);
    expect(await count('SWEEP', 'DNS_FAILURE')).toBe(before + 2);
  });

  it('fails a run whose worker stopped renewing its lease, with the reason', async () => {
    const t = await target({ name: 'crashed', addresses: ['127.0.0.6'], methods: ['SWEEP'] });
    const { runs, db } = service.running.container;
    const run = await runs.create(t.id, t.name, 'MANUAL');
    await runs.claim(run?.id as string, 'a-worker-that-died', 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await runs.failExpired(LEASE_EXPIRED)).toEqual([run?.id]);
    expect((await api.get(`/api/v1/discovery/runs/${run?.id}`)).body.data).toMatchObject({
      status: 'FAILED',
      failureReason: LEASE_EXPIRED,
      summary: { errors: 1 },
      errors: [{ address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST', message: LEASE_EXPIRED }],
    });
    expect(await runs.failExpired(LEASE_EXPIRED)).toEqual([]);
    expect(await db('agenda_jobs').where({ name: 'discovery-lease-sweep' }).whereNotNull('repeat_interval').count('* as c')).toEqual([{ c: '1' }]);
  });

  it('starts one SCHEDULED run per fire time of a target\'s cron, whichever scheduler sees it', async () => {
    const t = await target({ name: 'scheduled', addresses: ['127.0.0.7'], methods: ['SWEEP'], schedule: '0 */5 * * * *' });
    const { discovery } = service.running.container;
    const later = new Date(Date.now() + 6 * 60_000);
    expect(await discovery.startDueScans(later)).toBe(1);
    // The same fire time again (another scheduler process, or the next tick) starts nothing.
    expect(await discovery.startDueScans(later)).toBe(0);
    const runs = (await api.get(`/api/v1/discovery/runs?targetId=${t.id}`)).body.data;
    expect(runs).toHaveLength(1);
    expect(runs[0].trigger).toBe('SCHEDULED');
    expect((await finished(runs[0].id)).status).toBe('COMPLETED');
    const jobs = await service.running.container.db('agenda_jobs').whereIn('name', ['discovery-schedule', 'discovery-lease-sweep']).whereNotNull('repeat_interval').pluck('name');
    expect(jobs.sort()).toEqual(['discovery-lease-sweep', 'discovery-schedule']);
  });

  it('lists runs newest first, filtered by target and status, with links', async () => {
    const all = await api.get('/api/v1/discovery/runs?size=2');
    expect(all.body.total).toBeGreaterThanOrEqual(6);
    expect(Object.keys(all.body.links)).toEqual(expect.arrayContaining(['first', 'next', 'last']));
    const queuedAt = all.body.data.map((r: { queuedAt: string }) => r.queuedAt);
    expect([...queuedAt].sort().reverse()).toEqual(queuedAt);
    const failed = await p.viewer.get('/api/v1/discovery/runs?status=FAILED,CANCELLED');
    expect([...new Set(failed.body.data.map((r: { status: string }) => r.status))].sort()).toEqual(['CANCELLED', 'FAILED']);
    const one = all.body.data[0];
    expect((await api.get(`/api/v1/discovery/runs?targetId=${one.targetId}`)).body.data.every((r: { targetId: string }) => r.targetId === one.targetId)).toBe(true);
  });
});
