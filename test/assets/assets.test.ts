import { ApiClient } from '../support/api-client.js';
import { ESTATE, importEstate, type EstateIds } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('assets over the graph', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let ids: EstateIds;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
    ids = await importEstate(p.integrationKey);
  });
  afterAll(() => service.stop());

  const names = (res: { body: { data: { displayName: string }[] } }) => res.body.data.map((a) => a.displayName);

  describe('GET /assets', () => {
    it('returns asset rows with the fields of docs/interface.md §2.2 in the one list envelope', async () => {
      const res = await api.get('/api/v1/assets?q=web-01');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 1, page: 0, pageSize: 50, size: 50, totalElements: 1, meta: { totalCount: 1, page: 0, size: 50 } });
      expect(res.body.data[0]).toMatchObject({
        id: ids.vm1, displayName: 'web-01', assetType: 'VM', assetCategory: 'HOST', assetCategoryLabel: 'Host', assetSubtype: 'VM',
        assetSubtypeLabel: 'Virtual Machine', virtual: true, status: 'ACTIVE', consecutiveScanFailures: 0, lastScanOutcome: null,
        hostname: 'web-01', fqdn: 'web-01.lab.example.com', site: 'paris', environment: 'production',
      });
      expect(JSON.parse(res.body.data[0].customAttributes)).toEqual({ powerState: 'poweredOn', cpuCount: 4 });
    });

    it('gives virtual true for VM and CONTAINER, false for physical hosts, null outside HOST', async () => {
      const rows = (await api.get('/api/v1/assets?size=100')).body.data as { assetType: string; virtual: boolean | null }[];
      const virtual = Object.fromEntries(rows.map((r) => [r.assetType, r.virtual]));
      expect(virtual).toMatchObject({ VM: true, CONTAINER: true, PHYSICAL_HOST: false, HYPERVISOR: false, NETWORK_DEVICE: null, CLOUD_DATABASE: null });
    });

    it.each([
      ['type', 'type=VM', ['db-01', 'web-01']],
      ['type list (OR)', 'type=VM,PRINTER', ['db-01', 'printer-3f', 'web-01']],
      ['category', 'category=STORAGE', ['datastore-ssd', 'pool-a']],
      ['category list', 'category=PRINTER,CLUSTER', ['cluster-a', 'printer-3f']],
      ['site', 'site=berlin', ['bare-01', 'db-01']],
      ['environment', 'environment=staging', ['db-01']],
      ['site list and type together (AND)', 'site=paris,berlin&type=VM', ['db-01', 'web-01']],
      ['q on the display name', 'q=ORDERS', ['orders-db', 'orders-stack']],
      ['q on the FQDN', 'q=vcenter-01.lab', ['vcenter-01']],
      ['q on the host name', 'q=bare', ['bare-01']],
      ['status', 'status=ACTIVE&type=CLUSTER', ['cluster-a']],
    ])('filters by %s', async (_what, query, expected) => {
      expect(names(await api.get(`/api/v1/assets?${query}`))).toEqual(expected);
    });

    it('sorts by an allowed field in either direction, and refuses another field', async () => {
      expect(names(await api.get('/api/v1/assets?type=VM&sort=displayName,desc'))).toEqual(['web-01', 'db-01']);
      expect(names(await api.get('/api/v1/assets?type=VM,PRINTER&sort=assetType'))).toEqual(['printer-3f', 'db-01', 'web-01']);
      expect((await api.get('/api/v1/assets?sort=serialNumber')).status).toBe(400);
    });

    it('refuses an unknown type, category or status with a 400', async () => {
      for (const q of ['type=TOASTER', 'category=KITCHEN', 'status=SLEEPING', 'page=-1', 'size=0', 'colour=red']) {
        const res = await api.get(`/api/v1/assets?${q}`);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      }
    });

    describe('links (docs/interface.md §4.8)', () => {
      const links = async (query: string) => (await api.get(`/api/v1/assets?${query}`)).body.links as Record<string, string>;
      const pageOf = (url: string) => new URL(url).searchParams.get('page');

      it('has only first on a single page, equal to the one page', async () => {
        const l = await links('type=VM');
        expect(Object.keys(l)).toEqual(['first']);
        expect(pageOf(l.first as string)).toBe('0');
      });

      it('has first, next and last on the first of several pages', async () => {
        const l = await links('size=5&sort=displayName');
        expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next']);
        expect([pageOf(l.first as string), pageOf(l.next as string), pageOf(l.last as string)]).toEqual(['0', '1', '4']);
      });

      it('has all four in the middle and no next on the last page', async () => {
        const middle = await links('size=5&page=2');
        expect(Object.keys(middle).sort()).toEqual(['first', 'last', 'next', 'prev']);
        expect([pageOf(middle.prev as string), pageOf(middle.next as string)]).toEqual(['1', '3']);
        const last = await links('size=5&page=4');
        expect(Object.keys(last).sort()).toEqual(['first', 'last', 'prev']);
      });

      it('keeps every other parameter the caller sent, as absolute URLs', async () => {
        const l = await links('q=0&size=1&sort=displayName,desc&environment=production');
        const next = new URL(l.next as string);
        expect(next.origin).toBe(new URL(service.url).origin);
        expect(next.pathname).toBe('/api/v1/assets');
        expect(Object.fromEntries(next.searchParams)).toEqual({ q: '0', size: '1', sort: 'displayName,desc', environment: 'production', page: '1', cursor: expect.any(String) });
      });

      it('lets a client follow next to the end and see every asset once', async () => {
        const seen: string[] = [];
        let url: string | undefined = `${service.url}/api/v1/assets?size=4`;
        while (url) {
          const res: { body: { data: { id: string }[]; links: { next?: string } } } = await api.get(url.replace(service.url, ''));
          seen.push(...res.body.data.map((a) => a.id));
          url = res.body.links.next;
        }
        expect(seen).toHaveLength(ESTATE.assets.length);
        expect(new Set(seen).size).toBe(ESTATE.assets.length);
      });
    });
  });

  describe('GET /assets/values', () => {
    const values = async (query: string) => (await api.get(`/api/v1/assets/values?${query}`)).body as { data: { value: string; count: number }[]; field: string; limit: number; capped: boolean };

    it('lists the sites and environments the assets hold, most common first, each counted as the list filtered by it counts', async () => {
      const sites = await values('field=site');
      expect(sites).toEqual({ data: [{ value: 'paris', count: 4 }, { value: 'berlin', count: 2 }], field: 'site', limit: 200, capped: false });
      const environments = await values('field=environment');
      expect(environments.data).toEqual([{ value: 'production', count: 3 }, { value: 'staging', count: 1 }]);
      for (const [field, filter] of [['site', sites], ['environment', environments]] as const) {
        for (const { value, count } of filter.data) expect((await api.get(`/api/v1/assets?${field}=${encodeURIComponent(value)}&size=1`)).body.total).toBe(count);
      }
    });

    it('caps the values at limit and says so, lowers a limit above 1000, and takes a value as data, not as part of the query', async () => {
      expect(await values('field=site&limit=1')).toEqual({ data: [{ value: 'paris', count: 4 }], field: 'site', limit: 1, capped: true });
      expect((await values('field=site&limit=5000')).limit).toBe(1000);
      const odd = "o'hare\" } RETURN 1 //";
      expect((await p.integrationKey.post('/api/v1/import', { source: 'values-test', assets: [{ key: 'odd', assetType: 'PRINTER', displayName: 'odd-site-printer', site: odd }] })).status).toBe(200);
      expect((await values('field=site')).data).toContainEqual({ value: odd, count: 1 });
    });

    it('refuses a field that is not listed, and a request without one', async () => {
      for (const query of ['field=serialNumber', 'field=a.site', '', 'field=site&limit=0']) {
        const res = await api.get(`/api/v1/assets/values?${query}`);
        expect([query, res.status, res.headers.get('content-type')]).toEqual([query, 400, expect.stringContaining('application/problem+json')]);
      }
    });
  });

  describe('parents (docs/interface.md §2.4)', () => {
    it.each([
      ['VM', 'vm1', 'esx1', 'HOSTS_VM'],
      ['CONTAINER', 'ctr', 'vm1', 'HOSTS_CONTAINER'],
      ['HYPERVISOR', 'esx1', 'vc', 'MANAGED_BY'],
      ['SOFTWARE', 'sw', 'vm2', 'RUNS_ON'],
      ['SERVICE', 'svc', 'phys', 'RUNS_ON'],
      ['DATASTORE (USES_DATASTORE from a hypervisor)', 'ds', 'esx1', 'USES_DATASTORE'],
      ['STORAGE_POOL (CONTAINS from a host)', 'pool', 'phys', 'CONTAINS'],
      ['VSWITCH', 'vsw', 'esx1', 'CONTAINS'],
      ['PORT_GROUP', 'pg', 'esx1', 'CONTAINS'],
      ['NETWORK', 'net', 'phys', 'CONTAINS'],
      ['CLOUD_REGION', 'region', 'acct', 'CONTAINS'],
      ['CLOUD_DATABASE', 'rds', 'region', 'CONTAINS'],
      ['CLOUD_STORAGE', 's3', 'region', 'CONTAINS'],
      ['CLOUD_LOAD_BALANCER (in an account)', 'lb', 'acct', 'CONTAINS'],
      ['CLOUD_STACK', 'stack', 'region', 'CONTAINS'],
    ])('gives a %s its parent, in the list and the detail', async (_type, child, parent, via) => {
      const detail = await api.get(`/api/v1/assets/${ids[child]}`);
      const expected = { id: ids[parent], via, displayName: expect.any(String), assetType: expect.any(String), assetCategory: expect.any(String) };
      expect(detail.body.data.parent).toEqual(expected);
      const listed = (await api.get('/api/v1/assets?size=100')).body.data.find((a: { id: string }) => a.id === ids[child]);
      expect(listed.parent).toEqual(expected);
    });

    it.each(['phys', 'sw1', 'printer', 'acct', 'vc', 'cluster', 'unknown'])('gives the root %s no parent field at all', async (key) => {
      const detail = await api.get(`/api/v1/assets/${ids[key]}`);
      expect(detail.body.data).not.toHaveProperty('parent');
    });

    it('ignores an edge in the wrong direction or to a parent of the wrong kind', async () => {
      const bundle = {
        source: 'direction-check',
        assets: [
          { key: 'h', assetType: 'HYPERVISOR', displayName: 'hv-wrong', serialNumber: 'HV-WRONG-1' },
          { key: 'v', assetType: 'VM', displayName: 'vm-wrong', serialNumber: 'VM-WRONG-1' },
          { key: 'p', assetType: 'PRINTER', displayName: 'printer-wrong', serialNumber: 'PR-WRONG-1' },
          { key: 's', assetType: 'SOFTWARE', displayName: 'sw-wrong', serialNumber: 'SW-WRONG-1' },
        ],
        relationships: [
          { type: 'HOSTS_VM', source: 'v', target: 'h' },
          { type: 'RUNS_ON', source: 's', target: 'p' },
        ],
      };
      const wrong = await importEstate(p.integrationKey, bundle);
      expect((await api.get(`/api/v1/assets/${wrong.v}`)).body.data).not.toHaveProperty('parent');
      expect((await api.get(`/api/v1/assets/${wrong.s}`)).body.data).not.toHaveProperty('parent');
    });
  });

  describe('GET /relationships and /assets/{id}/relationships', () => {
    it('returns rows of docs/interface.md §2.5 filtered by type and categories, active only by default', async () => {
      const res = await api.get('/api/v1/relationships?type=RUNS_ON&sourceCategory=SOFTWARE&targetCategory=HOST');
      expect(res.status).toBe(200);
      expect(res.body.pageSize).toBe(200);
      expect(res.body.data).toHaveLength(2);
      expect(res.body.data.find((r: { sourceAssetId: string }) => r.sourceAssetId === ids.sw)).toMatchObject({
        relationshipType: 'RUNS_ON', active: true, sourceDisplayName: 'PostgreSQL 16', sourceAssetType: 'SOFTWARE', sourceAssetCategory: 'SOFTWARE',
        targetAssetId: ids.vm2, targetDisplayName: 'db-01', targetAssetType: 'VM', targetAssetCategory: 'HOST', sources: ['test-fixture'],
      });
      expect((await api.get('/api/v1/relationships?type=RUNS_ON&targetCategory=CLOUD')).body.total).toBe(0);
    });

    it('caps the page size at 1000 and refuses an unknown type', async () => {
      expect((await api.get('/api/v1/relationships?size=5000')).body.pageSize).toBe(1000);
      expect((await api.get('/api/v1/relationships?type=LOVES')).status).toBe(400);
    });

    it('lists the relationships of one asset, either end', async () => {
      const res = await api.get(`/api/v1/assets/${ids.esx1}/relationships`);
      expect(res.body.total).toBe(6);
      expect((await api.get(`/api/v1/assets/${ids.esx1}/relationships?type=HOSTS_VM`)).body.total).toBe(2);
      expect((await api.get('/api/v1/assets/00000000-0000-4000-8000-000000000000/relationships')).status).toBe(404);
    });
  });

  describe('GET /topology/{id}/neighbors', () => {
    it('returns the nodes within depth hops with their depth, and the edges between them', async () => {
      const one = await api.get(`/api/v1/topology/${ids.vm1}/neighbors?depth=1`);
      expect(one.status).toBe(200);
      const depthOf = (res: typeof one) => Object.fromEntries(res.body.data.nodes.map((n: { id: string; depth: number }) => [n.id, n.depth]));
      expect(depthOf(one)).toEqual({ [ids.vm1 as string]: 0, [ids.esx1 as string]: 1, [ids.ctr as string]: 1, [ids.vm2 as string]: 1 });
      expect(one.body.data.root.id).toBe(ids.vm1);
      expect(one.body.data.truncated).toBe(false);
      const two = await api.get(`/api/v1/topology/${ids.vm1}/neighbors`);
      expect(depthOf(two)[ids.vc as string]).toBe(2);
      expect(depthOf(two)[ids.sw as string]).toBe(2);
      expect(two.body.data.edges.length).toBeGreaterThan(one.body.data.edges.length);
      const five = await api.get(`/api/v1/topology/${ids.vm1}/neighbors?depth=5`);
      expect(Object.keys(depthOf(five)).length).toBeGreaterThanOrEqual(Object.keys(depthOf(two)).length);
    });

    it('refuses a depth outside 1 to 5, and answers 404 for an unknown asset', async () => {
      for (const depth of ['0', '6', 'two']) expect((await api.get(`/api/v1/topology/${ids.vm1}/neighbors?depth=${depth}`)).status).toBe(400);
      expect((await api.get('/api/v1/topology/00000000-0000-4000-8000-000000000000/neighbors')).status).toBe(404);
    });

    it('stops at the node cap and says so', async () => {
      const assets = [{ key: 'hub', assetType: 'NETWORK_DEVICE', displayName: 'hub-switch', serialNumber: 'HUB-0001' }];
      const relationships = [];
      for (let i = 0; i < 520; i++) {
        assets.push({ key: `leaf${i}`, assetType: 'SERVER', displayName: `leaf-${i}`, serialNumber: `LEAF-${1000 + i}` });
        relationships.push({ type: 'COMMUNICATES_WITH', source: 'hub', target: `leaf${i}` });
      }
      const star = await importEstate(p.integrationKey, { source: 'star', assets, relationships });
      const res = await api.get(`/api/v1/topology/${star.hub}/neighbors?depth=1`);
      expect(res.body.data).toMatchObject({ truncated: true, nodeCap: 500 });
      expect(res.body.data.nodes).toHaveLength(500);
    });
  });

  describe('lifecycle (docs/interface.md §3.1)', () => {
    it('decommissions an active asset, makes its edges inactive, and refuses a second decommission', async () => {
      const res = await p.discoveryAdminSession.post(`/api/v1/assets/${ids.vm2}/decommission`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: ids.vm2, status: 'DECOMMISSIONED', decommissionedAt: expect.any(String) });
      const edges = await api.get(`/api/v1/assets/${ids.vm2}/relationships?activeOnly=false`);
      expect(edges.body.data.every((r: { active: boolean }) => !r.active)).toBe(true);
      expect((await api.get(`/api/v1/assets/${ids.vm2}/relationships`)).body.total).toBe(0);
      expect((await p.discoveryAdminSession.post(`/api/v1/assets/${ids.vm2}/decommission`)).status).toBe(409);
    });

    it('reactivates a decommissioned asset with its edges, and refuses to reactivate an active one', async () => {
      const res = await p.adminToken.post(`/api/v1/assets/${ids.vm2}/reactivate`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'ACTIVE', consecutiveScanFailures: 0, staleSince: null, decommissionedAt: null });
      expect((await api.get(`/api/v1/assets/${ids.vm2}/relationships`)).body.total).toBe(3);
      expect((await p.adminToken.post(`/api/v1/assets/${ids.vm2}/reactivate`)).status).toBe(409);
    });

    it.each(['STALE', 'INACTIVE'])('reactivates a %s asset, resets the failure counter and clears staleSince', async (status) => {
      await service.running.container.driver.executeQuery(
        'MATCH (a:Asset {id: $id}) SET a.status = $status, a.staleSince = datetime(), a.consecutiveScanFailures = 3',
        { id: ids.phys, status },
      );
      expect((await api.get(`/api/v1/assets/${ids.phys}`)).body.data).toMatchObject({ status, staleSince: expect.any(String), consecutiveScanFailures: 3 });
      const res = await p.discoveryAdminToken.post(`/api/v1/assets/${ids.phys}/reactivate`);
      expect(res.body.data).toMatchObject({ status: 'ACTIVE', staleSince: null, consecutiveScanFailures: 0 });
    });

    it('decommissions from STALE too, and keeps a DECOMMISSIONED asset so when it is imported again', async () => {
      await service.running.container.driver.executeQuery("MATCH (a:Asset {id: $id}) SET a.status = 'STALE'", { id: ids.printer });
      expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.printer}/decommission`)).body.data.status).toBe('DECOMMISSIONED');
      await importEstate(p.integrationKey);
      expect((await api.get(`/api/v1/assets/${ids.printer}`)).body.data.status).toBe('DECOMMISSIONED');
    });

    it('is refused to VIEWER and API_USER, and answers 404 for an unknown asset', async () => {
      expect((await p.viewer.post(`/api/v1/assets/${ids.vm1}/decommission`)).status).toBe(403);
      expect((await p.apiUserToken.post(`/api/v1/assets/${ids.vm1}/reactivate`)).status).toBe(403);
      expect((await p.adminToken.post('/api/v1/assets/00000000-0000-4000-8000-000000000000/decommission')).status).toBe(404);
      const audit = await p.adminSession.get(`/api/v1/audit-events?targetId=${ids.vm2}`);
      expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['asset.reactivate', 'asset.decommission']);
    });
  });

  describe('schema (docs/interface.md §2.7)', () => {
    it('lists every type, scoped by a category of any case', async () => {
      const all = await api.get('/api/v1/schema/asset-types');
      expect(all.body.data.length).toBe(29);
      const cloud = await api.get('/api/v1/schema/asset-types?category=cloud');
      expect(cloud.body.data.map((e: { type: string }) => e.type)).toEqual(['CLOUD_ACCOUNT', 'CLOUD_REGION', 'CLOUD_DATABASE', 'CLOUD_STORAGE', 'CLOUD_LOAD_BALANCER', 'CLOUD_STACK']);
      expect(cloud.body.data.every((e: { cloud: boolean }) => e.cloud)).toBe(true);
    });

    it('answers 400 for an unknown category and 404 for an unknown type', async () => {
      const res = await api.get('/api/v1/schema/asset-types?category=kitchen');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('query.category');
      expect((await api.get('/api/v1/schema/asset-types/TOASTER')).status).toBe(404);
    });

    it('describes a type with its parent rule, fields, child types and the custom attribute keys in the data', async () => {
      const hv = (await api.get('/api/v1/schema/asset-types/HYPERVISOR')).body.data;
      expect(hv).toMatchObject({
        type: 'HYPERVISOR', category: 'HOST', label: 'Hypervisor', isRoot: false, virtual: false, cloud: false,
        parent: { via: 'MANAGED_BY', direction: 'OUT', parentCategory: 'VIRTUALIZATION_MANAGER' },
        childTypes: ['VM', 'CONTAINER', 'DATASTORE', 'VSWITCH', 'PORT_GROUP'],
        customAttributeKeys: ['cpuCount', 'hypervisorProduct'],
      });
      expect(hv.typeFields[0]).toEqual({ name: 'id', type: 'string', description: expect.any(String) });
      const vm = (await api.get('/api/v1/schema/asset-types/VM')).body.data;
      expect(vm.parent).toEqual({ via: 'HOSTS_VM', viaAlternatives: [], direction: 'IN', parentCategory: 'HYPERVISOR', parentCategories: [], parentTypes: ['HYPERVISOR'] });
      // The rule's wording and, for clients, the qualifying categories and types as arrays.
      const datastore = (await api.get('/api/v1/schema/asset-types/DATASTORE')).body.data;
      expect(datastore.parent).toEqual({
        via: 'USES_DATASTORE', viaAlternatives: ['CONTAINS'], direction: 'IN', parentCategory: 'HOST or HYPERVISOR',
        parentCategories: ['HOST'], parentTypes: ['PHYSICAL_HOST', 'HYPERVISOR', 'VM', 'CONTAINER', 'SERVER'],
      });
      const region = (await api.get('/api/v1/schema/asset-types/CLOUD_DATABASE')).body.data;
      expect(region.parent).toMatchObject({ parentCategory: 'CLOUD_ACCOUNT or CLOUD_REGION', parentCategories: [], parentTypes: ['CLOUD_ACCOUNT', 'CLOUD_REGION'] });
      expect(vm.customAttributeKeys).toEqual(['cpuCount', 'powerState']);
      const root = (await api.get('/api/v1/schema/asset-types/PHYSICAL_HOST')).body.data;
      expect(root).toMatchObject({ isRoot: true, parent: null });
    });

    it('shows a custom attribute key as soon as an asset of the type holds it', async () => {
      const keys = async () => (await api.get('/api/v1/schema/asset-types/PRINTER')).body.data.customAttributeKeys;
      const before: string[] = await keys();
      // Read twice: the second answer may come from the keys kept while the graph is unchanged.
      expect(await keys()).toEqual(before);
      const printer = { key: 'p', assetType: 'PRINTER', displayName: 'printer-keys', serialNumber: 'SCHEMA-KEYS-P' };
      await importEstate(p.integrationKey, { source: 'schema-keys', assets: [{ ...printer, customAttributes: { tonerLevel: '40%' } }] });
      expect(await keys()).toEqual([...before, 'tonerLevel'].sort());
      await importEstate(p.integrationKey, { source: 'schema-keys', assets: [{ ...printer, customAttributes: { paperSize: 'A4' } }] });
      expect(await keys()).toEqual([...before, 'paperSize', 'tonerLevel'].sort());
    });
  });
});
