// The scanner operations from the outside, the test standing in for a remote scanner: a target of
// a scanner group is left to the scanners of that group (no central worker takes its chunks); a
// claim gives the chunk with only the credentials its addresses may be offered; reports are kept
// as a worker's progress, an end retried after a lost answer is applied once, and the run then
// completes through the central loader; a report naming another address is a 400 and writes
// nothing; a revoked scanner's next claim is a 401.
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('the scanner operations', () => {
  let service: TestService;
  let p: Principals;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
  });
  afterAll(async () => {
    await service?.stop();
  });

  const newScanner = async (name: string, group: string) => {
    const created = (await p.adminSession.post('/api/v1/scanners', { name, group })).body.data;
    return { id: created.id as string, client: new ApiClient(service.url, { kind: 'bearer', token: created.token }) };
  };
  const swept = (address: string) => ({ address, result: { address, responding: true, openPorts: [22], attempted: [], observations: [], errors: [] } });

  it('gives a group\'s chunk to its scanner only, with its own credentials, and completes the run from its reports', async () => {
    const branch = await newScanner('branch-1', 'branch');
    const other = await newScanner('other-1', 'other');
    const api = p.discoveryAdminSession;
    const listed = (await api.post('/api/v1/credentials', { name: 'branch ssh', kind: 'SSH_PASSWORD', matchPatterns: [], settings: { username: 'scan' }, secrets: { password: 'branch-Secret-1' } })).body.data.id;
    await api.post('/api/v1/credentials', { name: 'elsewhere ssh', kind: 'SSH_PASSWORD', matchPatterns: ['10.99.0.0/24'], settings: { username: 'scan' }, secrets: { password: 'elsewhere-Secret-1' } });
    const target = (await api.post('/api/v1/discovery/targets', { name: 'branch hosts', addresses: ['10.66.0.1-10.66.0.3'], methods: ['SWEEP', 'SSH'], credentialIds: [listed], scannerGroup: 'branch' })).body.data;
    expect(target.scannerGroup).toBe('branch');
    const run = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data;
    expect(run.scannerGroup).toBe('branch');

    expect((await other.client.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 0 })).status).toBe(204);
    const claimed = await eventually(async () => branch.client.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 5 }), (r) => r.status === 200, 'a chunk claimed', 60_000);
    const chunk = claimed.body.data;
    expect(chunk).toMatchObject({ runId: run.id, attempt: 1, entries: ['10.66.0.1-10.66.0.3'], done: [], target: { methods: ['SWEEP', 'SSH'] } });
    // The listed credential, with its secret; not the one whose pattern covers none of the chunk's addresses.
    expect(chunk.credentials).toHaveLength(1);
    expect(chunk.credentials[0].revealed).toEqual([expect.objectContaining({ id: listed, secrets: { password: 'branch-Secret-1' } })]);
    expect(JSON.stringify(chunk)).not.toContain('elsewhere-Secret-1');
    // No central worker takes it.
    expect(await service.running.container.runs.takeChunk(run.id, 'central', 1000)).toBeUndefined();

    const report = (body: object) => branch.client.post(`/api/v1/scanner/chunks/${chunk.id}/reports`, body);
    const stranger = await report({ attempt: 1, results: [swept('10.66.0.9')] });
    expect(stranger.status).toBe(400);
    expect(await service.running.container.db('discovery_run_results').where({ run_id: run.id }).count('* as n').first()).toEqual({ n: '0' });
    expect((await report({ attempt: 1, results: [swept('10.66.0.1')] })).body.data.state).toBe('GO');
    expect((await report({ attempt: 2, results: [] })).body.data.state).toBe('LOST');
    const end = { attempt: 1, results: [swept('10.66.0.1'), swept('10.66.0.2'), swept('10.66.0.3')], end: { credentialsTried: [] } };
    expect((await report(end)).body.data.state).toBe('ENDED');
    expect((await report(end)).body.data.state).toBe('ENDED');

    const done = await eventually(async () => (await api.get(`/api/v1/discovery/runs/${run.id}`)).body.data, (r) => r.status !== 'RUNNING' && r.status !== 'QUEUED', 'the run loaded', 90_000);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { done: 3, total: 3 }, chunks: { total: 1, done: 1 }, summary: { hostsResponding: 3, assetsCreated: 3 } });
    const listedScanner = (await p.adminSession.get('/api/v1/scanners')).body.data.find((s: { id: string }) => s.id === branch.id);
    expect(listedScanner).toMatchObject({ chunksDone: 1, version: '0.1.0', lastContactAt: expect.any(String) });
  }, 180_000);

  it('refuses the next claim of a revoked scanner (401) and a scanner operation to others (403)', async () => {
    const scanner = await newScanner('soon-revoked', 'branch');
    expect((await scanner.client.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 0 })).status).toBe(204);
    expect((await p.adminToken.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 0 })).status).toBe(403);
    expect((await p.adminSession.delete(`/api/v1/scanners/${scanner.id}`)).status).toBe(200);
    expect((await scanner.client.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 0 })).status).toBe(401);
  });
});
