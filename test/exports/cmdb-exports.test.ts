// The exports a CMDB needs beside assets: relationships, interfaces and their port-to-port links,
// streamed like the others, filtered, in a documented order, with updatedAfter for what changed.
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const ESTATE = {
  source: 'cmdb-exports',
  assets: [
    { key: 'esx', assetType: 'HYPERVISOR', displayName: 'esx-01', serialNumber: 'CMX-ESX' },
    { key: 'vm', assetType: 'VM', displayName: 'vm-01', serialNumber: 'CMX-VM' },
    { key: 'sw', assetType: 'NETWORK_DEVICE', displayName: 'sw-01', serialNumber: 'CMX-SW' },
    { key: 'app', assetType: 'SOFTWARE', displayName: 'billing' },
  ],
  relationships: [{ type: 'HOSTS_VM', source: 'esx', target: 'vm' }, { type: 'RUNS_ON', source: 'app', target: 'vm' }],
  interfaces: [
    { asset: 'esx', name: 'vmnic1', ifIndex: 2, macAddress: '52:54:00:cc:00:02', ipAddresses: ['10.3.0.2/24'] },
    { asset: 'esx', name: 'vmnic0', ifIndex: 1, macAddress: '52:54:00:cc:00:01', ipAddresses: ['10.3.0.1/24'] },
    { asset: 'sw', name: 'Gi1/0/1', ifIndex: 1 },
    { asset: 'sw', name: 'Gi1/0/2', ifIndex: 2 },
  ],
  neighbors: [{ asset: 'sw', localPort: 'Gi1/0/1', remotePort: 'vmnic0', remoteAsset: 'esx' }],
  fdb: [{ asset: 'sw', port: 'Gi1/0/2', macAddress: '52:54:00:cc:00:02' }],
};

