import net from 'node:net';
import { LEASE_EXPIRED } from '../../src/features/discovery/discovery-jobs.js';
import type { ApiClient } from '../support/api-client.js';
import { runToEnd } from '../support/discovery-scans.js';
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
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 2, total: 2 }, summary: { hostsResponding: 2, assetsCreated: 2, assetsUpdated: 0, errors: 0 }, errors: [] });
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

  it('stops a run whose cancel came after its last progress report, before its load; once loading, a cancel is refused and the run ends as it would have', async () => {
    const t = await target({ name: 'late cancel', addresses: ['127.0.0.8'], methods: ['SWEEP'] });
    const { runs } = service.running.container;
    // Scanned, its last progress reported: the cancel is accepted, and the load does not begin.
    const first = await runs.create(t.id, t.name, 'MANUAL');
    await runs.claim(first?.id as string, 'a-worker', 60_000);
    expect((await api.post(`/api/v1/discovery/runs/${first?.id}/cancel`)).status).toBe(200);
    expect(await runs.beginLoad(first?.id as string)).toBe(false);
    await runs.finish(first?.id as string, 'CANCELLED', undefined);
    // Loading: the cancel is refused, says why, changes nothing and is not audited as one.
    const second = await runs.create(t.id, t.name, 'MANUAL');
    await runs.claim(second?.id as string, 'a-worker', 60_000);
    expect(await runs.beginLoad(second?.id as string)).toBe(true);
    const refused = await api.post(`/api/v1/discovery/runs/${second?.id}/cancel`);
    expect([refused.status, refused.body.detail]).toEqual([409, 'The run has scanned every address and is loading what it found: it can no longer be cancelled.']);
    expect((await api.get(`/api/v1/discovery/runs/${second?.id}`)).body.data).toMatchObject({ status: 'RUNNING' });
    expect(await runs.finish(second?.id as string, 'COMPLETED', { hostsResponding: 0, assetsCreated: 0, assetsUpdated: 0 })).toBe(true);
    const audited = await service.running.container.db('audit_events').where({ action: 'run.cancel' }).whereIn('target_id', [first?.id as string, second?.id as string]).pluck('target_id');
    expect(audited).toEqual([first?.id]);
    // The runs made here by hand are not the file's other tests' to count.
    await service.running.container.db('discovery_runs').whereIn('id', [first?.id as string, second?.id as string]).delete();
  });

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
    expect(failed.body.data.map((r: { status: string }) => r.status).sort()).toEqual(['CANCELLED', 'FAILED']);
    const one = all.body.data[0];
    expect((await api.get(`/api/v1/discovery/runs?targetId=${one.targetId}`)).body.data.every((r: { targetId: string }) => r.targetId === one.targetId)).toBe(true);
  });
});
