// History against the real stores. GET /assets/{id}/history: facts changed by an import, a
// lifecycle action with its actor, an edge retired by a complete read and restored by the next, and
// a package's version change, each seen with its source or actor, newest first, through every link
// of the page and each filter. As-of reads (an asset, a package, a neighbourhood) at the times the
// history gives, and the difference between two times.
import type { ApiClient } from '../support/api-client.js';
import { importEstate, loadSshRead } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Entry {
  changedAt: string;
  kind: string;
  field: string;
  oldValue: unknown;
  newValue: unknown;
  source: string | null;
  actor: { kind: string; name: string } | null;
  relationship: { id: string; type: string; direction: string; otherAsset: { id: string } | null } | null;
}

/** A link of a page, as a path for the client. */
const local = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** An entry without its time: what the test compares. */
const tuple = (e: Entry) => [e.kind, e.field, e.oldValue, e.newValue, e.source, e.actor && `${e.actor.kind}:${e.actor.name}`, e.relationship && `${e.relationship.type} ${e.relationship.direction} ${e.relationship.otherAsset?.id}`];

describe('GET /assets/{id}/history', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;

  const importBundle = (bundle: object) => importEstate(p.integrationKey, { source: 'cmdb', ...bundle });
  const discover = (connectedTo: string[], hostname?: string) => loadSshRead(service, connectedTo, hostname);
  /** The whole history, following next links from pages of `size`. */
  const history = async (id: string, query = '', size = 1000): Promise<Entry[]> => {
    const entries: Entry[] = [];
    let url: string | undefined = `/api/v1/assets/${id}/history?size=${size}${query}`;
    while (url) {
      const res: { status: number; body: { data: Entry[]; links: { next?: string } } } = await api.get(url);
      expect(res.status).toBe(200);
      entries.push(...res.body.data);
      url = res.body.links.next && local(res.body.links.next);
    }
    return entries;
  };
  /** The entries that came on top of `before` (newest first), as tuples. */
  const added = (after: Entry[], before: Entry[]) => {
    expect(after.slice(after.length - before.length)).toEqual(before);
    return after.slice(0, after.length - before.length).map(tuple);
  };

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
  });
  afterAll(() => service.stop());

  const ids: Record<string, string> = {};

  it('lists the facts an import reported first and changed, with its source, newest first', async () => {
    Object.assign(ids, await importBundle({
      assets: [
        { key: 'esx', assetType: 'HYPERVISOR', displayName: 'esx-01', serialNumber: 'HIST-ESX' },
        { key: 'vm', assetType: 'VM', displayName: 'vm-01', serialNumber: 'HIST-VM' },
        { key: 'db', assetType: 'SERVER', displayName: 'db-01', serialNumber: 'HIST-DB', ipAddresses: ['10.9.0.2'] },
      ],
      relationships: [{ type: 'HOSTS_VM', source: 'esx', target: 'vm' }],
      software: [{ asset: 'db', packageName: 'openssl', version: '3.0.1' }],
    }));
    const first = await history(ids.vm as string);
    expect(new Set(first.map((e) => JSON.stringify(tuple(e))))).toEqual(new Set([
      ['STATUS', 'status', null, 'ACTIVE', 'cmdb', null, null],
      ['FACT', 'assetType', null, 'VM', 'import:cmdb', null, null],
      ['FACT', 'displayName', null, 'vm-01', 'import:cmdb', null, null],
      ['FACT', 'serialNumber', null, 'HIST-VM', 'import:cmdb', null, null],
      ['RELATIONSHIP_ADDED', 'HOSTS_VM', null, null, 'cmdb', null, `HOSTS_VM INCOMING ${ids.esx}`],
    ].map((t) => JSON.stringify(t))));

    // A sighting adds nothing; a rename and a new custom attribute do, on top.
    await importBundle({ assets: [{ key: 'vm', assetType: 'VM', displayName: 'vm-01', serialNumber: 'HIST-VM' }] });
    expect(await history(ids.vm as string)).toEqual(first);
    await importBundle({ assets: [{ key: 'vm', assetType: 'VM', displayName: 'vm-01-renamed', serialNumber: 'HIST-VM', customAttributes: { owner: 'team-a' } }] });
    const renamed = await history(ids.vm as string);
    expect(new Set(added(renamed, first).map((t) => JSON.stringify(t)))).toEqual(new Set([
      ['FACT', 'displayName', 'vm-01', 'vm-01-renamed', 'import:cmdb', null, null],
      ['FACT', 'custom.owner', null, 'team-a', 'import:cmdb', null, null],
    ].map((t) => JSON.stringify(t))));
    const times = renamed.map((e) => Date.parse(e.changedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('lists a decommissioning and a reactivation with their actor, and the edges they made inactive and active again', async () => {
    const before = await history(ids.vm as string);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.vm}/decommission`)).status).toBe(200);
    const decommissioned = await history(ids.vm as string);
    expect(added(decommissioned, before)).toEqual([
      ['STATUS', 'status', 'ACTIVE', 'DECOMMISSIONED', null, 'USER:discovery-admin', null],
      ['RELATIONSHIP_RETIRED', 'HOSTS_VM', null, null, null, 'USER:discovery-admin', `HOSTS_VM INCOMING ${ids.esx}`],
    ]);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.vm}/reactivate`)).status).toBe(200);
    expect(added(await history(ids.vm as string), decommissioned)).toEqual([
      ['STATUS', 'status', 'DECOMMISSIONED', 'ACTIVE', null, 'USER:discovery-admin', null],
      ['RELATIONSHIP_ADDED', 'HOSTS_VM', null, null, null, 'USER:discovery-admin', `HOSTS_VM INCOMING ${ids.esx}`],
    ]);
    // The other end saw the same edge go and come back.
    expect((await history(ids.esx as string)).slice(0, 2).map(tuple)).toEqual([
      ['RELATIONSHIP_ADDED', 'HOSTS_VM', null, null, null, 'USER:discovery-admin', `HOSTS_VM OUTGOING ${ids.vm}`],
      ['RELATIONSHIP_RETIRED', 'HOSTS_VM', null, null, null, 'USER:discovery-admin', `HOSTS_VM OUTGOING ${ids.vm}`],
    ]);
  });

  it('lists an edge retired by a complete read and restored by the next, with the source that read it', async () => {
    await discover(['10.9.0.2']);
    const opened = await history(ids.db as string, '&field=COMMUNICATES_WITH');
    expect(opened.map(tuple)).toEqual([['RELATIONSHIP_ADDED', 'COMMUNICATES_WITH', null, null, 'discovery', null, expect.stringMatching(/^COMMUNICATES_WITH INCOMING /)]]);
    await discover([]);
    const retired = await history(ids.db as string, '&field=COMMUNICATES_WITH');
    expect(added(retired, opened)).toEqual([['RELATIONSHIP_RETIRED', 'COMMUNICATES_WITH', null, null, 'discovery', null, expect.stringMatching(/^COMMUNICATES_WITH INCOMING /)]]);
    await discover(['10.9.0.2']);
    const restored = await history(ids.db as string, '&field=COMMUNICATES_WITH');
    expect(added(restored, retired)).toEqual([['RELATIONSHIP_ADDED', 'COMMUNICATES_WITH', null, null, 'discovery', null, expect.stringMatching(/^COMMUNICATES_WITH INCOMING /)]]);
    expect(new Set(restored.map((e) => e.relationship?.id)).size).toBe(1);
  });

  it('lists a fact a rescan changed, with the method that read it', async () => {
    const app = (restoredEdge: Entry) => restoredEdge.relationship?.otherAsset?.id as string;
    const [edge] = await history(ids.db as string, '&field=COMMUNICATES_WITH');
    const before = await history(app(edge as Entry));
    await discover(['10.9.0.2'], 'app-02');
    expect(added(await history(app(edge as Entry)), before)).toEqual([['FACT', 'hostname', 'app-01', 'app-02', 'ssh', null, null]]);
  });

  it("lists a package's version change on the package's own history", async () => {
    const packages = await api.get(`/api/v1/assets?type=SOFTWARE_PACKAGE&q=openssl&size=10`);
    const openssl = (packages.body.data as { id: string; parent?: { id: string } }[]).find((row) => row.parent?.id === ids.db);
    expect(openssl).toBeDefined();
    const id = (openssl as { id: string }).id;
    expect(await history(id)).toEqual([]);
    await importBundle({ assets: [{ key: 'db', assetType: 'SERVER', displayName: 'db-01', serialNumber: 'HIST-DB', ipAddresses: ['10.9.0.2'] }], software: [{ asset: 'db', packageName: 'openssl', version: '3.0.2' }] });
    expect((await history(id)).map(tuple)).toEqual([['FACT', 'version', '3.0.1', '3.0.2', 'cmdb', null, null]]);
  });

  it('pages the same entries through next, prev and last, and filters by field and time', async () => {
    const all = await history(ids.vm as string);
    expect(all.length).toBeGreaterThan(5);
    expect(await history(ids.vm as string, '', 2)).toEqual(all);

    const page0 = await api.get(`/api/v1/assets/${ids.vm}/history?size=2`);
    expect(page0.body.total).toBe(all.length);
    const page1 = await api.get(local(page0.body.links.next));
    expect(page1.body.data).toEqual(all.slice(2, 4));
    expect((await api.get(local(page1.body.links.prev))).body.data).toEqual(all.slice(0, 2));
    const last = await api.get(local(page0.body.links.last));
    expect(last.body.data).toEqual(all.slice(Math.floor((all.length - 1) / 2) * 2));
    expect((await api.get(`/api/v1/assets/${ids.vm}/history?size=2&page=1`)).body.data).toEqual(all.slice(2, 4));

    expect((await history(ids.vm as string, '&field=displayName,status')).map((e) => e.field)).toEqual(all.filter((e) => ['displayName', 'status'].includes(e.field)).map((e) => e.field));
    const middle = all[Math.floor(all.length / 2)] as Entry;
    const from = (await history(ids.vm as string, `&from=${encodeURIComponent(middle.changedAt)}`));
    expect(from).toEqual(all.filter((e) => e.changedAt >= middle.changedAt));
    const to = (await history(ids.vm as string, `&to=${encodeURIComponent(middle.changedAt)}`));
    expect(to).toEqual(all.filter((e) => e.changedAt < middle.changedAt));
  });

  it('answers an asset as it was at a time: its facts, status and parent then', async () => {
    const all = await history(ids.vm as string);
    const first = (kind: string, field: string, newValue?: unknown) => all.filter((e) => e.kind === kind && e.field === field && (newValue === undefined || e.newValue === newValue)).at(-1) as Entry;
    const before = (e: Entry) => new Date(Date.parse(e.changedAt) - 1).toISOString();
    const asset = async (at: string) => (await api.get(`/api/v1/assets/${ids.vm}?at=${encodeURIComponent(at)}`)).body.data;

    const rename = first('FACT', 'displayName', 'vm-01-renamed');
    expect(await asset(before(rename))).toMatchObject({ displayName: 'vm-01', customAttributes: '{}', status: 'ACTIVE', parent: { id: ids.esx, via: 'HOSTS_VM' } });
    expect(await asset(rename.changedAt)).toMatchObject({ displayName: 'vm-01-renamed', customAttributes: '{"owner":"team-a"}', status: 'ACTIVE', lastSeenAt: null });

    const decommissioned = first('STATUS', 'status', 'DECOMMISSIONED');
    const gone = await asset(decommissioned.changedAt);
    expect(gone).toMatchObject({ status: 'DECOMMISSIONED', decommissionedAt: decommissioned.changedAt, updatedAt: decommissioned.changedAt });
    expect(gone.parent).toBeUndefined();
    expect(await asset(before(decommissioned))).toMatchObject({ status: 'ACTIVE', decommissionedAt: null, parent: { id: ids.esx } });

    // Not yet there; before the history's horizon; now as now.
    const created = first('STATUS', 'status', 'ACTIVE');
    const missing = await api.get(`/api/v1/assets/${ids.vm}?at=${encodeURIComponent(before(created))}`);
    expect(missing.status).toBe(404);
    const gone410 = await api.get(`/api/v1/assets/${ids.vm}?at=${encodeURIComponent('2000-01-01T00:00:00Z')}`);
    expect(gone410.status).toBe(410);
    expect(gone410.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(gone410.body.detail).toMatch(/History is kept from \d{4}-\d\d-\d\dT/);
    const now = (await api.get(`/api/v1/assets/${ids.vm}`)).body.data;
    expect(await asset(new Date(Date.now() + 60_000).toISOString())).toMatchObject({ displayName: now.displayName, status: now.status, customAttributes: now.customAttributes, parent: now.parent });
  });

  it("answers a package with the version it had then", async () => {
    const packages = await api.get(`/api/v1/assets?type=SOFTWARE_PACKAGE&q=openssl&size=10`);
    const id = (packages.body.data as { id: string; parent?: { id: string } }[]).find((row) => row.parent?.id === ids.db)?.id as string;
    const [upgrade] = await history(id);
    const at = (time: number) => api.get(`/api/v1/assets/${id}?at=${encodeURIComponent(new Date(time).toISOString())}`);
    const old = await at(Date.parse((upgrade as Entry).changedAt) - 1);
    expect({ status: old.status, body: old.body }).toMatchObject({ status: 200, body: { data: { model: '3.0.1' } } });
    expect((await at(Date.parse((upgrade as Entry).changedAt))).body.data.model).toBe('3.0.2');
  });

  it('walks the neighbourhood as it was, and lists what appeared, disappeared and changed between two times', async () => {
    const all = await history(ids.vm as string);
    const entry = (kind: string, field: string, newValue?: unknown) => all.filter((e) => e.kind === kind && e.field === field && (newValue === undefined || e.newValue === newValue)).at(-1) as Entry;
    const decommissioned = Date.parse(entry('STATUS', 'status', 'DECOMMISSIONED').changedAt);
    const renamed = Date.parse(entry('FACT', 'displayName', 'vm-01-renamed').changedAt);
    const iso = (t: number) => encodeURIComponent(new Date(t).toISOString());
    const neighbors = async (at: number) => (await api.get(`/api/v1/topology/${ids.esx}/neighbors?depth=1&at=${iso(at)}`)).body.data;

    const beforeRename = await neighbors(renamed - 1);
    expect(beforeRename.nodes.map((n: { id: string; displayName: string; status: string }) => [n.id, n.displayName, n.status])).toEqual([[ids.esx, 'esx-01', 'ACTIVE'], [ids.vm, 'vm-01', 'ACTIVE']]);
    expect(beforeRename.edges.map((e: { type: string; source: string; target: string }) => [e.type, e.source, e.target])).toEqual([['HOSTS_VM', ids.esx, ids.vm]]);
    expect(beforeRename.interfaceLinks).toEqual([]);
    expect((await neighbors(decommissioned)).nodes.map((n: { id: string }) => n.id)).toEqual([ids.esx]);

    const changes = async (from: number, to: number) => (await api.get(`/api/v1/topology/${ids.esx}/changes?depth=1&from=${iso(from)}&to=${iso(to)}`)).body.data;
    const renamedOnly = await changes(renamed - 1, renamed);
    expect(renamedOnly.assets).toEqual([{ id: ids.vm, displayName: 'vm-01-renamed', assetType: 'VM', assetCategory: 'HOST', change: 'CHANGED', changedFields: ['custom.owner', 'displayName'] }]);
    expect(renamedOnly.edges).toEqual([]);
    const vmGone = await changes(decommissioned - 1, decommissioned);
    expect(vmGone.assets).toEqual([{ id: ids.vm, displayName: 'vm-01-renamed', assetType: 'VM', assetCategory: 'HOST', change: 'DISAPPEARED', changedFields: [] }]);
    expect(vmGone.edges).toEqual([expect.objectContaining({ type: 'HOSTS_VM', source: ids.esx, target: ids.vm, change: 'DISAPPEARED' })]);
    const back = await changes(decommissioned, Date.now() + 60_000);
    expect(back.assets.map((a: { id: string; change: string }) => [a.id, a.change])).toEqual([[ids.vm, 'APPEARED']]);

    expect((await api.get(`/api/v1/topology/${ids.esx}/neighbors?at=${iso(renamed)}&followInterfaceLinks=true`)).status).toBe(400);
    expect((await api.get(`/api/v1/topology/${ids.esx}/changes?from=${iso(renamed)}&to=${iso(renamed - 1)}`)).status).toBe(400);
    expect((await api.get(`/api/v1/topology/${ids.esx}/changes?from=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).status).toBe(410);
  });

  it('agrees with the change feed: the assets and relationships the feed lists as changed are those with history, and each edge has its entries', async () => {
    interface Item { entity: 'ASSET' | 'RELATIONSHIP'; id: string; relationship?: { sourceAssetId: string; targetAssetId: string } }
    const items: Item[] = [];
    for (let after = '0', more = true; more;) {
      const page = (await api.get(`/api/v1/changes?after=${after}&limit=100`)).body;
      items.push(...page.data);
      ({ cursor: after, more } = page);
    }
    const graphAssets: string[] = (await api.get('/api/v1/assets?size=1000')).body.data.map((a: { id: string }) => a.id);
    const histories = new Map(await Promise.all(graphAssets.map(async (id) => [id, await history(id)] as const)));
    const fromFeed = new Set(items.flatMap((i) => (i.relationship ? [i.relationship.sourceAssetId, i.relationship.targetAssetId] : [i.id])));
    expect(new Set([...histories].filter(([, entries]) => entries.length > 0).map(([id]) => id))).toEqual(fromFeed);
    for (const { id, relationship } of items.filter((i) => i.entity === 'RELATIONSHIP')) {
      for (const end of [relationship?.sourceAssetId, relationship?.targetAssetId]) {
        expect({ end, added: histories.get(end as string)?.some((e) => e.kind === 'RELATIONSHIP_ADDED' && e.relationship?.id === id) }).toEqual({ end, added: true });
      }
    }
  });

  it('answers 404 for no such asset and 400 for a cursor or time it did not give, and writes nothing', async () => {
    const before = await history(ids.vm as string);
    const missing = await api.get('/api/v1/assets/00000000-0000-4000-8000-000000000000/history');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const foreign = Buffer.from(JSON.stringify({ after: ['web-01'] })).toString('base64url');
    expect((await api.get(`/api/v1/assets/${ids.vm}/history?cursor=${foreign}`)).status).toBe(400);
    expect((await api.get(`/api/v1/assets/${ids.vm}/history?from=yesterday`)).status).toBe(400);
    expect((await api.get(`/api/v1/assets/${ids.vm}/history?field=${'x'.repeat(201)}`)).status).toBe(400);
    expect(await history(ids.vm as string)).toEqual(before);
  });

  // Last: it removes history the tests above read.
  it('removes what is older than the retention and nothing a read from the cutoff on needs', async () => {
    const all = await history(ids.vm as string);
    const decommissioned = all.find((e) => e.kind === 'STATUS' && e.newValue === 'DECOMMISSIONED') as Entry;
    const cutoff = new Date(decommissioned.changedAt);
    const at = (time: Date) => api.get(`/api/v1/assets/${ids.vm}?at=${encodeURIComponent(time.toISOString())}`);
    const atCutoff = (await at(cutoff)).body.data;
    const neighborsAtCutoff = (await api.get(`/api/v1/topology/${ids.esx}/neighbors?at=${encodeURIComponent(cutoff.toISOString())}`)).body.data;

    const removed = await service.running.container.historyRetention.removeOlder(cutoff, 2);
    expect(removed).toBeGreaterThan(0);

    // Everything from the cutoff on stays. Of what is older: the last status, each source's last
    // value of each field that still had one, and the start of each edge period that ended at or after the cutoff.
    const kept = await history(ids.vm as string);
    const older = all.filter((e) => e.changedAt < decommissioned.changedAt);
    expect(kept.slice(0, all.length - older.length)).toEqual(all.slice(0, all.length - older.length));
    const lastOf = new Map<string, Entry>();
    for (const e of [...older].reverse()) if (e.kind === 'FACT' || e.kind === 'STATUS') lastOf.set(e.kind === 'FACT' ? `${e.field} ${e.source}` : 'status', e);
    const openAtCutoff = older.filter((e) => e.kind === 'RELATIONSHIP_ADDED' && !older.some((r) => r.kind === 'RELATIONSHIP_RETIRED' && r.relationship?.id === e.relationship?.id && r.changedAt >= e.changedAt));
    expect(new Set(kept.slice(all.length - older.length).map((e) => JSON.stringify(e)))).toEqual(new Set([...[...lastOf.values()].filter((e) => e.newValue !== null), ...openAtCutoff].map((e) => JSON.stringify(e))));

    // The reads from the cutoff on answer as before; before it, 410.
    expect((await at(cutoff)).body.data).toEqual(atCutoff);
    expect((await api.get(`/api/v1/topology/${ids.esx}/neighbors?at=${encodeURIComponent(cutoff.toISOString())}`)).body.data).toEqual(neighborsAtCutoff);
    expect((await at(new Date(cutoff.getTime() - 1))).status).toBe(410);
    expect(await service.running.container.historyRetention.removeOlder(cutoff, 2)).toBe(0);
  });
});
