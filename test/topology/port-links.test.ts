// Port-to-port links in the topology: interface connections (LLDP, FDB) between the assets of a
// neighbourhood, and, when asked, followed as hops so that a switch's neighbourhood holds the
// hosts cabled to it.
import type { ApiClient } from '../support/api-client.js';
import { importEstate, type EstateIds } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const CABLED = {
  source: 'cabling',
  assets: [
    { key: 'swA', assetType: 'NETWORK_DEVICE', displayName: 'access-sw-a', serialNumber: 'SW-A-0001' },
    { key: 'swB', assetType: 'NETWORK_DEVICE', displayName: 'core-sw-b', serialNumber: 'SW-B-0001' },
    { key: 'h1', assetType: 'HYPERVISOR', displayName: 'esx-h1', serialNumber: 'H1-0001' },
    { key: 'h2', assetType: 'PHYSICAL_HOST', displayName: 'bare-h2', serialNumber: 'H2-0001' },
    { key: 'vm', assetType: 'VM', displayName: 'vm-on-h1', serialNumber: 'VM-0001' },
  ],
  relationships: [
    { type: 'HOSTS_VM', source: 'h1', target: 'vm' },
    { type: 'COMMUNICATES_WITH', source: 'h1', target: 'h2' },
  ],
  interfaces: [
    { asset: 'swA', name: 'Gi1/0/1', ifIndex: 1 },
    { asset: 'swA', name: 'Gi1/0/2', ifIndex: 2 },
    { asset: 'swA', name: 'Gi1/0/48', ifIndex: 48 },
    { asset: 'swB', name: 'Te1/1/1', ifIndex: 101 },
    { asset: 'h1', name: 'vmnic0', macAddress: '52:54:00:10:00:01' },
    { asset: 'h1', name: 'vmnic1', macAddress: '52:54:00:10:00:11' },
    { asset: 'h2', name: 'eth0', macAddress: '52:54:00:10:00:02' },
    { asset: 'h2', name: 'eth1', macAddress: '52:54:00:10:00:12' },
  ],
  neighbors: [
    { asset: 'h1', localPort: 'vmnic0', remotePort: 'Gi1/0/1', remoteAsset: 'swA' },
    { asset: 'swA', localPort: 'Gi1/0/48', remotePort: 'Te1/1/1', remoteAsset: 'swB' },
    // A direct cable between the two hosts (a back-to-back replication link).
    { asset: 'h1', localPort: 'vmnic1', remotePort: 'eth1', remoteAsset: 'h2' },
  ],
  fdb: [{ asset: 'swA', port: 'Gi1/0/2', macAddress: '52:54:00:10:00:02' }],
};

interface Link {
  sourceAssetId: string;
  sourcePort: string;
  targetAssetId: string;
  targetPort: string;
  discoveredVia: string;
  confidence: number;
}

describe('GET /topology/{id}/neighbors: port-to-port links', () => {
  let service: TestService;
  let api: ApiClient;
  let ids: EstateIds;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    const p = await createPrincipals(service.url);
    api = p.viewer;
    ids = await importEstate(p.integrationKey, CABLED);
  });
  afterAll(() => service.stop());

  const names = (res: { body: { data: { nodes: { id: string; depth: number }[] } } }) =>
    Object.fromEntries(res.body.data.nodes.map((n) => [Object.keys(ids).find((k) => ids[k] === n.id), n.depth]));
  /**
   * A link as "asset:port -> asset:port via EVIDENCE confidence", keyed by bundle keys. A cable
   * that LLDP reports has no direction (either end may be the source): its ends are put in order.
   */
  const describeLink = (l: Link) => {
    const key = (id: string) => Object.keys(ids).find((k) => ids[k] === id);
    const ends = [`${key(l.sourceAssetId)}:${l.sourcePort}`, `${key(l.targetAssetId)}:${l.targetPort}`];
    if (l.discoveredVia !== 'FDB') ends.sort();
    return `${ends[0]} -> ${ends[1]} via ${l.discoveredVia} ${l.confidence.toFixed(2)}`;
  };

  it('gives the cables between the assets that relationships reach, without following them', async () => {
    const res = await api.get(`/api/v1/topology/${ids.h1}/neighbors?depth=1`);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual({ h1: 0, vm: 1, h2: 1 });
    expect(res.body.data.interfaceLinks.map(describeLink)).toEqual(['h1:vmnic1 -> h2:eth1 via LLDP 1.00']);
    // The switch is cabled to h1, but a cable is not a hop unless asked.
    const sw = await api.get(`/api/v1/topology/${ids.swA}/neighbors?depth=2`);
    expect(names(sw)).toEqual({ swA: 0 });
    expect(sw.body.data.interfaceLinks).toEqual([]);
  });

  it('follows cables as hops when asked: a switch holds the hosts cabled to it, port to port, then what runs on them', async () => {
    const res = await api.get(`/api/v1/topology/${ids.swA}/neighbors?depth=2&followInterfaceLinks=true`);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual({ swA: 0, swB: 1, h1: 1, h2: 1, vm: 2 });
    expect(res.body.data.interfaceLinks.map(describeLink).sort()).toEqual([
      'h1:vmnic0 -> swA:Gi1/0/1 via LLDP 1.00',
      'h1:vmnic1 -> h2:eth1 via LLDP 1.00',
      'swA:Gi1/0/2 -> h2:eth0 via FDB 0.90',
      'swA:Gi1/0/48 -> swB:Te1/1/1 via LLDP 1.00',
    ]);
    const edgeTypes = res.body.data.edges.map((e: { type: string }) => e.type).sort();
    expect(edgeTypes).toEqual(['COMMUNICATES_WITH', 'HOSTS_VM']);
    expect(res.body.data.truncated).toBe(false);
  });

  it('keeps to the node limit, and then gives only links and edges between the assets it kept', async () => {
    const res = await api.get(`/api/v1/topology/${ids.swA}/neighbors?depth=3&followInterfaceLinks=true&nodeLimit=3`);
    expect(res.body.data).toMatchObject({ truncated: true, nodeCap: 3 });
    const kept = new Set(res.body.data.nodes.map((n: { id: string }) => n.id));
    expect(kept.size).toBe(3);
    expect(kept.has(ids.swA)).toBe(true);
    for (const l of res.body.data.interfaceLinks as Link[]) expect(kept.has(l.sourceAssetId) && kept.has(l.targetAssetId)).toBe(true);
    for (const e of res.body.data.edges as { source: string; target: string }[]) expect(kept.has(e.source) && kept.has(e.target)).toBe(true);
    const walk = await api.get(`/api/v1/topology/${ids.h1}/neighbors?depth=2&nodeLimit=2`);
    expect(walk.body.data).toMatchObject({ truncated: true, nodeCap: 2 });
    expect(walk.body.data.nodes).toHaveLength(2);
  });

  it('refuses a node limit outside 1 to 5000', async () => {
    for (const limit of ['0', '5001', 'many']) {
      const res = await api.get(`/api/v1/topology/${ids.swA}/neighbors?nodeLimit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});
