import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('synthesized assets through GET /assets', () => {
  let service: TestService;
  let api: ApiClient;
  let ids: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    const p = await createPrincipals(service.url);
    api = p.viewer;
    const res = await p.integrationKey.post('/api/v1/import', {
      source: 'synth',
      assets: [
        { key: 'web', assetType: 'SERVER', displayName: 'web-frontend', hostname: 'web', serialNumber: 'SYN-WEB', site: 'paris' },
        { key: 'db', assetType: 'VM', displayName: 'db-backend', hostname: 'db', serialNumber: 'SYN-DB', site: 'berlin' },
        { key: 'sw', assetType: 'NETWORK_DEVICE', displayName: 'core-sw', serialNumber: 'SYN-SW' },
      ],
      software: [
        { asset: 'web', packageName: 'nginx', version: '1.27.2', publisher: 'F5', packageManager: 'dpkg', installDate: '2026-01-05' },
        { asset: 'web', packageName: 'openssl', version: '3.0.15', publisher: 'OpenSSL Project' },
        { asset: 'db', packageName: 'postgresql-16', version: '16.4', publisher: 'PGDG' },
      ],
      processes: [
        { asset: 'db', pid: 812, processName: 'postgres', commandLine: '/usr/lib/postgresql/16/bin/postgres -D /srv/pgdata', username: 'postgres' },
        { asset: 'web', pid: 90, processName: 'nginx', commandLine: 'nginx: master process' },
      ],
      services: [{ asset: 'web', serviceName: 'nginx.service', displayName: 'A high performance web server', state: 'running', listenPorts: [{ protocol: 'tcp', port: 443 }] }],
      interfaces: [
        { asset: 'web', name: 'eth0', macAddress: '52:54:00:aa:bb:01', ipAddresses: ['10.1.0.5/24'], ifIndex: 2 },
        { asset: 'sw', name: 'Gi1/0/7', ifIndex: 7 },
      ],
      neighbors: [{ asset: 'sw', localPort: 'Gi1/0/7', remotePort: 'eth0', remoteAsset: 'web' }],
    });
    ids = Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
  });
  afterAll(() => service.stop());

  const list = async (query: string) => (await api.get(`/api/v1/assets?${query}`)).body;

  it('lists SOFTWARE_PACKAGE rows with the row rules of docs/interface.md §2.11 and the host as parent (RUNS_ON)', async () => {
    const body = await list('type=SOFTWARE_PACKAGE');
    expect(body.total).toBe(3);
    const nginx = body.data.find((r: { displayName: string }) => r.displayName === 'nginx');
    expect(nginx).toMatchObject({
      assetType: 'SOFTWARE_PACKAGE', assetCategory: 'SOFTWARE', assetSubtype: 'SOFTWARE_PACKAGE', virtual: null, status: 'ACTIVE',
      vendor: 'F5', model: '1.27.2', parent: { id: ids.web, displayName: 'web-frontend', assetType: 'SERVER', assetCategory: 'HOST', via: 'RUNS_ON' },
    });
    expect(JSON.parse(nginx.customAttributes)).toMatchObject({ install_date: '2026-01-05', package_manager: 'dpkg' });
    const detail = await api.get(`/api/v1/assets/${nginx.id}`);
    expect(detail.body.data).toEqual(nginx);
  });

  it.each([
    ['SOFTWARE_PACKAGE by package name', 'type=SOFTWARE_PACKAGE&q=SSL', ['openssl']],
    ['SOFTWARE_PACKAGE by publisher', 'type=SOFTWARE_PACKAGE&q=pgdg', ['postgresql-16']],
    ['SOFTWARE_PACKAGE by host display name', 'type=SOFTWARE_PACKAGE&q=frontend', ['nginx', 'openssl']],
    ['RUNNING_PROCESS by command line', 'type=RUNNING_PROCESS&q=pgdata', ['postgres']],
    ['RUNNING_PROCESS by host display name', 'type=RUNNING_PROCESS&q=web-front', ['nginx']],
    ['DISCOVERED_SERVICE by service name', 'type=DISCOVERED_SERVICE&q=nginx.ser', ['nginx.service']],
    ['INTERFACE by MAC', 'type=INTERFACE&q=aa:bb:01', ['eth0']],
    ['INTERFACE by name', 'type=INTERFACE&q=gi1/0', ['Gi1/0/7']],
    ['INTERFACE by host display name', 'type=INTERFACE&q=core-sw', ['Gi1/0/7']],
  ])('matches q for %s', async (_what, query, expected) => {
    const body = await list(query);
    expect(body.data.map((r: { displayName: string }) => r.displayName).sort()).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  it('gives processes and services their host by RUNS_ON and interfaces theirs by HAS_INTERFACE, with what an interface is connected to', async () => {
    const proc = (await list('type=RUNNING_PROCESS&q=postgres')).data[0];
    expect(proc.parent).toMatchObject({ id: ids.db, via: 'RUNS_ON' });
    expect(JSON.parse(proc.customAttributes)).toMatchObject({ pid: 812, username: 'postgres' });
    const svc = (await list('type=DISCOVERED_SERVICE')).data[0];
    expect(svc.parent).toMatchObject({ id: ids.web, via: 'RUNS_ON' });
    expect(JSON.parse(svc.customAttributes).listen_ports).toEqual([{ port: 443, protocol: 'tcp' }]);
    const eth0 = (await list('type=INTERFACE&q=eth0')).data[0];
    expect(eth0).toMatchObject({ assetCategory: 'NETWORK', macAddresses: ['52:54:00:aa:bb:01'], ipAddresses: ['10.1.0.5/24'], parent: { id: ids.web, via: 'HAS_INTERFACE' } });
    expect(eth0.connectedTo).toEqual([{ assetId: ids.sw, assetDisplayName: 'core-sw', interfaceId: expect.any(String), port: 'Gi1/0/7', discoveredVia: 'LLDP', confidence: 1 }]);
    expect((await api.get(`/api/v1/assets/${eth0.id}`)).body.data.connectedTo).toHaveLength(1);
  });

  it('answers a synthesized id wherever an id is accepted: its relationships are the link to its host, its topology starts there', async () => {
    const pkg = (await list('type=SOFTWARE_PACKAGE&q=nginx')).data[0];
    const rels = await api.get(`/api/v1/assets/${pkg.id}/relationships`);
    expect(rels.status).toBe(200);
    expect(rels.body).toMatchObject({ total: 1, data: [{ relationshipType: 'RUNS_ON', active: true, sourceAssetId: pkg.id, sourceAssetType: 'SOFTWARE_PACKAGE', targetAssetId: ids.web, targetDisplayName: 'web-frontend' }] });
    // Stable: the same link id at each request.
    expect((await api.get(`/api/v1/assets/${pkg.id}/relationships`)).body.data[0].id).toBe(rels.body.data[0].id);
    expect((await api.get(`/api/v1/assets/${pkg.id}/relationships?type=HOSTS_VM`)).body.total).toBe(0);

    const one = (await api.get(`/api/v1/topology/${pkg.id}/neighbors?depth=1`)).body.data;
    expect(one.nodes.map((n: { id: string; depth: number }) => [n.id, n.depth])).toEqual([[pkg.id, 0], [ids.web, 1]]);
    expect(one.edges).toEqual([{ id: rels.body.data[0].id, type: 'RUNS_ON', source: pkg.id, target: ids.web }]);
    // Further out, through the host: the switch cabled to its interface is two hops away only by cable, not here.
    const nic = (await list('type=INTERFACE&q=eth0')).data[0];
    const fromNic = (await api.get(`/api/v1/topology/${nic.id}/neighbors?depth=2&followInterfaceLinks=true`)).body.data;
    expect(fromNic.edges[0]).toMatchObject({ type: 'HAS_INTERFACE', source: ids.web, target: nic.id });
    expect(fromNic.nodes.map((n: { id: string; depth: number }) => [n.id, n.depth])).toEqual([[nic.id, 0], [ids.web, 1], [ids.sw, 2]]);
    expect(fromNic.interfaceLinks).toHaveLength(1);
  });

  it('lists the rows of one host with hostId, and refuses hostId with graph types', async () => {
    const web = await list(`type=SOFTWARE_PACKAGE&hostId=${ids.web}`);
    expect(web.data.map((r: { displayName: string }) => r.displayName).sort()).toEqual(['nginx', 'openssl']);
    expect((await list(`type=INTERFACE&hostId=${ids.sw}`)).data.map((r: { displayName: string }) => r.displayName)).toEqual(['Gi1/0/7']);
    expect((await list(`type=SOFTWARE_PACKAGE&hostId=${ids.web}&site=berlin`)).total).toBe(0);
    expect((await api.get(`/api/v1/assets?type=VM&hostId=${ids.web}`)).status).toBe(400);
    expect((await api.get(`/api/v1/assets?hostId=${ids.web}`)).status).toBe(400);
  });

  it('pages over graph rows first, then each synthesized type in order, with one total and working links', async () => {
    const all = await list('type=SERVER,VM,SOFTWARE_PACKAGE,RUNNING_PROCESS&size=100');
    expect(all.total).toBe(2 + 3 + 2);
    expect(all.data.map((r: { assetType: string }) => r.assetType)).toEqual(['VM', 'SERVER', 'SOFTWARE_PACKAGE', 'SOFTWARE_PACKAGE', 'SOFTWARE_PACKAGE', 'RUNNING_PROCESS', 'RUNNING_PROCESS']);
    const seen: string[] = [];
    let url: string | undefined = '/api/v1/assets?type=SERVER,VM,SOFTWARE_PACKAGE,RUNNING_PROCESS&size=3';
    while (url) {
      const res: { body: { data: { id: string }[]; total: number; links: { next?: string } } } = await api.get(url);
      expect(res.body.total).toBe(7);
      seen.push(...res.body.data.map((r) => r.id));
      url = res.body.links.next?.replace(service.url, '');
    }
    expect(seen).toEqual(all.data.map((r: { id: string }) => r.id));
  });

  it('lists synthesized rows only when the type asks for them, and applies category, status and site', async () => {
    expect((await list('q=nginx')).total).toBe(0);
    expect((await list('type=SOFTWARE_PACKAGE&category=NETWORK')).total).toBe(0);
    expect((await list('type=SOFTWARE_PACKAGE&status=STALE')).total).toBe(0);
    expect((await list('type=SOFTWARE_PACKAGE&site=berlin')).data.map((r: { displayName: string }) => r.displayName)).toEqual(['postgresql-16']);
  });
});

