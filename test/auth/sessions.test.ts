import { ApiClient, cookieOf, signIn } from '../support/api-client.js';
import { request } from '../support/http.js';
import { ADMIN_PASSWORD, createUser, USER_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('browser sessions', () => {
  let service: TestService;
  let admin: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, loginMaxFailures: 3 });
    admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    await createUser(admin, 'alice', ['VIEWER', 'API_USER']);
    await createUser(admin, 'bob', ['VIEWER']);
  });
  afterAll(() => service.stop());

  const login = (username: string, password: string, headers: Record<string, string> = {}) =>
    request(`${service.url}/api/v1/auth/login`, { method: 'POST', json: { username, password }, headers });

  it('sets an HttpOnly, SameSite=Lax cookie, Secure only when the request came over TLS', async () => {
    const plain = await login('alice', USER_PASSWORD);
    expect(plain.status).toBe(200);
    const cookie = plain.headers.get('set-cookie') as string;
    expect(cookie).toMatch(/^inventory_session=/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/i);
    // Behind a TLS-terminating proxy on loopback (trusted by default).
    const tls = await login('alice', USER_PASSWORD, { 'x-forwarded-proto': 'https' });
    expect(tls.headers.get('set-cookie')).toMatch(/; Secure/i);
    expect(plain.body.data).toMatchObject({ user: { username: 'alice', roles: ['API_USER', 'VIEWER'] }, csrfToken: expect.any(String) });
    expect(JSON.stringify(plain.body)).not.toMatch(/password|hash/i);
  });

  it('gives a new session id at sign-in, and the old one stops working', async () => {
    const first = await signIn(service.url, 'alice', USER_PASSWORD);
    const firstCookie = (first.credential as { cookie: string }).cookie;
    const again = await login('alice', USER_PASSWORD, { cookie: firstCookie });
    const secondCookie = cookieOf(again.headers.get('set-cookie'));
    expect(secondCookie).not.toEqual(firstCookie);
    expect((await first.get('/api/v1/me')).status).toBe(401);
    expect((await request(`${service.url}/api/v1/me`, { headers: { cookie: secondCookie } })).status).toBe(200);
  });

  it('refuses an unsafe method without the CSRF token of the session, and takes it with the token', async () => {
    const alice = await signIn(service.url, 'alice', USER_PASSWORD);
    expect((await alice.withoutCsrf().post('/api/v1/me/tokens', { name: 'no csrf' })).status).toBe(403);
    const wrong = await alice.call('POST', '/api/v1/me/tokens', { name: 'wrong csrf' }, { 'x-csrf-token': 'not-the-token' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.detail).toMatch(/CSRF/);
    expect((await alice.withoutCsrf().get('/api/v1/me/tokens')).status).toBe(200);
    const created = await alice.post('/api/v1/me/tokens', { name: 'with csrf' });
    expect(created.status).toBe(201);
    // Token callers need no CSRF token, and get no cookie.
    const byToken = new ApiClient(service.url, { kind: 'bearer', token: created.body.data.token });
    const res = await byToken.post('/api/v1/me/tokens', { name: 'by token' });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('ends the session at sign-out: the same cookie is 401 afterwards', async () => {
    const bob = await signIn(service.url, 'bob', USER_PASSWORD);
    expect((await bob.get('/api/v1/me')).status).toBe(200);
    const out = await bob.post('/api/v1/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/inventory_session=;/);
    const replay = await bob.get('/api/v1/me');
    expect(replay.status).toBe(401);
    expect(replay.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers every failed sign-in alike, and pauses sign-in for a user after repeated failures', async () => {
    const unknown = await login('nobody-here', 'whatever-password');
    const wrong = await login('bob', 'wrong-password-1');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
    await login('bob', 'wrong-password-2');
    await login('bob', 'wrong-password-3');
    const paused = await login('bob', USER_PASSWORD);
    expect(paused.status).toBe(429);
    expect(Number(paused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user from the same address is not paused by bob's failures.
    expect((await login('alice', USER_PASSWORD)).status).toBe(200);
    const audit = await admin.get('/api/v1/audit-events?action=auth.failure&size=100');
    const reasons = audit.body.data.map((e: { details: { reason: string } }) => e.details.reason);
    expect(reasons).toEqual(expect.arrayContaining(['unknown-user', 'wrong-password']));
    expect(JSON.stringify(audit.body)).not.toContain('wrong-password-1');
  });

  it('pauses sign-in from an address that fails for many user names (four times the per-user limit)', async () => {
    // The per-user limit is 3 here: 12 failures spread over user names that never reach it.
    await service.running.container.db('login_throttle').delete();
    for (let i = 0; i < 12; i++) expect((await login(`spray-${i % 6}`, 'guess')).status).toBe(401);
    const paused = await login('alice', USER_PASSWORD);
    expect(paused.status).toBe(429);
    expect(paused.body.detail).toMatch(/Too many failed sign-in attempts/);
    await service.running.container.db('login_throttle').where('key', 'like', 'ip:%').delete();
    expect((await login('alice', USER_PASSWORD)).status).toBe(200);
  });

  it('stops the sessions and tokens of a disabled user at once, and restores them when enabled again', async () => {
    const carolId = await createUser(admin, 'carol', ['API_USER']);
    const carol = await signIn(service.url, 'carol', USER_PASSWORD);
    const token = new ApiClient(service.url, { kind: 'bearer', token: (await carol.post('/api/v1/me/tokens', { name: 't' })).body.data.token });
    expect((await token.get('/api/v1/me')).status).toBe(200);
    expect((await admin.put(`/api/v1/users/${carolId}`, { disabled: true })).status).toBe(200);
    expect((await carol.get('/api/v1/me')).status).toBe(401);
    expect((await token.get('/api/v1/me')).status).toBe(401);
    expect((await login('carol', USER_PASSWORD)).status).toBe(401);
    expect((await admin.put(`/api/v1/users/${carolId}`, { disabled: false })).status).toBe(200);
    expect((await token.get('/api/v1/me')).status).toBe(200);
  });

  it('gives a token its user\'s roles as they are at each request', async () => {
    const daveId = await createUser(admin, 'dave', ['API_USER', 'DISCOVERY_ADMIN']);
    const dave = await signIn(service.url, 'dave', USER_PASSWORD);
    const token = new ApiClient(service.url, { kind: 'bearer', token: (await dave.post('/api/v1/me/tokens', { name: 't' })).body.data.token });
    expect((await token.get('/api/v1/credentials')).status).toBe(200);
    await admin.put(`/api/v1/users/${daveId}`, { roles: ['API_USER'] });
    expect((await token.get('/api/v1/credentials')).status).toBe(403);
  });

  it('ends a session after its idle time-out and after its absolute time-out', async () => {
    const idle = await signIn(service.url, 'alice', USER_PASSWORD);
    const absolute = await signIn(service.url, 'alice', USER_PASSWORD);
    const sid = (client: ApiClient) => decodeURIComponent((client.credential as { cookie: string }).cookie.split('=')[1] as string).slice(2).split('.')[0];
    const db = service.running.container.db;
    await db('http_sessions').where({ sid: sid(idle) }).update({ expire: new Date(Date.now() - 1000) });
    await db.raw(`UPDATE http_sessions SET sess = jsonb_set(sess::jsonb, '{auth,authenticatedAt}', to_jsonb(?::bigint))::json WHERE sid = ?`, [
      Date.now() - 13 * 3_600_000,
      sid(absolute) as string,
    ]);
    expect((await idle.get('/api/v1/me')).status).toBe(401);
    expect((await absolute.get('/api/v1/me')).status).toBe(401);
  });

  it('keeps the last enabled administrator', async () => {
    const me = await admin.get('/api/v1/me');
    const res = await admin.put(`/api/v1/users/${me.body.data.id}`, { roles: ['VIEWER'] });
    expect(res.status).toBe(409);
    expect((await admin.delete(`/api/v1/users/${me.body.data.id}`)).status).toBe(409);
  });
});
