// "Test this credential against one address" (POST /credentials/{id}/test) against Debian's snmpd:
// the outcome and the scan error codes of one attempt by the credential's method, never the
// secret, nothing written to the inventory, the attempt audited.
import { randomUUID } from 'node:crypto';
import { startSnmpAgent, type SnmpAgent } from '../support/snmp-agent.js';
import { closedPort } from '../support/outside-services.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const COMMUNITY = 'check-COMMUNITY-7f3a';
const WRONG = 'wrong-COMMUNITY-91c2';

describe('testing a credential against one address', () => {
  let service: TestService;
  let p: Principals;
  let agent: SnmpAgent;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoverySnmpTimeoutMs: 300 });
    p = await createPrincipals(service.url);
    agent = await startSnmpAgent({ profile: 'host', community: COMMUNITY });
  }, 120_000);
  afterAll(async () => {
    await agent?.stop();
    await service?.stop();
  });

  const credential = async (name: string, community: string) => (await p.discoveryAdminSession.post('/api/v1/credentials', { name, kind: 'SNMP_V2C', matchPatterns: ['10.9.0.0/24'], settings: {}, secrets: { community } })).body.data.id as string;
  const test = (id: string, body: unknown) => p.discoveryAdminSession.post(`/api/v1/credentials/${id}/test`, body);

  it('answers SUCCEEDED for a community the agent takes, FAILED with the scan\'s code for one it ignores and for a closed port, never the secret', async () => {
    const right = await credential('right-community', COMMUNITY);
    const wrong = await credential('wrong-community', WRONG);
    const ok = await test(right, { address: '127.0.0.1', port: agent.port });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ method: 'SNMP', address: '127.0.0.1', port: agent.port, outcome: 'SUCCEEDED' });
    const refused = await test(wrong, { address: '127.0.0.1', port: agent.port });
    expect(refused.body.data).toMatchObject({ method: 'SNMP', outcome: 'FAILED', errors: [{ stage: 'connect', code: 'SNMP_NO_ANSWER', message: expect.any(String) }] });
    const closed = await test(right, { address: '127.0.0.1', port: await closedPort() });
    expect(closed.body.data).toMatchObject({ outcome: 'FAILED', errors: [expect.objectContaining({ code: expect.stringMatching(/^SNMP_/) })] });
    // The default port is the method's own.
    expect((await test(right, { address: '127.0.0.1' })).body.data).toMatchObject({ port: 161 });
    for (const body of [ok.body, refused.body, closed.body]) expect(JSON.stringify(body)).not.toMatch(new RegExp(`${COMMUNITY}|${WRONG}`));

    const audited = (await p.adminSession.get(`/api/v1/audit-events?action=credential.test&targetId=${right}`)).body.data as { details: Record<string, unknown> }[];
    expect(audited.map((e) => e.details.outcome).sort()).toEqual(['FAILED', 'FAILED', 'SUCCEEDED']);
    expect(JSON.stringify(audited)).not.toContain(COMMUNITY);
    expect((await p.viewer.get('/api/v1/assets?size=1')).body.total).toBe(0);
  });

  it('refuses an address that is not one, a body it does not know, an unknown credential and a viewer', async () => {
    const id = await credential('refusals', COMMUNITY);
    for (const body of [{ address: '10.0.0.0/24' }, { address: 'host.example' }, {}, { address: '127.0.0.1', port: 0 }, { address: '127.0.0.1', community: 'x' }]) {
      const res = await test(id, body);
      expect([JSON.stringify(body), res.status, res.headers.get('content-type')]).toEqual([JSON.stringify(body), 400, expect.stringContaining('application/problem+json')]);
    }
    expect((await test(randomUUID(), { address: '127.0.0.1' })).status).toBe(404);
    expect((await p.viewer.post(`/api/v1/credentials/${id}/test`, { address: '127.0.0.1' })).status).toBe(403);
  });
});
