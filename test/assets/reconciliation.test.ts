// Attribute-level reconciliation: an observation changes only the facts its source reported, a
// documented precedence decides between sources (an import that owns a field outranks discovery),
// the losing values are kept as evidence, and a fact goes only when no one reported it for long.
import { emptyObservation, OBSERVED_SCOPES, type HostObservation } from '../../src/features/discovery/host-observation.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const FULL = {
  key: 'srv', assetType: 'SERVER', displayName: 'billing-01', hostname: 'billing-01', fqdn: 'billing-01.corp.example', site: 'paris', environment: 'production',
  vendor: 'Dell Inc.', model: 'PowerEdge R650', serialNumber: 'REC-0001', macAddresses: ['02:00:00:0a:00:01'], ipAddresses: ['10.20.0.1', '10.20.0.2'],
  customAttributes: { owner: 'billing', tier: 1 },
};

describe('reconciliation of facts', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, agingInactiveAfterDays: 30 });
    p = await createPrincipals(service.url);
    api = p.viewer;
  });
  afterAll(() => service.stop());

  const load = async (bundle: object) => {
    const res = await p.integrationKey.post('/api/v1/import', bundle);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.body.data.assets[0].id as string;
  };
  const asset = async (id: string) => (await api.get(`/api/v1/assets/${id}`)).body.data;
  const facts = ({ lastSeenAt: _l, sources: _s, ...rest }: Record<string, unknown>) => rest;
  const provenanceOf = async (id: string, field: string) => (await api.get(`/api/v1/assets/${id}/provenance`)).body.data.fields.find((f: { field: string }) => f.field === field);
  /** Observations of the host at an address (SSH unless they say), loaded by discovery's own load step as one scan. */
  const discoverAt = async (address: string, ...observations: Partial<HostObservation>[]) => {
    const container = service.running.container;
    const target = await container.targets.create({ kind: 'SYSTEM', name: 'test' }, { name: `rec ${Date.now()}`, addresses: [address], methods: ['SSH', 'SNMP'] });
    const run = await container.runs.create(target.id, target.name, 'MANUAL');
    const seen = observations.map((o) => ({ ...emptyObservation(address, 'SSH', 'SERVER'), complete: new Set(OBSERVED_SCOPES), ...o }));
    await container.observationLoader.load(run?.id as string, [{ address, responding: true, openPorts: [], attempted: seen.map((o) => o.method), observations: seen, errors: [] }], 22, new Date().toISOString());
  };
  const discover = (...observations: Partial<HostObservation>[]) => discoverAt('10.20.0.1', ...observations);

  it('keeps every fact an import leaves out, and moves neither the values nor updatedAt', async () => {
    const id = await load({ source: 'cmdb', assets: [FULL] });
    const before = await asset(id);
    expect(before).toMatchObject({ hostname: 'billing-01', site: 'paris', vendor: 'Dell Inc.', ipAddresses: ['10.20.0.1', '10.20.0.2'] });
    expect(JSON.parse(before.customAttributes)).toEqual({ owner: 'billing', tier: 1 });
    await load({ source: 'cmdb', assets: [{ key: 'srv', assetType: 'SERVER', serialNumber: 'REC-0001' }] });
    const after = await asset(id);
    expect(facts(after)).toEqual(facts(before));
    expect(after.lastSeenAt > before.lastSeenAt || after.lastSeenAt === before.lastSeenAt).toBe(true);
  });

  it('lets the later of two imports win a field, unless the other owns it; the loser stays as evidence', async () => {
    const id = await load({ source: 'cmdb', assets: [FULL] });
    await load({ source: 'spreadsheet', assets: [{ key: 'srv', assetType: 'SERVER', serialNumber: 'REC-0001', site: 'berlin' }] });
    expect((await asset(id)).site).toBe('berlin');
    expect(await provenanceOf(id, 'site')).toMatchObject({ value: 'berlin', source: 'import:spreadsheet', candidates: [{ source: 'import:cmdb', value: 'paris', owned: false }] });
    await load({ source: 'cmdb', owns: ['site', 'custom.owner'], assets: [{ key: 'srv', assetType: 'SERVER', serialNumber: 'REC-0001', site: 'paris', customAttributes: { owner: 'finance' } }] });
    await load({ source: 'spreadsheet', assets: [{ key: 'srv', assetType: 'SERVER', serialNumber: 'REC-0001', site: 'lyon', customAttributes: { owner: 'someone' } }] });
    const now = await asset(id);
    expect(now.site).toBe('paris');
    expect(JSON.parse(now.customAttributes)).toMatchObject({ owner: 'finance' });
    expect(await provenanceOf(id, 'site')).toMatchObject({ source: 'import:cmdb', owned: true });
  });

  it('puts SSH above an import for the host names and its type, SNMP above both for a network device, and an owning import above SSH', async () => {
    const id = await load({ source: 'cmdb', assets: [FULL] });
    await discover({ hostname: 'billing-01-ssh', assetType: 'VM', macAddresses: ['02:00:00:0a:00:01'], ipAddresses: ['10.20.0.1', '10.20.0.9'], attributes: { osName: 'Debian GNU/Linux' } });
    const seen = await asset(id);
    expect(seen).toMatchObject({ hostname: 'billing-01-ssh', assetType: 'VM', virtual: true, site: 'paris' });
    // Addresses add up across sources.
    expect([...seen.ipAddresses].sort()).toEqual(['10.20.0.1', '10.20.0.2', '10.20.0.9']);
    expect(JSON.parse(seen.customAttributes)).toMatchObject({ osName: 'Debian GNU/Linux', owner: 'billing' });
    // An SSH scan that could not read the host's facts reports none of them: nothing moves.
    await discover({ assetType: 'PHYSICAL_HOST', complete: new Set(['software']) });
    expect(facts(await asset(id))).toEqual(facts(seen));
    await discover(
      { hostname: 'billing-01-ssh', assetType: 'VM', macAddresses: ['02:00:00:0a:00:01'], ipAddresses: ['10.20.0.1', '10.20.0.9'] },
      { method: 'SNMP', assetType: 'NETWORK_DEVICE', hostname: 'billing-01-snmp' },
    );
    expect(await asset(id)).toMatchObject({ assetType: 'NETWORK_DEVICE', assetCategory: 'NETWORK_DEVICE', virtual: null, hostname: 'billing-01-ssh' });
    await load({ source: 'cmdb', owns: ['hostname'], assets: [{ ...FULL, hostname: 'billing-01-cmdb' }] });
    expect((await asset(id)).hostname).toBe('billing-01-cmdb');
    expect(await provenanceOf(id, 'hostname')).toMatchObject({
      source: 'import:cmdb', owned: true,
      candidates: [expect.objectContaining({ source: 'ssh', value: 'billing-01-ssh' }), expect.objectContaining({ source: 'snmp', value: 'billing-01-snmp' })],
    });
  });

  it('keeps the type SNMP gave a device when a later scan gets in by SSH alone', async () => {
    const ssh = { hostname: 'edge-rtr', assetType: 'PHYSICAL_HOST' as const, macAddresses: ['02:00:00:0b:00:01'], ipAddresses: ['10.21.0.1'] };
    await discoverAt('10.21.0.1', ssh, { method: 'SNMP', assetType: 'NETWORK_DEVICE', hostname: 'edge-rtr', macAddresses: ['02:00:00:0b:00:01'] });
    const device = (await api.get('/api/v1/assets?q=edge-rtr')).body.data;
    expect(device.map((a: { assetType: string }) => a.assetType)).toEqual(['NETWORK_DEVICE']);
    await discoverAt('10.21.0.1', ssh);
    const after = (await api.get('/api/v1/assets?q=edge-rtr')).body.data;
    expect(after).toEqual([expect.objectContaining({ id: device[0].id, assetType: 'NETWORK_DEVICE', assetCategory: 'NETWORK_DEVICE' })]);
  });

  it('drops a fact that no source has reported for the aging time, at the aging sweep, and only then', async () => {
    const id = await load({ source: 'cmdb', assets: [FULL] });
    const db = service.running.container.db;
    await db('asset_facts').where({ asset_id: id }).whereIn('field', ['environment', 'custom.tier']).update({ observed_at: new Date(Date.now() - 40 * 86_400_000) });
    const before = await asset(id);
    expect(before.environment).toBe('production');
    expect((await p.adminSession.post('/api/v1/jobs/aging-sweep/run')).body.data.summary).toMatchObject({ assetsWithFactsDropped: 1 });
    const after = await asset(id);
    expect(after.environment).toBeNull();
    expect(JSON.parse(after.customAttributes).tier).toBeUndefined();
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(await provenanceOf(id, 'environment')).toBeUndefined();
    expect(after.hostname).toBe(before.hostname);
  });

  it('refuses to own a field that is no fact', async () => {
    const res = await p.integrationKey.post('/api/v1/import', { source: 'cmdb', owns: ['status'], assets: [FULL] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toContain('owns');
  });
});
