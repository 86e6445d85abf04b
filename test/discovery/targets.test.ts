import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('discovery targets', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let credentialId: string;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryMaxAddressesPerTarget: 600 });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
    credentialId = (await api.post('/api/v1/credentials', { name: 'lab-ssh', kind: 'SSH_PASSWORD', matchPatterns: ['10.0.0.0/16'], settings: { username: 'inv' }, secrets: { password: 'pw' } })).body.data.id;
  });
  afterAll(() => service.stop());

  it('creates a target with the documented defaults and counts its addresses', async () => {
    const res = await api.post('/api/v1/discovery/targets', { name: 'lab', addresses: ['10.0.0.0/24', '10.0.1.10-20', 'db-01.lab.example.com', '10.0.2.7'], credentialIds: [credentialId] });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'lab', addressCount: 254 + 11 + 1 + 1, methods: ['SWEEP', 'SSH', 'SNMP'], sshPort: 22, snmpPort: 161, ports: { SSH: 22, SNMP: 161, VCENTER: 443 }, settings: {}, credentialIds: [credentialId], schedule: null, enabled: true,
    });
    const got = await api.get(`/api/v1/discovery/targets/${res.body.data.id}`);
    expect(got.body.data).toEqual(res.body.data);
  });

  it('refuses a target whole, naming every bad address, the scope limit, an unknown credential and a bad schedule', async () => {
    const res = await api.post('/api/v1/discovery/targets', {
      name: 'too-big', addresses: ['10.1.0.0/22', 'not a host!', '10.2.0.0/33'], credentialIds: ['00000000-0000-4000-8000-000000000000'], schedule: 'every night',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.addresses', 'body.addresses.1', 'body.addresses.2', 'body.credentialIds.0', 'body.schedule']);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'body.addresses').message).toMatch(/covers 1022 addresses; the limit is 600/);
    expect((await api.get('/api/v1/discovery/targets')).body.data.map((t: { name: string }) => t.name)).not.toContain('too-big');
  });

  it('changes only the fields an update names, keeps names unique, and deletes', async () => {
    const created = (await api.post('/api/v1/discovery/targets', { name: 'dmz', addresses: ['192.0.2.0/28'], methods: ['SWEEP'], schedule: '0 0 3 * * *' })).body.data;
    const updated = await api.put(`/api/v1/discovery/targets/${created.id}`, { enabled: false, sshPort: 2222 });
    expect(updated.body.data).toMatchObject({ name: 'dmz', addresses: ['192.0.2.0/28'], methods: ['SWEEP'], schedule: '0 0 3 * * *', enabled: false, sshPort: 2222, addressCount: 14 });
    expect((await api.put(`/api/v1/discovery/targets/${created.id}`, { name: 'lab' })).status).toBe(409);
    expect((await api.get('/api/v1/discovery/targets?enabled=false')).body.data.map((t: { name: string }) => t.name)).toEqual(['dmz']);
    expect((await api.delete(`/api/v1/discovery/targets/${created.id}`)).status).toBe(204);
    expect((await api.get(`/api/v1/discovery/targets/${created.id}`)).status).toBe(404);
    const audit = await p.adminSession.get(`/api/v1/audit-events?targetId=${created.id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['target.delete', 'target.update', 'target.create']);
  });

  it('keeps ports and connector settings by method, with the shorthands and the defaults', async () => {
    const created = await api.post('/api/v1/discovery/targets', { name: 'vc', addresses: ['10.0.3.5'], methods: ['VCENTER'], sshPort: 2200, ports: { VCENTER: 8443 }, settings: { VCENTER: { verifyCertificate: false } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ methods: ['VCENTER'], sshPort: 2200, snmpPort: 161, ports: { SSH: 2200, SNMP: 161, VCENTER: 8443 }, settings: { VCENTER: { verifyCertificate: false } } });
    const updated = await api.put(`/api/v1/discovery/targets/${created.body.data.id}`, { ports: { SNMP: 1161 } });
    expect(updated.body.data.ports).toEqual({ SSH: 2200, SNMP: 1161, VCENTER: 8443, LIBVIRT: 22, CONTAINERS: 22, DNS: 53, DHCP: 8000, LDAP: 636, KUBERNETES: 6443, AWS: 443, AZURE: 443 });
    expect(updated.body.data.snmpPort).toBe(1161);
    const row = await service.running.container.db('discovery_targets').where({ id: created.body.data.id }).first();
    expect(row.ports).toEqual({ SSH: 2200, SNMP: 1161, VCENTER: 8443 });
    const conflicting = await api.post('/api/v1/discovery/targets', { name: 'vc2', addresses: ['10.0.3.6'], sshPort: 22, ports: { SSH: 23 } });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.sshPort']);
    expect((await api.post('/api/v1/discovery/targets', { name: 'vc3', addresses: ['10.0.3.7'], settings: { SSH: {} } })).status).toBe(400);
    expect((await api.post('/api/v1/discovery/targets', { name: 'vc4', addresses: ['10.0.3.8'], settings: { VCENTER: { verify: true } } })).status).toBe(400);
  });

  it('refuses numeric forms that are no canonical address (loopback in disguise), each with the address resolvers would read', async () => {
    const disguised = ['0x7f.1', '2130706433', '127.1', '0177.0.0.1', '10.0.0.256', '0.0.0.0'];
    const res = await api.post('/api/v1/discovery/targets', { name: 'disguised', addresses: ['127.0.0.1', ...disguised] });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const messages = Object.fromEntries(res.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]));
    expect(Object.keys(messages).sort()).toEqual(disguised.map((_a, i) => `body.addresses.${i + 1}`).sort());
    for (const i of [1, 2, 3, 4]) expect(messages[`body.addresses.${i}`]).toMatch(/resolvers read it as 127\.0\.0\.1; write 127\.0\.0\.1/);
    expect(messages['body.addresses.5']).toMatch(/not an IPv4 address \(four parts of 0 to 255 without leading zeros\)/);
    expect(messages['body.addresses.6']).toMatch(/reaches the service's own host/);
    expect((await api.get('/api/v1/discovery/targets')).body.data.map((t: { name: string }) => t.name)).not.toContain('disguised');
  });

  it.each([
    ['every second', '* * * * * *'],
    ['every ten seconds', '*/10 * * * * *'],
    ['every four minutes', '*/4 * * * *'],
    ['twice a minute apart each hour', '0,1 * * * *'],
    ['a minute that does not exist', '99 * * * *'],
  ])('refuses a schedule of %s (%j)', async (_what, schedule) => {
    const res = await api.post('/api/v1/discovery/targets', { name: 'too-often', addresses: ['10.0.9.1'], schedule });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body.schedule', message: expect.any(String) }]);
  });

  it('says how often a refused schedule fires and names the minimum and its setting', async () => {
    const res = await api.post('/api/v1/discovery/targets', { name: 'too-often', addresses: ['10.0.9.1'], schedule: '* * * * * *' });
    expect(res.body.errors[0].message).toMatch(/fires 1 s apart; the minimum is 300 s \(service\.discovery\.min-schedule-interval-seconds\)/);
  });

  it.each(['*/5 * * * *', '0 0 3 * * *', '0 30 23 * * 1-5'])('takes the schedule %j', async (schedule) => {
    const res = await api.post('/api/v1/discovery/targets', { name: `every ${schedule}`, addresses: ['10.0.9.2'], schedule });
    expect(res.status).toBe(201);
    expect(res.body.data.schedule).toBe(schedule);
  });

  it('refuses unknown fields and methods', async () => {
    expect((await api.post('/api/v1/discovery/targets', { name: 'x', addresses: ['10.0.0.1'], methods: ['TELNET'] })).status).toBe(400);
    expect((await api.post('/api/v1/discovery/targets', { name: 'x', addresses: ['10.0.0.1'], password: 'p' })).status).toBe(400);
  });
});
