// The audit trail as an administrator reads it (GET /audit-events and /audit-events/actions): each
// event's target named as its row names it now (else as its details recorded it), the actions the
// trail holds, and the time and text filters.
import { ADMIN_PASSWORD, createPrincipals, createUser, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Event { id: number; occurredAt: string; action: string; actorName: string | null; targetKind: string | null; targetId: string | null; targetName: string | null; details: Record<string, unknown> | null }

describe('the audit trail', () => {
  let service: TestService;
  let p: Principals;
  let ids: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    const user = await createUser(p.adminSession, 'audited-user', ['VIEWER']);
    const credential = (await p.adminSession.post('/api/v1/credentials', { name: 'audited-credential', kind: 'SSH_PASSWORD', matchPatterns: ['10.9.0.0/24'], settings: { username: 'ops' }, secrets: { password: 'S3CRET-AUDIT' } })).body.data.id as string;
    const target = (await p.adminSession.post('/api/v1/discovery/targets', { name: 'audited-target', addresses: ['127.0.0.1'], methods: ['SWEEP'] })).body.data.id as string;
    const gone = (await p.adminSession.post('/api/v1/discovery/targets', { name: 'deleted-target', addresses: ['127.0.0.1'], methods: ['SWEEP'] })).body.data.id as string;
    expect((await p.adminSession.delete(`/api/v1/discovery/targets/${gone}`)).status).toBe(204);
    // Renamed after its events: they name it as it is now.
    expect((await p.adminSession.put(`/api/v1/discovery/targets/${target}`, { name: 'renamed-target' })).status).toBe(200);
    ids = { user, credential, target, gone };
  }, 120_000);
  afterAll(() => service.stop());

  const events = async (query: string) => {
    const res = await p.adminSession.get(`/api/v1/audit-events?size=500&${query}`);
    expect(res.status).toBe(200);
    return res.body as { data: Event[]; total: number };
  };

  it('names each event\'s target as its row names it now, else as its details recorded it', async () => {
    const named = async (targetId: string) => [...new Set((await events(`targetId=${targetId}`)).data.map((e) => e.targetName))];
    expect(await named(ids.user as string)).toEqual(['audited-user']);
    expect(await named(ids.credential as string)).toEqual(['audited-credential']);
    expect(await named(ids.target as string)).toEqual(['renamed-target']);
    expect(await named(ids.gone as string)).toEqual(['deleted-target']);
    const { data } = await events('action=auth.login');
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((e) => e.targetName === null || e.targetKind !== null)).toBe(true);
    expect(JSON.stringify(data)).not.toContain('S3CRET-AUDIT');
  });

  it('lists the actions the trail holds, each once, in order', async () => {
    const res = await p.adminSession.get('/api/v1/audit-events/actions');
    expect(res.status).toBe(200);
    const all = (await events('')).data;
    expect(res.body).toEqual({ data: [...new Set(all.map((e) => e.action))].sort(), capped: false });
    expect(res.body.data).toEqual(expect.arrayContaining(['credential.create', 'target.create', 'target.delete', 'user.create']));
    expect((await p.viewer.get('/api/v1/audit-events/actions')).status).toBe(403);
  });

  it('keeps the events of a time range, and those whose action, actor, target id or details hold a text', async () => {
    const all = (await events('')).data;
    const middle = all[Math.floor(all.length / 2)] as Event;
    const from = encodeURIComponent(middle.occurredAt);
    expect((await events(`from=${from}`)).data.map((e) => e.id)).toEqual(all.filter((e) => e.occurredAt >= middle.occurredAt).map((e) => e.id));
    expect((await events(`to=${from}`)).data.map((e) => e.id)).toEqual(all.filter((e) => e.occurredAt < middle.occurredAt).map((e) => e.id));
    const text = (q: string) => all.filter((e) => [e.action, e.actorName ?? '', e.targetId ?? '', e.details ? JSON.stringify(e.details) : ''].some((v) => v.toLowerCase().includes(q.toLowerCase()))).map((e) => e.id);
    for (const q of ['AUDITED-', 'target.', ids.gone?.slice(0, 8) as string, '%', "o'"]) {
      const found = (await events(`q=${encodeURIComponent(q)}`)).data.map((e) => e.id);
      expect({ q, found }).toEqual({ q, found: text(q) });
    }
    expect((await events('q=audited-credential&action=credential.create')).data.map((e) => e.targetId)).toEqual([ids.credential]);
  });

  it('refuses a time or text it cannot read', async () => {
    for (const query of ['from=yesterday', 'to=2026-13-01T00:00:00Z', 'q=', `q=${'x'.repeat(201)}`]) {
      const res = await p.adminSession.get(`/api/v1/audit-events?${query}`);
      expect([query, res.status, res.headers.get('content-type')]).toEqual([query, 400, expect.stringContaining('application/problem+json')]);
    }
  });
});
