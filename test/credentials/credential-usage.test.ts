// Where a credential is used (GET /credentials/{id}/targets): the discovery targets that name it.
import { randomUUID } from 'node:crypto';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('where a credential is used', () => {
  let service: TestService;
  let p: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
  });
  afterAll(() => service.stop());

  const credential = async (name: string) => (await p.discoveryAdminSession.post('/api/v1/credentials', { name, kind: 'SNMP_V2C', matchPatterns: ['10.9.0.0/24'], settings: {}, secrets: { community: 'c0mmunity-secret' } })).body.data.id as string;
  const target = async (name: string, credentialIds: string[]) => (await p.discoveryAdminSession.post('/api/v1/discovery/targets', { name, addresses: ['127.0.0.1'], methods: ['SNMP'], credentialIds })).body.data.id as string;

  it('lists the targets that name the credential, by name, with their state, and none of another\'s', async () => {
    const used = await credential('used-credential');
    const other = await credential('other-credential');
    const b = await target('b-target', [used]);
    const a = await target('a-target', [other, used]);
    await target('c-target', [other]);
    expect((await p.discoveryAdminSession.put(`/api/v1/discovery/targets/${b}`, { enabled: false })).status).toBe(200);
    const res = await p.discoveryAdminSession.get(`/api/v1/credentials/${used}/targets`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, data: [{ id: a, name: 'a-target', enabled: true }, { id: b, name: 'b-target', enabled: false }] });
    expect(JSON.stringify(res.body)).not.toContain('c0mmunity-secret');
    // A target that stops naming it is no longer listed.
    expect((await p.discoveryAdminSession.put(`/api/v1/discovery/targets/${a}`, { credentialIds: [other] })).status).toBe(200);
    expect((await p.discoveryAdminSession.get(`/api/v1/credentials/${used}/targets`)).body.data.map((t: { name: string }) => t.name)).toEqual(['b-target']);
    expect((await p.discoveryAdminSession.get(`/api/v1/credentials/${used}/targets?size=1&page=1`)).body).toMatchObject({ total: 1, data: [] });
  });

  it('answers 404 for a credential that does not exist, 400 for an id that is none, 403 to a viewer', async () => {
    expect((await p.discoveryAdminSession.get(`/api/v1/credentials/${randomUUID()}/targets`)).status).toBe(404);
    expect((await p.discoveryAdminSession.get('/api/v1/credentials/not-an-id/targets')).status).toBe(400);
    expect((await p.viewer.get(`/api/v1/credentials/${randomUUID()}/targets`)).status).toBe(403);
  });
});
