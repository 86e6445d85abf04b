// Incremental sync: a consumer that follows GET /changes and one that polls ?updatedAfter= both end
// with exactly the service's state after creates, updates, decommissions, aging and retirements.
import type { ApiClient } from '../support/api-client.js';
import { importEstate, loadSshRead } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

type Row = Record<string, unknown> & { id: string };
interface Item { seq: string; entity: 'ASSET' | 'RELATIONSHIP'; kind: string; id: string; asset?: Row; relationship?: Row }

/** What a consumer keeps of an asset: everything but derived parts (the parent block) and seen-times. */
const assetState = ({ parent: _p, lastSeenAt: _l, lastScanAt: _s, ...row }: Row) => row;
/** And of a relationship: its ends, its type and its activity (the names of its ends belong to the assets). */
const relationshipState = (r: Row) => ({ id: r.id, relationshipType: r.relationshipType, sourceAssetId: r.sourceAssetId, targetAssetId: r.targetAssetId, active: r.active });

describe('incremental sync', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;

  const feed = { cursor: '0', assets: new Map<string, Row>(), relationships: new Map<string, Row>(), kinds: [] as string[] };
  const poller = { since: '1970-01-01T00:00:00.000Z', assets: new Map<string, Row>(), relationships: new Map<string, Row>() };

  const follow = async () => {
    for (;;) {
      const res = await api.get(`/api/v1/changes?after=${feed.cursor}&limit=7`);
      expect(res.status).toBe(200);
      for (const item of res.body.data as Item[]) {
        feed.kinds.push(`${item.entity}:${item.kind}`);
        if (item.entity === 'ASSET') feed.assets.set(item.id, assetState(item.asset as Row));
        else if (item.kind === 'RETIRED') feed.relationships.delete(item.id);
        else feed.relationships.set(item.id, relationshipState(item.relationship as Row));
      }
      feed.cursor = res.body.cursor;
      if (!res.body.more) return;
    }
  };
  const all = async (path: string): Promise<Row[]> => {
    const rows: Row[] = [];
    let url: string | undefined = path;
    while (url) {
      const res: { status: number; body: { data: Row[]; links: { next?: string } } } = await api.get(url.replace(service.url, ''));
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      rows.push(...res.body.data);
      url = res.body.links.next;
    }
    return rows;
  };
  const poll = async () => {
    // From a little before the last poll: a write in flight then commits with an earlier time.
    const started = new Date();
    const since = new Date(Date.parse(poller.since) - 2000).toISOString();
    for (const a of await all(`/api/v1/assets?updatedAfter=${since}&size=5`)) poller.assets.set(a.id, assetState(a));
    for (const r of await all(`/api/v1/relationships?updatedAfter=${since}&activeOnly=false&size=5`)) {
      if (r.retiredAt) poller.relationships.delete(r.id);
      else poller.relationships.set(r.id, relationshipState(r));
    }
    poller.since = started.toISOString();
  };
  const sync = async () => {
    await follow();
    await poll();
  };
  const expectInSync = async () => {
    await sync();
    const assets = new Map((await all('/api/v1/assets?size=1000')).map((a) => [a.id, assetState(a)]));
    const relationships = new Map((await all('/api/v1/relationships?size=1000&activeOnly=false')).map((r) => [r.id, relationshipState(r)]));
    expect(assets.size).toBeGreaterThan(0);
    expect(feed.assets).toEqual(assets);
    expect(poller.assets).toEqual(assets);
    expect(feed.relationships).toEqual(relationships);
    expect(poller.relationships).toEqual(relationships);
  };
  const importBundle = (bundle: object) => importEstate(p.integrationKey, { source: 'cmdb', ...bundle });
  const discover = (connectedTo: string[]) => loadSshRead(service, connectedTo);

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
  });
  afterAll(() => service.stop());

  it('starts empty and stays exact through creates, updates, decommissions, aging and retirements', async () => {
    await sync();
    expect(feed.assets.size).toBe(0);

    const ids = await importBundle({
      assets: [
        { key: 'esx', assetType: 'HYPERVISOR', displayName: 'esx-01', serialNumber: 'SYNC-ESX' },
        { key: 'vm1', assetType: 'VM', displayName: 'vm-01', serialNumber: 'SYNC-VM1' },
        { key: 'vm2', assetType: 'VM', displayName: 'vm-02', serialNumber: 'SYNC-VM2' },
        { key: 'db', assetType: 'SERVER', displayName: 'db-01', serialNumber: 'SYNC-DB', ipAddresses: ['10.9.0.2'] },
      ],
      relationships: [{ type: 'HOSTS_VM', source: 'esx', target: 'vm1' }, { type: 'HOSTS_VM', source: 'esx', target: 'vm2' }],
    });
    await expectInSync();

    // A sighting changes nothing; a renamed asset and a new custom attribute do.
    const quiet = feed.cursor;
    await importBundle({ assets: [{ key: 'vm1', assetType: 'VM', displayName: 'vm-01', serialNumber: 'SYNC-VM1' }] });
    expect((await api.get(`/api/v1/changes?after=${quiet}`)).body.data).toEqual([]);
    await importBundle({ assets: [{ key: 'vm1', assetType: 'VM', displayName: 'vm-01-renamed', serialNumber: 'SYNC-VM1', customAttributes: { owner: 'team-a' } }] });
    await expectInSync();

    // Decommissioning changes the asset and makes its edges inactive; reactivating brings them back.
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.vm2}/decommission`)).status).toBe(200);
    await expectInSync();
    expect(feed.kinds).toContain('ASSET:DECOMMISSIONED');
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.vm2}/reactivate`)).status).toBe(200);
    await expectInSync();

    // Discovery sees a host talking to db-01 (a new edge), then no longer (the edge is retired).
    await discover(['10.9.0.2']);
    await expectInSync();
    await discover([]);
    await expectInSync();
    expect(feed.kinds).toContain('RELATIONSHIP:RETIRED');

    // Aging makes the assets no one has seen for long STALE.
    const db = service.running.container.graph.driver;
    await db.executeQuery('MATCH (a:Asset {id: $id}) SET a.lastSeenAt = datetime() - duration("P40D")', { id: ids.esx });
    expect((await p.adminSession.post('/api/v1/jobs/aging-sweep/run')).status).toBe(200);
    await expectInSync();
    expect(feed.kinds).toContain('ASSET:STALE');
  });

  it('says when a reader is behind what was purged, and refuses a cursor that is no number', async () => {
    const graph = service.running.container.graph.driver;
    await graph.executeQuery("MATCH (c:ChangeCounter {name: 'changes'}) SET c.purgedThrough = 5");
    const gone = await api.get('/api/v1/changes?after=3');
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
    expect((await api.get('/api/v1/changes?after=5')).status).toBe(200);
    expect((await api.get('/api/v1/changes?after=-1')).status).toBe(400);
  });
});
