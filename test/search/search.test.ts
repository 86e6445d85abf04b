// The one search (GET /api/v1/search) over a demo estate: each group's count as the asset list counts
// the same text, hits found by name, address, MAC and serial number, the caps, and bad input.
import { demoEstate } from '../../src/tools/demo-estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Hit { id: string; displayName: string; assetType: string; detail: string | null; host: { id: string; displayName: string } | null }
interface Group { assetType: string; assetTypeLabel: string; total: number; capped: boolean; hits: Hit[] }
interface Asset { id: string; displayName: string; assetType: string; model: string | null; serialNumber: string | null; macAddresses: string[]; ipAddresses: string[]; parent?: { id: string; displayName: string } }

describe('one search across the inventory', () => {
  let service: TestService;
  let p: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    for (const bundle of demoEstate(100)) expect((await p.integrationKey.post('/api/v1/import', bundle)).status).toBe(200);
  }, 180_000);
  afterAll(() => service.stop());

  const search = async (query: string) => {
    const res = await p.viewer.get(`/api/v1/search?${query}`);
    expect(res.status).toBe(200);
    return res.body as { data: Group[]; q: string; limit: number };
  };
  const group = (groups: Group[], type: string) => groups.find((g) => g.assetType === type);
  const listed = async (query: string) => (await p.viewer.get(`/api/v1/assets?${query}&size=1`)).body.total as number;

  it('counts each sub-record kind as the asset list counts the same text, and shows a package with its version and host', async () => {
    const { data, limit } = await search('q=openssl');
    expect(limit).toBe(5);
    const packages = group(data, 'SOFTWARE_PACKAGE') as Group;
    expect(packages).toMatchObject({ assetTypeLabel: expect.any(String), total: await listed('type=SOFTWARE_PACKAGE&q=openssl'), capped: false });
    expect(packages.total).toBeGreaterThan(5);
    expect(packages.hits).toHaveLength(5);
    for (const hit of packages.hits) {
      const asset = (await p.viewer.get(`/api/v1/assets/${hit.id}`)).body.data as Asset;
      expect(hit).toEqual({ id: asset.id, displayName: 'openssl', assetType: 'SOFTWARE_PACKAGE', detail: asset.model, host: { id: asset.parent?.id, displayName: asset.parent?.displayName } });
    }
    for (const [q, type] of [['sshd', 'RUNNING_PROCESS'], ['chronyd', 'DISCOVERED_SERVICE'], ['eth0', 'INTERFACE']] as const) {
      expect({ q, total: group((await search(`q=${q}`)).data, type)?.total }).toEqual({ q, total: await listed(`type=${type}&q=${q}`) });
    }
  });

  it('finds assets of the graph by a part of their name, those whose name starts with it first, and counts them as the list does', async () => {
    const { data } = await search('q=vm-par&limit=20');
    const vms = group(data, 'VM') as Group;
    expect(vms.total).toBe(await listed('type=VM&q=vm-par'));
    expect(vms.hits.map((h) => h.displayName)).toEqual([...vms.hits.map((h) => h.displayName)].sort());
    const [host] = (await p.viewer.get('/api/v1/assets?type=SOFTWARE&q=nginx&size=1')).body.data as Asset[];
    // "inx" is inside "nginx": a name that holds it but does not start with it comes after one that does.
    expect((await p.integrationKey.post('/api/v1/import', { source: 'search-test', assets: [{ key: 'inx', assetType: 'PRINTER', displayName: 'zz-inx-printer' }, { key: 'inx2', assetType: 'PRINTER', displayName: 'inx-printer' }] })).status).toBe(200);
    const printers = group((await search('q=inx')).data, 'PRINTER') as Group;
    expect(printers.hits.map((h) => h.displayName)).toEqual(['inx-printer', 'zz-inx-printer']);
    expect(group((await search('q=inx')).data, 'SOFTWARE')?.hits.map((h) => h.displayName)).toContain(host?.displayName);
  });

  it('finds a host by its address, its MAC in any spelling and its serial number, and says what it was found by', async () => {
    const [host] = (await p.viewer.get('/api/v1/assets?type=PHYSICAL_HOST&size=1')).body.data as Asset[];
    const mac = host?.macAddresses[0] as string;
    const serial = host?.serialNumber as string;
    for (const [q, detail] of [[host?.ipAddresses[0], host?.ipAddresses[0]], [mac.toUpperCase().replace(/:/g, '-'), mac], [serial.toLowerCase(), serial], [serial.slice(0, 6), serial]]) {
      const found = group((await search(`q=${encodeURIComponent(q as string)}&limit=20`)).data, 'PHYSICAL_HOST');
      expect({ q, hit: found?.hits.find((h) => h.id === host?.id) }).toEqual({ q, hit: { id: host?.id, displayName: host?.displayName, assetType: 'PHYSICAL_HOST', detail, host: null } });
    }
  });

  it('stops counting a group at 1000 matches and says so; lowers a limit above 20', async () => {
    // Every package of the demo estate is published by Debian, which q searches.
    expect(await listed('type=SOFTWARE_PACKAGE&q=debian')).toBeGreaterThan(1000);
    const { data, limit } = await search('q=debian&limit=500');
    expect(limit).toBe(20);
    expect(group(data, 'SOFTWARE_PACKAGE')).toMatchObject({ total: 1000, capped: true });
    expect(group(data, 'SOFTWARE_PACKAGE')?.hits).toHaveLength(20);
  });

  it('takes the text as data: a pattern character or a quote matches itself', async () => {
    expect((await p.integrationKey.post('/api/v1/import', { source: 'search-test', assets: [{ key: 'odd', assetType: 'PRINTER', displayName: "o'hare 100%_printer" }] })).status).toBe(200);
    expect(group((await search(`q=${encodeURIComponent("'hare 100%_")}`)).data, 'PRINTER')?.hits.map((h) => h.displayName)).toEqual(["o'hare 100%_printer"]);
    expect((await search(`q=${encodeURIComponent('0%_p')}`)).data.flatMap((g) => g.hits.map((h) => h.displayName))).toEqual(["o'hare 100%_printer"]);
    expect((await search(`q=${encodeURIComponent('%%')}`)).data).toEqual([]);
  });

  it('refuses a missing, short, blank or long text and a limit below 1, and answers no one signed out', async () => {
    for (const query of ['', 'q=a', 'q=%20%20%20', `q=${'x'.repeat(201)}`, 'q=openssl&limit=0']) {
      const res = await p.viewer.get(`/api/v1/search?${query}`);
      expect([query, res.status, res.headers.get('content-type')]).toEqual([query, 400, expect.stringContaining('application/problem+json')]);
    }
    expect((await p.anonymous.get('/api/v1/search?q=openssl')).status).toBe(401);
  });
});
