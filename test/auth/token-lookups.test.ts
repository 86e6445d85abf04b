// Known tokens are looked up in memory, and only while the service hears PostgreSQL's
// auth_changes: a change made behind the service's back (another process, SQL by hand) is
// honoured as soon as its notification arrives, and a lost listener keeps nothing.
import pg from 'pg';
import { hashToken } from '../../src/features/auth/api-token.js';
import type { TokenLookup } from '../../src/features/auth/api-token-store.js';
import { TokenLookupCache } from '../../src/features/auth/token-lookup-cache.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('token lookups kept in memory', () => {
  let service: TestService;
  let p: Principals;
  let sql: pg.Client;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    sql = new pg.Client({ connectionString: service.database.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await service?.stop();
  });

  const lookups = () => service.running.container.tokenLookups;
  const hashOf = (token: string) => hashToken(token, service.running.container.secrets.tokenPepper);
  const newKey = async (name: string) => {
    const res = await p.adminSession.post('/api/v1/integration-keys', { name });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; token: string };
  };
  const me = (token: string) => p.anonymous.call('GET', '/api/v1/me', undefined, { authorization: `Bearer ${token}` });

  it('serves a known key from memory and refuses it once revoked by SQL outside the service', async () => {
    await eventually(async () => lookups().trusted, (t) => t, 'listening to auth_changes');
    const key = await newKey('kept');
    expect((await me(key.token)).status).toBe(200);
    expect(lookups().get(hashOf(key.token))?.id).toBe(key.id);

    await sql.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [key.id]);
    await eventually(async () => lookups().get(hashOf(key.token)), (l) => l === undefined, 'the revoked key forgotten');
    expect((await me(key.token)).status).toBe(401);
  });

  it('refuses the token of a user disabled by SQL outside the service', async () => {
    const res = await p.apiUserSession.post('/api/v1/me/tokens', { name: 'soon disabled' });
    expect(res.status).toBe(201);
    const token = res.body.data.token as string;
    expect((await me(token)).status).toBe(200);
    expect(lookups().get(hashOf(token))).toBeDefined();

    await sql.query("UPDATE users SET disabled = true WHERE username = 'api-user'");
    await eventually(async () => (await me(token)).status, (s) => s === 401, 'the disabled user refused');
    await sql.query("UPDATE users SET disabled = false WHERE username = 'api-user'");
    await eventually(async () => (await me(token)).status, (s) => s === 200, 'the enabled user accepted again');
  });

  it('keeps nothing while the listener is lost, and trusts again once it listens anew', async () => {
    const key = await newKey('through a lost listener');
    expect((await me(key.token)).status).toBe(200);
    await sql.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen:auth_changes' AND datname = current_database()");
    await eventually(async () => lookups().get(hashOf(key.token)), (l) => l === undefined, 'the lookups dropped with the listener');
    await eventually(async () => lookups().trusted, (t) => t, 'listening again');
    expect((await me(key.token)).status).toBe(200);
    expect(lookups().get(hashOf(key.token))?.id).toBe(key.id);
  });

  it('forgets at once, in the same process, a key revoked through the API', async () => {
    const key = await newKey('revoked here');
    expect((await me(key.token)).status).toBe(200);
    expect((await p.adminSession.delete(`/api/v1/integration-keys/${key.id}`)).status).toBe(200);
    expect((await me(key.token)).status).toBe(401);
  });
});

describe('TokenLookupCache', () => {
  const lookup = { id: 'a', kind: 'INTEGRATION_KEY' } as TokenLookup;

  it('keeps nothing until it is trusted, nor a lookup read before a change', () => {
    const cache = new TokenLookupCache();
    cache.set('h', lookup, cache.readMark);
    expect(cache.get('h')).toBeUndefined();
    cache.trust();
    const mark = cache.readMark;
    cache.clear();
    cache.set('h', lookup, mark);
    expect(cache.get('h')).toBeUndefined();
    cache.set('h', lookup, cache.readMark);
    expect(cache.get('h')).toBe(lookup);
    cache.distrust();
    expect(cache.get('h')).toBeUndefined();
  });
});
