// Text that the stores cannot hold (a NUL character, an unpaired surrogate) is refused with a 400
// before anything runs, wherever it comes in: nothing is written, not even an audit row.
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('text that cannot be stored', () => {
  let service: TestService;
  let p: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
  });
  afterAll(() => service.stop());
  const db = () => service.running.container.db;
  const count = async (table: string, where: Record<string, string> = {}) => Number((await db()(table).where(where).count<{ c: string }[]>('* as c'))[0]?.c);

  it.each([['a NUL character', 'MATCH (n) RETURN count(n)\u0000'], ['an unpaired surrogate', 'RETURN "\ud800"']])('refuses a graph query holding %s, and audits nothing', async (_what, query) => {
    const audited = await count('audit_events', { action: 'graph.query' });
    const res = await p.integrationKey.post('/api/v1/graph/query', { query });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([{ path: 'body.query', message: 'unstorable text' }]);
    expect(await count('audit_events', { action: 'graph.query' })).toBe(audited);
  });

  it('refuses such text in a query filter and in a name deep in a body, and creates nothing', async () => {
    const filter = await p.adminSession.get('/api/v1/credentials?q=%00');
    expect(filter.status).toBe(400);
    expect(filter.body.errors[0].path).toBe('query.q');
    const keys = await count('api_tokens');
    const key = await p.adminSession.post('/api/v1/integration-keys', { name: 'bad \udc00 key' });
    expect(key.status).toBe(400);
    expect(key.body.errors[0].path).toBe('body.name');
    expect(await count('api_tokens')).toBe(keys);
    const imported = await p.integrationKey.post('/api/v1/import', { source: 'nul', assets: [{ key: 'a', assetType: 'SERVER', displayName: 'ok', customAttributes: { note: 'x\u0000y' } }] });
    expect(imported.status).toBe(400);
    expect(imported.body.errors[0].path).toBe('body.assets.0.customAttributes.note');
    expect(Number((await service.running.container.driver.executeQuery("MATCH (a:Asset {displayName: 'ok'}) RETURN count(a) AS n")).records[0]?.get('n'))).toBe(0);
  });

  it('takes the address of the proxy when X-Forwarded-For holds no address, for a refused token and an audited write alike', async () => {
    const forwarded = { 'x-forwarded-for': `not-an-address-${'x'.repeat(100)}` };
    const refused = await p.anonymous.call('GET', '/api/v1/assets', undefined, { ...forwarded, authorization: 'Bearer not-a-token' });
    expect(refused.status).toBe(401);
    const created = await p.adminSession.call('POST', '/api/v1/integration-keys', { name: 'forwarded-key' }, forwarded);
    expect(created.status).toBe(201);
    const [event] = await db()('audit_events').where({ action: 'integration-key.create', target_id: created.body.data.id }).select('source_ip');
    expect(event.source_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('answers an unauthenticated caller 401 first, as for any other request', async () => {
    expect((await p.anonymous.post('/api/v1/graph/query', { query: 'RETURN "\u0000"' })).status).toBe(401);
  });
});
