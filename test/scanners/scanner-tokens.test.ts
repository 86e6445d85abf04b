// Remote scanners as administrators manage them: a scanner is created with its token shown once
// (svcs_, kept only as a keyed hash), listed with its group, contact, version and chunks, and
// revoked; its token admits only the scanner operations, and nothing but an ADMINISTRATOR manages them.
import { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('remote scanners and their tokens', () => {
  let service: TestService;
  let p: Principals;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
  });
  afterAll(async () => {
    await service?.stop();
  });

  const db = () => service.running.container.db;

  it('creates a scanner whose token is shown once and stored only as a keyed hash, lists it and audits it', async () => {
    const res = await p.adminSession.post('/api/v1/scanners', { name: 'lyon-1', group: 'lyon' });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({ name: 'lyon-1', group: 'lyon', status: 'ACTIVE', lastContactAt: null, version: null, chunksDone: 0, revokedAt: null });
    expect(created.token).toMatch(/^svcs_[0-9A-Za-z]{38}$/);
    expect(created.hint).toBe(`${created.token.slice(0, 9)}…`);
    const stored = await db()('api_tokens').where({ id: created.id }).first();
    expect(stored.kind).toBe('SCANNER_TOKEN');
    expect(JSON.stringify(stored)).not.toContain(created.token);

    const list = await p.adminToken.get('/api/v1/scanners?size=10');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.id, name: 'lyon-1', group: 'lyon' })]));
    expect(JSON.stringify(list.body)).not.toContain(created.token);
    expect(await db()('audit_events').where({ action: 'scanner.create', target_id: created.id }).count('* as n').first()).toEqual({ n: '1' });
  });

  it('refuses a second scanner of the same name (409) and a bad name or group (400), writing nothing', async () => {
    await p.adminSession.post('/api/v1/scanners', { name: 'twice', group: 'g' });
    const before = await db()('api_tokens').count('* as n').first();
    expect((await p.adminSession.post('/api/v1/scanners', { name: 'twice', group: 'g' })).status).toBe(409);
    for (const body of [{ name: 'x', group: 'has space' }, { name: '', group: 'g' }, { name: 'x' }, { name: 'x', group: 'g', extra: 1 }]) {
      const res = await p.adminSession.post('/api/v1/scanners', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    expect(await db()('api_tokens').count('* as n').first()).toEqual(before);
  });

  it('lets only an ADMINISTRATOR manage scanners', async () => {
    for (const client of [p.discoveryAdminSession, p.viewer, p.apiUserToken]) {
      expect((await client.get('/api/v1/scanners')).status).toBe(403);
      expect((await client.post('/api/v1/scanners', { name: 'nope', group: 'g' })).status).toBe(403);
    }
    expect((await p.anonymous.get('/api/v1/scanners')).status).toBe(401);
  });

  it('admits a scanner token to no other operation (403), and refuses it once revoked (401)', async () => {
    const created = (await p.adminSession.post('/api/v1/scanners', { name: 'revoked-1', group: 'g' })).body.data;
    const scanner = new ApiClient(service.url, { kind: 'bearer', token: created.token });
    expect((await scanner.get('/api/v1/assets')).status).toBe(403);
    expect((await scanner.get('/api/v1/scanners')).status).toBe(403);
    expect((await scanner.get('/api/v1/me')).status).toBe(403);
    // In the header of integration keys, a scanner token is no credential.
    expect((await new ApiClient(service.url, { kind: 'key-header', token: created.token }).get('/api/v1/assets')).status).toBe(401);

    const revoked = await p.adminSession.delete(`/api/v1/scanners/${created.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: created.id, status: 'REVOKED', revokedAt: expect.any(String) });
    expect((await scanner.get('/api/v1/assets')).status).toBe(401);
    expect(await db()('audit_events').where({ action: 'scanner.revoke', target_id: created.id }).count('* as n').first()).toEqual({ n: '1' });
    expect((await p.adminSession.delete('/api/v1/scanners/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});
