import { RELATIONSHIP_TYPES } from '../../src/features/inventory/relationship-types.js';
import { ApiClient } from '../support/api-client.js';
import { ESTATE } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('bulk import', () => {
  let service: TestService;
  let p: Principals;
  let key: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    key = p.integrationKey;
  });
  afterAll(() => service.stop());

  // The assets that pass a filter (query parameters), or all of them.
  const total = async (filter = '') => (await key.get(`/api/v1/assets?${filter}size=1`)).body.total as number;

  it('creates each asset and relationship once, and a second import of the same bundle creates nothing', async () => {
    const first = await key.post('/api/v1/import', ESTATE);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ created: ESTATE.assets.length, updated: 0, relationships: ESTATE.relationships.length });
    expect(first.body.data.assets.map((a: { key: string }) => a.key)).toEqual(ESTATE.assets.map((a) => a.key));
    expect(first.body.data.assets.every((a: { created: boolean; matchedBy: null }) => a.created && a.matchedBy === null)).toBe(true);
    expect(await total()).toBe(ESTATE.assets.length);

    const second = await key.post('/api/v1/import', { ...ESTATE, source: 'second-source' });
    expect(second.body.data).toMatchObject({ created: 0, updated: ESTATE.assets.length });
    const byKey = Object.fromEntries(second.body.data.assets.map((a: { key: string }) => [a.key, a]));
    expect(byKey.esx1).toMatchObject({ id: first.body.data.assets[1].id, matchedBy: 'SERIAL_NUMBER' });
    expect(byKey.vm1.matchedBy).toBe('MAC_ADDRESS');
    expect(byKey.vc.matchedBy).toBe('FQDN');
    expect(byKey.rds.matchedBy).toBe('CLOUD_INSTANCE_ID');
    expect(byKey.sw.matchedBy).toBe('NAME_IN_PARENT');
    expect(await total()).toBe(ESTATE.assets.length);
    const rels = await key.get('/api/v1/relationships?size=1000');
    expect(rels.body.total).toBe(ESTATE.relationships.length);
    const vm = await key.get(`/api/v1/assets/${byKey.vm1.id}`);
    expect(vm.body.data.sources.sort()).toEqual(['second-source', 'test-fixture']);
  });

  it.each([
    ['serial number', { serialNumber: 'srv-esx-0001' }, 'SERIAL_NUMBER', 'HYPERVISOR'],
    ['MAC address in another notation', { macAddresses: ['0050.56AA.0002'] }, 'MAC_ADDRESS', 'VM'],
    ['FQDN in another case', { fqdn: 'WEB-01.lab.example.com.' }, 'FQDN', 'VM'],
    ['host name at a site', { hostname: 'bare-01', site: 'berlin' }, 'HOSTNAME_SITE', 'PHYSICAL_HOST'],
    ['IP address, when nothing else is known', { ipAddresses: ['10.0.1.12'] }, 'IP_ADDRESS', 'VM'],
  ])('updates the existing asset known by its %s instead of creating a twin', async (_what, identity, rule, assetType) => {
    const before = await total();
    const res = await key.post('/api/v1/import', { source: 'cmdb', assets: [{ key: 'x', assetType, displayName: `seen by ${rule}`, ...identity }] });
    expect(res.status).toBe(200);
    expect(res.body.data.assets[0]).toMatchObject({ created: false, matchedBy: rule });
    expect(await total()).toBe(before);
  });

  it('lets an unidentified endpoint become the host that the same address turns out to be, but never merges a VM into a switch', async () => {
    const inCategory = (category: string) => total(`category=${category}&`);
    const endpoint = await key.post('/api/v1/import', { source: 'sweep', assets: [{ key: 'e', assetType: 'UNKNOWN_ENDPOINT', ipAddresses: ['10.7.7.7'] }] });
    const [endpoints, hosts] = [await inCategory('ENDPOINT'), await inCategory('HOST')];
    const host = await key.post('/api/v1/import', { source: 'ssh', assets: [{ key: 'h', assetType: 'PHYSICAL_HOST', hostname: 'found-later', ipAddresses: ['10.7.7.7'] }] });
    expect(host.body.data.assets[0]).toMatchObject({ id: endpoint.body.data.assets[0].id, matchedBy: 'IP_ADDRESS' });
    const asset = await key.get(`/api/v1/assets/${host.body.data.assets[0].id}`);
    expect(asset.body.data).toMatchObject({ assetType: 'PHYSICAL_HOST', assetCategory: 'HOST', hostname: 'found-later' });
    // The category's node label moved with it: counted once, under its new category.
    expect([await inCategory('ENDPOINT'), await inCategory('HOST')]).toEqual([endpoints - 1, hosts + 1]);
    const other = await key.post('/api/v1/import', { source: 'snmp', assets: [{ key: 's', assetType: 'NETWORK_DEVICE', displayName: 'sw', ipAddresses: ['10.7.7.7'] }] });
    expect(other.body.data.assets[0].created).toBe(true);
  });

  it('makes two entries of one bundle that share an identifier one asset', async () => {
    const res = await key.post('/api/v1/import', {
      source: 'dup',
      assets: [
        { key: 'a', assetType: 'SERVER', serialNumber: 'SER-SAME-42' },
        { key: 'b', assetType: 'SERVER', serialNumber: 'SER-SAME-42', hostname: 'same' },
      ],
    });
    expect(res.body.data.assets[0].id).toBe(res.body.data.assets[1].id);
  });

  it('refuses a bundle with an unknown type, a duplicate key or a dangling key whole, naming each bad entry', async () => {
    const before = await total();
    const res = await key.post('/api/v1/import', {
      source: 'bad',
      assets: [
        { key: 'ok', assetType: 'SERVER', displayName: 'would-be-created' },
        { key: 'a', assetType: 'TOASTER' },
        { key: 'ok', assetType: 'VM' },
        { key: 'pkg', assetType: 'SOFTWARE_PACKAGE' },
      ],
      relationships: [
        { type: 'RUNS_ON', source: 'ok', target: 'missing' },
        { type: 'LOVES', source: 'ok', target: 'a' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      ['body.assets.1.assetType', 'body.assets.2.key', 'body.assets.3.assetType', 'body.relationships.0.target', 'body.relationships.1.type'].sort(),
    );
    expect(await total()).toBe(before);
    expect((await key.get('/api/v1/assets?q=would-be-created')).body.total).toBe(0);
  });

  it('refuses a bundle with an unknown field', async () => {
    const res = await key.post('/api/v1/import', { source: 's', assets: [{ key: 'k', assetType: 'SERVER', colour: 'red' }] });
    expect(res.status).toBe(400);
  });

  it('loads the longest names and instance ids api.yaml allows, and knows the assets again by them', async () => {
    const bundle = {
      source: 'long-values',
      assets: [
        { key: 'named', assetType: 'VIRTUALIZATION_MANAGER', displayName: `long-name-${'n'.repeat(490)}` },
        { key: 'cloud', assetType: 'VM', displayName: 'long-instance', customAttributes: { instanceId: `i-${'0'.repeat(2000)}` } },
      ],
    };
    const first = await key.post('/api/v1/import', bundle);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ created: 2 });
    const again = await key.post('/api/v1/import', bundle);
    expect(again.body.data.assets).toEqual([
      { key: 'named', id: first.body.data.assets[0].id, created: false, matchedBy: 'NAME_IN_PARENT' },
      { key: 'cloud', id: first.body.data.assets[1].id, created: false, matchedBy: 'CLOUD_INSTANCE_ID' },
    ]);
  });

  it.each([
    ['a process id', { processes: [{ asset: 'n', pid: 2 ** 31, processName: 'big' }] }, 'body.processes/0/pid'],
    ['a CPU share', { processes: [{ asset: 'n', pid: 1, processName: 'busy', cpuPercent: 100_000 }] }, 'body.processes/0/cpuPercent'],
    ['an interface speed', { interfaces: [{ asset: 'n', name: 'eth0', speedMbps: 2 ** 31 }] }, 'body.interfaces/0/speedMbps'],
  ])('refuses %s beyond what PostgreSQL holds with a 400, before anything is written', async (_what, records, path) => {
    const res = await key.post('/api/v1/import', { source: 'numbers', assets: [{ key: 'n', assetType: 'SERVER', hostname: 'numbers-host' }], ...records });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await key.get('/api/v1/assets?q=numbers-host')).body.total).toBe(0);
  });

  it.each([
    ['an install date', { software: [{ asset: 'd', packageName: 'pkg', installDate: '2025-02-30' }] }],
    ['an observation time', { observedAt: '2025-02-30T10:00:00Z' }],
  ])('refuses %s that is no day of the calendar with a 400, before anything is written', async (_what, fields) => {
    const res = await key.post('/api/v1/import', { source: 'dates', assets: [{ key: 'd', assetType: 'SERVER', hostname: 'dates-host' }], ...fields });
    expect(res.status).toBe(400);
    expect((await key.get('/api/v1/assets?q=dates-host')).body.total).toBe(0);
  });

  it('merges one relationship of every type once, and an import of the same bundle again adds none', async () => {
    const assets = RELATIONSHIP_TYPES.map((_, i) => ({ key: `r${i}`, assetType: 'PHYSICAL_HOST', hostname: `every-type-${i}` }));
    const relationships = RELATIONSHIP_TYPES.map((type, i) => ({ type, source: `r${i}`, target: `r${i + 1}` }));
    const bundle = { source: 'every-type', assets: [...assets, { key: `r${assets.length}`, assetType: 'PHYSICAL_HOST', hostname: 'every-type-last' }], relationships };
    const first = await key.post('/api/v1/import', bundle);
    expect(first.body.data.relationships).toBe(RELATIONSHIP_TYPES.length);
    const ids = new Set(first.body.data.assets.map((a: { id: string }) => a.id));
    const edges = async () => ((await key.get('/api/v1/relationships?size=1000')).body.data as { relationshipType: string; sourceAssetId: string }[])
      .filter((r) => ids.has(r.sourceAssetId)).map((r) => r.relationshipType).sort();
    expect(await edges()).toEqual([...RELATIONSHIP_TYPES].sort());
    const second = await key.post('/api/v1/import', bundle);
    expect(second.body.data.relationships).toBe(RELATIONSHIP_TYPES.length);
    expect(await edges()).toEqual([...RELATIONSHIP_TYPES].sort());
  });

  it('records who imported what in the audit trail', async () => {
    const audit = await p.adminSession.get('/api/v1/audit-events?action=asset.import');
    expect(audit.body.data[0]).toMatchObject({ actorKind: 'INTEGRATION_KEY', details: { source: expect.any(String) } });
  });
});
