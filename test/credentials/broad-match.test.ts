// A credential is offered to every address its match pattern covers that answers, a rogue host
// included: a pattern wider than service.credentials.broad-match-ipv4-prefix (a /16) or
// broad-match-ipv6-prefix (a /48), or a host name pattern that leaves the domain open, needs an
// explicit allowBroadMatch: true. The API says why; discovery does not offer such a pattern
// without the flag, whatever was stored before the rule.
import { CredentialOffer } from '../../src/features/discovery/credential-offer.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const credential = (name: string, matchPatterns: string[], extra: object = {}) => ({ name, kind: 'SSH_PASSWORD', matchPatterns, settings: { username: 'ops' }, secrets: { password: 'a-password-1' }, ...extra });

describe('a credential with a broad match pattern', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
  });
  afterAll(() => service.stop());

  it.each([
    ['0.0.0.0/0', /0\.0\.0\.0\/0 covers 4294967296 addresses.*wider than a \/16 \(service\.credentials\.broad-match-ipv4-prefix\)/],
    ['::/0', /wider than a \/48 \(service\.credentials\.broad-match-ipv6-prefix\)/],
    ['10.0.0.0/8', /wider than a \/16/],
    ['10.0.0.0/15', /wider than a \/16/],
    ['fd00::/47', /wider than a \/48/],
    ['*', /leaves the domain open/],
    ['*.com', /leaves the domain open/],
    ['*.*.example.?om', /leaves the domain open/],
  ])('refuses %s without allowBroadMatch, saying why, and stores nothing', async (pattern, why) => {
    const before = (await api.get('/api/v1/credentials')).body.total;
    const res = await api.post('/api/v1/credentials', credential(`broad ${pattern}`, ['10.9.0.0/24', pattern]));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([{ path: 'body.matchPatterns.1', message: expect.stringMatching(why) }]);
    expect(res.body.errors[0].message).toMatch(/its secret would be offered to every address there that answers, a rogue host too; set allowBroadMatch: true to allow it/);
    expect((await api.get('/api/v1/credentials')).body.total).toBe(before);
  });

  it.each(['10.0.0.0/16', 'fd00:1:2::/48', '10.1.2.3', '2001:db8::1', '*.lab.example.com', 'web-??.paris.example.com', 'db01'])('takes %s without allowBroadMatch', async (pattern) => {
    const res = await api.post('/api/v1/credentials', credential(`narrow ${pattern}`, [pattern]));
    expect(res.status).toBe(201);
    expect(res.body.data.allowBroadMatch).toBe(false);
  });

  it('takes a broad pattern with allowBroadMatch: true, and refuses an update that drops the flag or widens a narrow credential', async () => {
    const broad = await api.post('/api/v1/credentials', credential('everywhere', ['0.0.0.0/0', '::/0'], { allowBroadMatch: true }));
    expect(broad.status).toBe(201);
    expect(broad.body.data).toMatchObject({ matchPatterns: ['0.0.0.0/0', '::/0'], allowBroadMatch: true });
    const dropped = await api.put(`/api/v1/credentials/${broad.body.data.id}`, { allowBroadMatch: false });
    expect(dropped.status).toBe(400);
    expect(dropped.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.matchPatterns.0', 'body.matchPatterns.1']);

    const narrow = await api.post('/api/v1/credentials', credential('paris only', ['10.20.0.0/24']));
    const widened = await api.put(`/api/v1/credentials/${narrow.body.data.id}`, { matchPatterns: ['10.0.0.0/8'] });
    expect(widened.status).toBe(400);
    expect((await api.get(`/api/v1/credentials/${narrow.body.data.id}`)).body.data.matchPatterns).toEqual(['10.20.0.0/24']);
    const audit = await p.adminSession.get(`/api/v1/audit-events?targetId=${broad.body.data.id}`);
    expect(audit.body.data[0]).toMatchObject({ action: 'credential.create', details: { allowBroadMatch: true } });
  });

  it('is offered by its broad pattern only while allowBroadMatch is set (a credential stored before the rule is not)', async () => {
    const { container } = service.running;
    const created = await api.post('/api/v1/credentials', credential('wide offer', ['10.0.0.0/8'], { allowBroadMatch: true }));
    const id = created.body.data.id as string;
    const offer = new CredentialOffer(container.db, container.credentials, container.hostState);
    const offered = async () => (await (await offer.forRun('SSH', [])).offer('10.44.5.6', undefined)).credentials.map((c) => c.id);
    expect(await offered()).toContain(id);
    // As stored before allowBroadMatch existed.
    await container.db('credentials').where({ id }).update({ allow_broad_match: false });
    expect(await offered()).not.toContain(id);
  });
});
