// GET /relationships in type-then-id order with keyset cursors: a walk over several types sees
// every relationship that stayed in the list exactly once, totals stay exact, prev and last seek.
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Row {
  id: string;
  relationshipType: string;
  active: boolean;
  sourceDisplayName: string;
  targetDisplayName: string;
}
interface Page {
  data: Row[];
  total: number;
  page: number;
  links: { first: string; prev?: string; next?: string; last?: string };
}

// Three hypervisors, each with VMs (HOSTS_VM) and software on them (RUNS_ON), and a manager (MANAGED_BY).
function estate(vmsPerHypervisor: number, tag = '') {
  const assets: object[] = [{ key: 'vc', assetType: 'VIRTUALIZATION_MANAGER', displayName: 'vc', fqdn: 'vc.example.com' }];
  const relationships: object[] = [];
  for (let h = 0; h < 3; h++) {
    assets.push({ key: `esx${h}`, assetType: 'HYPERVISOR', displayName: `esx-${h}`, serialNumber: `REL-ESX-${h}` });
    relationships.push({ type: 'MANAGED_BY', source: `esx${h}`, target: 'vc' });
    for (let v = 0; v < vmsPerHypervisor; v++) {
      const vm = `vm${h}-${v}${tag}`;
      assets.push({ key: vm, assetType: 'VM', displayName: vm, serialNumber: `REL-${vm}` });
      relationships.push({ type: 'HOSTS_VM', source: `esx${h}`, target: vm });
      assets.push({ key: `app-${vm}`, assetType: 'SOFTWARE', displayName: `app on ${vm}` });
      relationships.push({ type: 'RUNS_ON', source: `app-${vm}`, target: vm });
    }
  }
  return { source: 'relationship-pages', assets, relationships };
}

