// Keyset pages of synthesized rows through GET /assets: the links of a listing of packages,
// processes, services or interfaces (alone, or after graph rows) carry a cursor that names the
// part and the row a page ends on, so that a client walking millions of rows sees each row that
// stayed in the list once, and the totals (kept beside the tables, or counted and kept while the
// table is unchanged) stay exact after every write.
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Row {
  id: string;
  displayName: string;
  assetType: string;
  parent?: { displayName: string };
}

interface Page {
  data: Row[];
  total: number;
  page: number;
  links: { first: string; prev?: string; next?: string; last?: string };
}

const name = (n: number) => `pkg-${String(n).padStart(3, '0')}`;

describe('GET /assets: cursor links over synthesized rows', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  const importing = async (body: object) => {
    const res = await p.integrationKey.post('/api/v1/import', { source: 'synth-cursor', ...body });
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id])) as Record<string, string>;
  };
  const hosts = [
    { key: 'alpha', assetType: 'SERVER', displayName: 'alpha', serialNumber: 'SC-ALPHA', site: 'paris' },
    { key: 'bravo', assetType: 'SERVER', displayName: 'bravo', serialNumber: 'SC-BRAVO', site: 'lyon' },
  ];
  const softwareOf = (asset: string, numbers: number[]) => numbers.map((n) => ({ asset, packageName: name(n), version: '1.0', publisher: n % 2 ? 'Odd Ltd' : 'Even Inc' }));
  const get = async (url: string): Promise<Page> => {
    const res = await api.get(url.replace(service.url, ''));
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Every row by following next links from `url`, each page checked to carry a cursor onwards. */
  const walk = async (url: string): Promise<Row[]> => {
    let page = await get(url);
    const rows = [...page.data];
    while (page.links.next) {
      expect(new URL(page.links.next).searchParams.get('cursor')).toBeTruthy();
      page = await get(page.links.next);
      rows.push(...page.data);
    }
    return rows;
  };
  const keys = (rows: Row[]) => rows.map((r) => `${r.parent?.displayName ?? '-'}/${r.displayName}`);
  let ids: Record<string, string>;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
    ids = await importing({
      assets: hosts,
      software: [...softwareOf('alpha', Array.from({ length: 20 }, (_, i) => i * 10)), ...softwareOf('bravo', [5, 15, 25, 35, 45])],
      processes: Array.from({ length: 6 }, (_, i) => ({ asset: i % 2 ? 'alpha' : 'bravo', pid: 100 + i, processName: `proc-${i}` })),
      interfaces: [
        { asset: 'bravo', name: 'eth1', ifIndex: 3 },
        { asset: 'alpha', name: 'lo', ifIndex: 1 },
        { asset: 'bravo', name: 'eth0', ifIndex: 2 },
        { asset: 'alpha', name: 'eth9' },
        { asset: 'alpha', name: 'bond0', ifIndex: 4 },
      ],
    });
  });
  afterAll(() => service.stop());

  it('walks one type by next links as by page numbers, with prev and last links that seek too', async () => {
    const all = (await get('/api/v1/assets?type=SOFTWARE_PACKAGE&size=1000')).data;
    expect(all).toHaveLength(25);
    expect(all.map((r) => r.displayName)).toEqual([...all.map((r) => r.displayName)].sort());
    expect(keys(await walk('/api/v1/assets?type=SOFTWARE_PACKAGE&size=4'))).toEqual(keys(all));
    for (const n of [0, 3, 6]) expect(keys((await get(`/api/v1/assets?type=SOFTWARE_PACKAGE&size=4&page=${n}`)).data)).toEqual(keys(all.slice(n * 4, n * 4 + 4)));
    const last = await get((await get('/api/v1/assets?type=SOFTWARE_PACKAGE&size=4')).links.last as string);
    expect(last).toMatchObject({ page: 6, total: 25 });
    expect(keys(last.data)).toEqual(keys(all.slice(24)));
    const before = await get(last.links.prev as string);
    expect(before.page).toBe(5);
    expect(keys(before.data)).toEqual(keys(all.slice(20, 24)));
    expect(keys((await get(before.links.prev as string)).data)).toEqual(keys(all.slice(16, 20)));
  });

  it('walks graph rows, then each synthesized type, across the parts in both directions', async () => {
    const url = '/api/v1/assets?type=SERVER,SOFTWARE_PACKAGE,RUNNING_PROCESS&size=4';
    const all = (await get('/api/v1/assets?type=SERVER,SOFTWARE_PACKAGE,RUNNING_PROCESS&size=1000')).data;
    expect(all.map((r) => r.assetType)).toEqual([...Array(2).fill('SERVER'), ...Array(25).fill('SOFTWARE_PACKAGE'), ...Array(6).fill('RUNNING_PROCESS')]);
    expect(keys(await walk(url))).toEqual(keys(all));
    // From the last page back to the first by prev links.
    let page = await get((await get(url)).links.last as string);
    const backwards = [keys(page.data)];
    while (page.links.prev) {
      page = await get(page.links.prev);
      backwards.unshift(keys(page.data));
    }
    expect(backwards.flat()).toEqual(keys(all));
  });

  it('sees every row that stayed in the list once while rows arrive and leave between pages', async () => {
    const url = '/api/v1/assets?type=SOFTWARE_PACKAGE&size=5';
    const first = await get(url);
    expect(first.data.map((r) => r.displayName)).toEqual([name(0), name(5), name(10), name(15), name(20)]);
    // Behind the cursor one arrives (not to be seen) and one leaves; ahead, one arrives and one leaves.
    await importing({ assets: hosts, software: softwareOf('alpha', [1, 171]) });
    await service.running.container.db('software_packages').whereIn('package_name', [name(10), name(100)]).delete();
    let page = first;
    const seen = [...page.data];
    while (page.links.next) {
      page = await get(page.links.next);
      seen.push(...page.data);
      expect(page.total).toBe(25);
    }
    const names = seen.map((r) => r.displayName);
    expect(names.filter((n) => n === name(1) || n === name(100))).toEqual([]);
    expect(names).toContain(name(171));
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(5)).toEqual([...(await get('/api/v1/assets?type=SOFTWARE_PACKAGE&size=1000')).data.map((r) => r.displayName)].filter((n) => n > name(20)));
  });

  it('seeks in a descending order and on the first sighting', async () => {
    for (const sort of ['displayName,desc', 'firstSeenAt,desc', 'firstSeenAt']) {
      const all = (await get(`/api/v1/assets?type=SOFTWARE_PACKAGE,DISCOVERED_SERVICE,RUNNING_PROCESS&sort=${sort}&size=1000`)).data;
      expect(keys(await walk(`/api/v1/assets?type=SOFTWARE_PACKAGE,DISCOVERED_SERVICE,RUNNING_PROCESS&sort=${sort}&size=3`))).toEqual(keys(all));
    }
  });

  it('sorts processes by their last sighting, and packages by theirs only within one host', async () => {
    const all = (await get('/api/v1/assets?type=RUNNING_PROCESS&sort=lastSeenAt,desc&size=1000')).data;
    expect(all).toHaveLength(6);
    expect(keys(await walk('/api/v1/assets?type=RUNNING_PROCESS&sort=lastSeenAt,desc&size=4'))).toEqual(keys(all));
    const refused = await api.get('/api/v1/assets?type=RUNNING_PROCESS,SOFTWARE_PACKAGE&sort=lastSeenAt');
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('hostId');
    const oneHost = (await get(`/api/v1/assets?type=SOFTWARE_PACKAGE&hostId=${ids.bravo}&sort=lastSeenAt&size=1000`)).data;
    expect(oneHost.map((r) => r.parent?.displayName)).toEqual(Array(oneHost.length).fill('bravo'));
    expect(oneHost.length).toBeGreaterThan(0);
  });

  it('walks interfaces by host name, then ifIndex (none last), by cursor', async () => {
    const all = keys((await get('/api/v1/assets?type=INTERFACE&size=1000')).data);
    expect(all).toEqual(['alpha/lo', 'alpha/bond0', 'alpha/eth9', 'bravo/eth0', 'bravo/eth1']);
    expect(keys(await walk('/api/v1/assets?type=INTERFACE&size=2'))).toEqual(all);
    expect(keys(await walk('/api/v1/assets?type=INTERFACE&sort=displayName,desc&size=2'))).toEqual([...all].reverse());
    // A renamed host's interfaces move with its name.
    await importing({ assets: [{ ...hosts[0], displayName: 'zulu' }, hosts[1]] });
    expect(keys(await walk('/api/v1/assets?type=INTERFACE&size=2'))).toEqual(['bravo/eth0', 'bravo/eth1', 'zulu/lo', 'zulu/bond0', 'zulu/eth9']);
    await importing({ assets: hosts });
  });

  it('keeps each total exact: the whole table, one host, a site, and a text search counted again after a write', async () => {
    const total = async (query: string) => (await get(`/api/v1/assets?type=SOFTWARE_PACKAGE&size=1&${query}`)).total;
    const rows = async (where: Record<string, string>) => Number((await service.running.container.db('software_packages').where(where).count('* as n'))[0]?.n);
    expect(await total('')).toBe(await rows({}));
    expect(await total(`hostId=${ids.bravo}`)).toBe(await rows({ asset_id: ids.bravo as string }));
    expect(await total('site=lyon')).toBe(await rows({ asset_id: ids.bravo as string }));
    const odd = await total('q=odd');
    expect(odd).toBe(await rows({ publisher: 'Odd Ltd' }));
    // Kept while the table is unchanged, counted again once it is not.
    expect(await total('q=odd')).toBe(odd);
    await importing({ assets: hosts, software: softwareOf('bravo', [55, 57]) });
    expect(await total('q=odd')).toBe(odd + 2);
    await service.running.container.db('software_packages').where({ publisher: 'Odd Ltd' }).where('package_name', '>', name(150)).delete();
    expect(await total('q=odd')).toBe(await rows({ publisher: 'Odd Ltd' }));
    expect(await total('')).toBe(await rows({}));
  });

  it('refuses a cursor of another list, of another part\'s shape, or with a value no store holds', async () => {
    const cursor = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const id = '0f0a1b2c-0000-4000-8000-000000000001';
    for (const [query, c] of [
      ['type=SOFTWARE_PACKAGE', { after: ['HOST', 'a', 'b'] }],
      ['type=SOFTWARE_PACKAGE', { after: ['SOFTWARE_PACKAGE', 'a', 'not-a-uuid'] }],
      ['type=SOFTWARE_PACKAGE', { after: ['SOFTWARE_PACKAGE', 'a'] }],
      ['type=SOFTWARE_PACKAGE', { after: ['SOFTWARE_PACKAGE', 'a\u0000b', id] }],
      ['type=SOFTWARE_PACKAGE&sort=firstSeenAt', { after: ['SOFTWARE_PACKAGE', 'not-a-time', 'a', id] }],
      ['type=SOFTWARE_PACKAGE&sort=firstSeenAt', { after: ['SOFTWARE_PACKAGE', '2026-02-30T00:00:00Z', 'a', id] }],
      ['type=SOFTWARE_PACKAGE&sort=firstSeenAt', { before: ['SOFTWARE_PACKAGE', '0000-01-01T00:00:00Z', 'a', id] }],
      ['type=INTERFACE', { after: ['INTERFACE', 'alpha', id, 3_000_000_000, 'eth0', id] }],
    ] as const) {
      const res = await api.get(`/api/v1/assets?${query}&cursor=${cursor(c)}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    // Ids as the stores write them or not: the same rows, the same total; a URN is no id.
    const lower = await get(`/api/v1/assets?type=SOFTWARE_PACKAGE&hostId=${ids.bravo}`);
    expect(await get(`/api/v1/assets?type=SOFTWARE_PACKAGE&hostId=${(ids.bravo as string).toUpperCase()}`)).toMatchObject({ total: lower.total, data: lower.data });
    expect((await api.get(`/api/v1/assets?type=SOFTWARE_PACKAGE&hostId=urn:uuid:${ids.bravo}`)).status).toBe(400);
  });
});
