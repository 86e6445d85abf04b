// Keyset pages of GET /assets: the prev, next and last links carry a cursor, so that a client
// walking a list sees every row that stayed in it exactly once, however rows are added or leave
// the list between two requests, and a deep page costs what the first costs.
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const server = (n: number, source = 'cursor-test') => ({ key: `s${n}`, assetType: 'SERVER', displayName: `srv-${String(n).padStart(3, '0')}`, serialNumber: `CUR-${source}-${n}` });

interface Page {
  data: { id: string; displayName: string }[];
  total: number;
  page: number;
  links: { first: string; prev?: string; next?: string; last?: string };
}

describe('GET /assets: cursor links', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  const imported = async (assets: object[]) => {
    const res = await p.integrationKey.post('/api/v1/import', { source: 'cursor-test', assets });
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id])) as Record<string, string>;
  };
  const get = async (url: string): Promise<Page> => {
    const res = await api.get(url.replace(service.url, ''));
    expect(res.status).toBe(200);
    return res.body;
  };
  const names = (page: Page) => page.data.map((a) => a.displayName);

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.viewer;
    await imported(Array.from({ length: 30 }, (_, i) => server(i * 10)));
  });
  afterAll(() => service.stop());

  it('gives the same pages through next links as by page number while nothing changes, and prev and last links that seek too', async () => {
    let page = await get('/api/v1/assets?type=SERVER&size=7');
    const walked: string[][] = [];
    for (;;) {
      walked.push(names(page));
      expect(page.page).toBe(walked.length - 1);
      if (!page.links.next) break;
      expect(new URL(page.links.next).searchParams.get('cursor')).toBeTruthy();
      page = await get(page.links.next);
    }
    expect(walked.map((w) => w.length)).toEqual([7, 7, 7, 7, 2]);
    for (const [n, rows] of walked.entries()) expect(names(await get(`/api/v1/assets?type=SERVER&size=7&page=${n}`))).toEqual(rows);
    // prev from page 4 gives page 3; last gives the two final rows.
    const previous = await get(page.links.prev as string);
    expect(previous.page).toBe(3);
    expect(names(previous)).toEqual(walked[3]);
    const first = await get('/api/v1/assets?type=SERVER&size=7');
    const last = await get(first.links.last as string);
    expect(last).toMatchObject({ page: 4, total: 30 });
    expect(names(last)).toEqual(walked[4]);
    expect(last.links.next).toBeUndefined();
    expect(names(await get(last.links.prev as string))).toEqual(walked[3]);
  });

  it('sees every row that stayed in the list once while rows are added and leave it between pages', async () => {
    const ids = await imported(Array.from({ length: 30 }, (_, i) => server(i * 10)));
    const seen: string[] = [];
    let page = await get('/api/v1/assets?type=SERVER&status=ACTIVE&size=5');
    seen.push(...names(page));
    // Between pages 0 and 1: a row before the cursor arrives (not to be seen), one after it arrives
    // (to be seen), one behind the cursor and one ahead leave the list (decommissioned).
    await imported([server(5), server(255)]);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.s10}/decommission`)).status).toBe(200);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.s200}/decommission`)).status).toBe(200);
    while (page.links.next) {
      page = await get(page.links.next);
      seen.push(...names(page));
    }
    const expected = Array.from({ length: 30 }, (_, i) => i * 10).filter((n) => n !== 200).concat(255).sort((a, b) => a - b).map((n) => `srv-${String(n).padStart(3, '0')}`);
    expect(seen).toEqual(expected);
  });

  it('seeks in a descending order and on a date, the total staying exact after each write', async () => {
    const desc = await get('/api/v1/assets?type=SERVER&sort=displayName,desc&size=4');
    const next = await get(desc.links.next as string);
    expect([...names(desc), ...names(next)]).toEqual(names(await get('/api/v1/assets?type=SERVER&sort=displayName,desc&size=8')));
    const bySeen = await get('/api/v1/assets?type=SERVER&sort=lastSeenAt,desc&size=3');
    const after = await get(bySeen.links.next as string);
    const all = names(await get('/api/v1/assets?type=SERVER&sort=lastSeenAt,desc&size=6'));
    expect([...names(bySeen), ...names(after)]).toEqual(all);
    // A filtered total is counted once, then kept while the page reads find the graph unchanged:
    // each answer below stays exact whether it was counted, kept, or found out of date.
    const lyon = '/api/v1/assets?type=SERVER&site=lyon&status=ACTIVE';
    const before = (await get(lyon)).total;
    expect((await get(lyon)).total).toBe(before);
    const ids = await imported([{ ...server(900), site: 'lyon' }, { ...server(901), site: 'lyon' }]);
    expect((await get(lyon)).total).toBe(before + 2);
    expect((await get(lyon)).total).toBe(before + 2);
    expect((await p.discoveryAdminToken.post(`/api/v1/assets/${ids.s900}/decommission`)).status).toBe(200);
    expect((await get(lyon)).total).toBe(before + 1);
    expect((await get(lyon)).total).toBe(before + 1);
  });

  it('refuses a cursor it did not give out, a cursor with a sort that pages by number, and one with synthesized types', async () => {
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'cursor=%7B%7D', 'sort=site&cursor=eyJhZnRlciI6WyJhIiwiYiJdfQ', 'type=SOFTWARE_PACKAGE&cursor=eyJhZnRlciI6WyJhIiwiYiJdfQ', 'cursor=eyJhZnRlciI6WzEsMl19']) {
      const res = await api.get(`/api/v1/assets?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});