describe('GET /relationships: order, totals and cursor links', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let ids: Record<string, string>;
  const get = async (url: string): Promise<Page> => {
    const res = await api.get(url.replace(service.url, ''));
    expect(res.status).toBe(200);
    return res.body;
  };
  const walk = async (url: string) => {
    const rows: Row[] = [];
    let page: Page | undefined = await get(url);
    while (page) {
      rows.push(...page.data);
      page = page.links.next ? await get(page.links.next) : undefined;
    }
    return rows;
  };

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
    const res = await p.integrationKey.post('/api/v1/import', estate(4));
    expect(res.status).toBe(200);
    ids = Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
  });
  afterAll(() => service.stop());

  it('lists by type in the taxonomy order, then id, across pages that cross from one type to the next', async () => {
    const all = await get('/api/v1/relationships?size=1000');
    expect(all.total).toBe(3 + 12 + 12);
    const order = all.data.map((r) => r.relationshipType);
    expect([...new Set(order)]).toEqual(['RUNS_ON', 'HOSTS_VM', 'MANAGED_BY']);
    for (const type of ['RUNS_ON', 'HOSTS_VM', 'MANAGED_BY']) {
      const of = all.data.filter((r) => r.relationshipType === type).map((r) => r.id);
      expect(of).toEqual([...of].sort());
    }
    const walked = await walk('/api/v1/relationships?size=5');
    expect(walked.map((r) => r.id)).toEqual(all.data.map((r) => r.id));
    for (let page = 0; page < 6; page++) {
      const byNumber = await get(`/api/v1/relationships?size=5&page=${page}`);
      expect(byNumber.data.map((r) => r.id)).toEqual(all.data.slice(page * 5, page * 5 + 5).map((r) => r.id));
    }
  });

  it('gives prev and last links that seek, the last page sized by the total', async () => {
    const first = await get('/api/v1/relationships?size=10&type=RUNS_ON,HOSTS_VM');
    expect(first.total).toBe(24);
    const last = await get(first.links.last as string);
    expect(last.page).toBe(2);
    expect(last.data).toHaveLength(4);
    const middle = await get(last.links.prev as string);
    expect(middle.page).toBe(1);
    const second = await get(first.links.next as string);
    expect(middle.data.map((r) => r.id)).toEqual(second.data.map((r) => r.id));
    expect(new URL(middle.links.prev as string).searchParams.get('cursor')).toBeNull();
  });

  it('sees every relationship that stayed in the list once while others arrive and leave between pages', async () => {
    const before = (await walk('/api/v1/relationships?size=1000')).map((r) => r.id);
    let page = await get('/api/v1/relationships?size=4');
    const seen = page.data.map((r) => r.id);
    // New VMs and software arrive; a VM is decommissioned, so its two edges become inactive and leave the active list.
    expect((await p.integrationKey.post('/api/v1/import', estate(5, '-new'))).status).toBe(200);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids['vm2-3']}/decommission`)).status).toBe(200);
    while (page.links.next) {
      page = await get(page.links.next);
      seen.push(...page.data.map((r) => r.id));
    }
    expect(new Set(seen).size).toBe(seen.length);
    const after = (await walk('/api/v1/relationships?size=1000')).map((r) => r.id);
    const stayed = before.filter((id) => after.includes(id));
    for (const id of stayed) expect(seen).toContain(id);
    const left = before.filter((id) => !after.includes(id));
    expect(left).toHaveLength(2);
    const all = await get('/api/v1/relationships?size=1000&activeOnly=false');
    expect(all.total).toBe(after.length + 2);
    expect(all.data.filter((r) => !r.active).map((r) => r.id).sort()).toEqual([...left].sort());
  });

  it('keeps filtered totals exact as the graph changes', async () => {
    const url = '/api/v1/relationships?type=RUNS_ON&sourceCategory=SOFTWARE&targetCategory=HOST';
    const before = await get(url);
    expect(before.total).toBe((await get(url)).total);
    const res = await p.integrationKey.post('/api/v1/import', {
      source: 'relationship-pages',
      assets: [{ key: 'h', assetType: 'SERVER', displayName: 'srv-new', serialNumber: 'REL-SRV-NEW' }, { key: 's', assetType: 'SOFTWARE', displayName: 'new app' }],
      relationships: [{ type: 'RUNS_ON', source: 's', target: 'h' }],
    });
    expect(res.status).toBe(200);
    expect((await get(url)).total).toBe(before.total + 1);
    expect((await get('/api/v1/relationships?type=RUNS_ON&sourceCategory=HOST')).total).toBe(0);
  });

  it('reads the next page of a walk in bulk ahead, and serves it only while nothing has committed since', async () => {
    const readAheads = async (outcome: string) => {
      const text = (await p.adminToken.get('/metrics')).text;
      return Number(new RegExp(`^list_read_ahead_pages_total\\{list="relationships",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    // Over 1,000 rows, walked in pages of 500 (read ahead from 500 rows up; pages of 100 are not).
    expect((await p.integrationKey.post('/api/v1/import', estate(170, '-bulk'))).status).toBe(200);
    const reference = (await walk('/api/v1/relationships?size=100')) as (Row & { targetAssetId: string })[];
    expect(reference.length).toBeGreaterThan(1000);
    const [served, stale] = [await readAheads('served'), await readAheads('stale')];

    const first = await get('/api/v1/relationships?size=500');
    const second = await get(first.links.next as string);
    expect(second.data.map((r) => r.id)).toEqual(reference.slice(500, 1000).map((r) => r.id));
    expect(await readAheads('served')).toBe(served + 1);

    // The third page is being read ahead (or was read) when a VM of it is decommissioned: its
    // edges leave the active list. A page read before the commit is refused and read again, one
    // read after it is served (which happened depends on the machine's speed: test/platform/
    // read-ahead.test.ts holds each case); either way the page is the one of the list now.
    const gone = reference.slice(1000).find((r) => r.relationshipType === 'HOSTS_VM') as Row & { targetAssetId: string };
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${gone.targetAssetId}/decommission`)).status).toBe(200);
    const third = await get(second.links.next as string);
    expect((await readAheads('stale')) + (await readAheads('served'))).toBe(stale + served + 2);
    const now = (await walk('/api/v1/relationships?size=100')).map((r) => r.id);
    expect(now).not.toContain(gone.id);
    expect(third.data.map((r) => r.id)).toEqual(now.slice(now.indexOf(second.data.at(-1)?.id as string) + 1));
  });

  it('refuses a cursor of another list', async () => {
    const cursor = Buffer.from(JSON.stringify({ after: ['LOVES', 'x'] })).toString('base64url');
    expect((await api.get(`/api/v1/relationships?cursor=${cursor}`)).status).toBe(400);
  });
});
