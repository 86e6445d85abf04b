// GET /discovery/runs newest first with keyset cursors: runs queued in the same millisecond (or
// microsecond) are neither repeated nor skipped, and a walk that runs while new runs are queued
// sees every run that was there when it began exactly once.
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Page {
  data: { id: string; status: string }[];
  total: number;
  page: number;
  links: { next?: string; prev?: string; last?: string };
}

describe('GET /discovery/runs: cursor links', () => {
  let service: TestService;
  let api: ApiClient;
  const db = () => service.running.container.db;
  /** Finished runs of the past, queued at the given offsets (microseconds) from a fixed time. */
  const history = async (offsetsUs: number[], status = 'COMPLETED') => {
    const base = Date.parse('2026-11-01T00:00:00Z') * 1000;
    const rows = offsetsUs.map((us) => ({
      target_name: 'history', trigger: 'SCHEDULED', status,
      queued_at: db().raw(`to_timestamp(?::float8 / 1e6)`, [base + us]),
    }));
    return (await db()('discovery_runs').insert(rows).returning('id')).map((r: { id: string }) => r.id);
  };
  const get = async (url: string): Promise<Page> => {
    const res = await api.get(url.replace(service.url, ''));
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    api = (await createPrincipals(service.url)).viewer;
    // Ties: five runs in one microsecond, three more a microsecond apart, then one per second.
    await history([0, 0, 0, 0, 0, 1, 2, 3, ...Array.from({ length: 14 }, (_, i) => (i + 1) * 1_000_000)]);
  });
  afterAll(() => service.stop());

  it('walks the runs newest first without repeating or skipping ties, the same as by page number', async () => {
    const all = (await get('/api/v1/discovery/runs?size=1000')).data.map((r) => r.id);
    expect(all).toHaveLength(22);
    const walked: string[] = [];
    let page: Page | undefined = await get('/api/v1/discovery/runs?size=3');
    while (page) {
      walked.push(...page.data.map((r) => r.id));
      page = page.links.next ? await get(page.links.next) : undefined;
    }
    expect(walked).toEqual(all);
    for (let n = 0; n < 8; n++) expect((await get(`/api/v1/discovery/runs?size=3&page=${n}`)).data.map((r) => r.id)).toEqual(all.slice(n * 3, n * 3 + 3));
    const last = await get((await get('/api/v1/discovery/runs?size=3')).links.last as string);
    expect(last.data.map((r) => r.id)).toEqual(all.slice(21));
    expect((await get(last.links.prev as string)).data.map((r) => r.id)).toEqual(all.slice(18, 21));
  });

  it('sees every run once while newer runs are queued during the walk, and filters by status', async () => {
    const before = (await get('/api/v1/discovery/runs?size=1000')).data.map((r) => r.id);
    let page = await get('/api/v1/discovery/runs?size=4');
    const seen = page.data.map((r) => r.id);
    await history([20_000_000, 20_000_000, 30_000_000]);
    while (page.links.next) {
      page = await get(page.links.next);
      seen.push(...page.data.map((r) => r.id));
    }
    expect(seen).toEqual(before);
    await history([5, 6], 'FAILED');
    const failed = await get('/api/v1/discovery/runs?status=FAILED&size=1');
    expect(failed.total).toBe(2);
    // The totals of a target's runs, its id in either case.
    const [target] = await db()('discovery_targets').insert({ name: 'paged', addresses: ['10.0.0.1'], address_count: 1, methods: ['SWEEP'] }).returning('id');
    await db()('discovery_runs').insert([{ target_id: target.id, target_name: 'paged', trigger: 'MANUAL', status: 'COMPLETED' }, { target_id: target.id, target_name: 'paged', trigger: 'MANUAL', status: 'FAILED' }]);
    for (const id of [target.id, target.id.toUpperCase()]) {
      expect((await get(`/api/v1/discovery/runs?targetId=${id}`)).total).toBe(2);
      expect((await get(`/api/v1/discovery/runs?targetId=${id}&status=FAILED,CANCELLED`)).total).toBe(1);
    }
    expect([...failed.data, ...(await get(failed.links.next as string)).data].map((r) => r.status)).toEqual(['FAILED', 'FAILED']);
  });
});