describe('CMDB exports: relationships, interfaces, interface connections', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let ids: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.apiUserToken;
    const res = await p.integrationKey.post('/api/v1/import', ESTATE);
    ids = Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
    // An address list item that a spreadsheet would run, as discovery may report it (import refuses it).
    await service.running.container.db('network_interfaces').where({ name: 'vmnic1' }).update({ ip_addresses: ['10.3.0.2/24', '=cmd|calc'] });
  });
  afterAll(() => service.stop());
  const lines = (text: string) => text.split('\r\n').filter(Boolean);

  it('exports relationships by type then id, filtered by type, asset and activity, as the list shows them', async () => {
    const json = await api.get('/api/v1/export/relationships.json');
    expect(json.headers.get('content-disposition')).toBe('attachment; filename="relationships.json"');
    const listed = (await api.get('/api/v1/relationships?size=1000')).body.data;
    expect(json.body).toEqual(listed.map(({ ...r }: Record<string, unknown>) => r));
    expect(json.body.map((r: { relationshipType: string }) => r.relationshipType)).toEqual(['RUNS_ON', 'HOSTS_VM']);
    const csv = await api.get('/api/v1/export/relationships.csv?type=HOSTS_VM');
    expect(lines(csv.text)[0]).toBe('id,relationshipType,active,sourceAssetId,sourceDisplayName,sourceAssetType,sourceAssetCategory,targetAssetId,targetDisplayName,targetAssetType,targetAssetCategory,firstSeenAt,lastSeenAt,updatedAt,retiredAt,sources');
    expect(lines(csv.text)).toHaveLength(2);
    expect(lines(csv.text)[1]).toContain(`,true,${ids.esx},esx-01,HYPERVISOR,HOST,${ids.vm},vm-01,VM,HOST,`);
    expect((await api.get(`/api/v1/export/relationships.json?assetId=${ids.app}`)).body.map((r: { relationshipType: string }) => r.relationshipType)).toEqual(['RUNS_ON']);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.app}/decommission`)).status).toBe(200);
    expect((await api.get('/api/v1/export/relationships.json')).body).toHaveLength(1);
    expect((await api.get('/api/v1/export/relationships.json?activeOnly=false')).body).toHaveLength(2);
  });

  it('exports interfaces by asset name, then ifIndex, with addresses in one neutralised cell', async () => {
    const csv = await api.get('/api/v1/export/interfaces.csv');
    const rows = lines(csv.text);
    expect(rows[0]).toBe('assetId,assetDisplayName,assetHostname,interfaceId,name,ifIndex,macAddress,ipAddresses,speedMbps,operStatus,mtu,description,firstSeenAt,lastSeenAt,updatedAt');
    expect(rows.slice(1).map((r) => r.split(',').slice(1, 2).concat(r.split(',').slice(4, 6)).join(' '))).toEqual(['esx-01 vmnic0 1', 'esx-01 vmnic1 2', 'sw-01 Gi1/0/1 1', 'sw-01 Gi1/0/2 2']);
    // A list item that a spreadsheet would run is neutralised like a whole cell.
    expect(rows[2]).toContain(",10.3.0.2/24;'=cmd|calc,");
    const json = await api.get(`/api/v1/export/interfaces.json?assetId=${ids.esx}`);
    expect(json.body.map((i: { name: string }) => i.name)).toEqual(['vmnic0', 'vmnic1']);
    expect(json.body[1]).toMatchObject({ ipAddresses: ['10.3.0.2/24', '=cmd|calc'], updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  });

  it('exports the port-to-port links with their evidence and confidence, filtered by evidence and asset', async () => {
    const json = await api.get('/api/v1/export/interface-connections.json');
    expect(json.body.map((c: Record<string, unknown>) => `${c.sourceAssetDisplayName}:${c.sourcePort}>${c.targetAssetDisplayName}:${c.targetPort} ${c.discoveredVia} ${c.confidence}`).sort()).toEqual([
      expect.stringMatching(/^(sw-01:Gi1\/0\/1>esx-01:vmnic0|esx-01:vmnic0>sw-01:Gi1\/0\/1) LLDP 1$/),
      'sw-01:Gi1/0/2>esx-01:vmnic1 FDB 0.9',
    ].sort());
    expect((await api.get('/api/v1/export/interface-connections.json?type=FDB')).body).toHaveLength(1);
    expect((await api.get(`/api/v1/export/interface-connections.json?assetId=${ids.vm}`)).body).toEqual([]);
    const csv = await api.get('/api/v1/export/interface-connections.csv?type=LLDP');
    expect(lines(csv.text)[0]).toBe('id,sourceAssetId,sourceAssetDisplayName,sourceInterfaceId,sourcePort,targetAssetId,targetAssetDisplayName,targetInterfaceId,targetPort,discoveredVia,confidence,firstSeenAt,lastSeenAt,updatedAt');
  });

  it('gives only what changed after a time, for each export', async () => {
    const mark = new Date().toISOString();
    for (const dataset of ['assets', 'relationships', 'interfaces', 'interface-connections']) {
      expect((await api.get(`/api/v1/export/${dataset}.json?updatedAfter=${mark}`)).body).toEqual([]);
    }
    // A sighting moves nothing; a changed speed moves the interface.
    await p.integrationKey.post('/api/v1/import', { ...ESTATE, interfaces: [{ asset: 'esx', name: 'vmnic0', ifIndex: 1, macAddress: '52:54:00:cc:00:01', ipAddresses: ['10.3.0.1/24'], speedMbps: 25000 }] });
    expect((await api.get(`/api/v1/export/interfaces.json?updatedAfter=${mark}`)).body.map((i: { name: string }) => i.name)).toEqual(['vmnic0']);
    expect((await api.get(`/api/v1/export/assets.json?updatedAfter=${mark}`)).body).toEqual([]);
    expect((await api.get('/api/v1/export/interfaces.json?updatedAfter=yesterday')).status).toBe(400);
  });
});