describe('interface rows', () => {
  let service: TestService;
  let api: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    const p = await createPrincipals(service.url);
    api = p.viewer;
    await p.integrationKey.post('/api/v1/import', {
      source: 'ifaces',
      assets: [
        { key: 'b', assetType: 'SERVER', displayName: 'bravo', serialNumber: 'IF-B' },
        { key: 'a', assetType: 'SERVER', displayName: 'alpha', serialNumber: 'IF-A' },
      ],
      interfaces: [
        { asset: 'b', name: 'eth1', ifIndex: 3 },
        { asset: 'a', name: 'lo', ifIndex: 1 },
        { asset: 'b', name: 'eth0', ifIndex: 2 },
        { asset: 'a', name: 'eth9', ifIndex: 9 },
        { asset: 'a', name: 'bond0', ifIndex: 4 },
      ],
    });
  });
  afterAll(() => service.stop());

  it('are sorted by host name, then ifIndex (docs/interface.md §2.12), across pages', async () => {
    const order = (rows: { displayName: string; parent: { displayName: string } }[]) => rows.map((r) => `${r.parent.displayName}/${r.displayName}`);
    const all = (await api.get('/api/v1/assets?type=INTERFACE')).body.data;
    expect(order(all)).toEqual(['alpha/lo', 'alpha/bond0', 'alpha/eth9', 'bravo/eth0', 'bravo/eth1']);
    expect(order((await api.get('/api/v1/assets?type=INTERFACE&size=2&page=1')).body.data)).toEqual(['alpha/eth9', 'bravo/eth0']);
    expect(order((await api.get('/api/v1/assets?type=INTERFACE&q=eth')).body.data)).toEqual(['alpha/eth9', 'bravo/eth0', 'bravo/eth1']);
  });
});
