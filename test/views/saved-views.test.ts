// Saved views: a user's named filters, columns and sort of the asset or relationship list, kept on
// the server. The owner lists, changes and deletes them; anyone signed in opens one by its link;
// the filters are the list's own query parameters (as api.yaml names them); bad input, a taken
// name and the per-user limit are refused and change nothing; an integration key has none.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface Parameter { name?: string; in?: string; $ref?: string }
interface ApiDocument { paths: Record<string, Record<string, { operationId?: string; parameters?: Parameter[] }>>; components: { parameters: Record<string, Parameter> } }

let document: ApiDocument | undefined;
/** The filters of a list operation as api.yaml documents them, read here apart from the service. */
function documentedFilters(operationId: string): string[] {
  const doc = (document ??= parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8')) as ApiDocument);
  const operation = Object.values(doc.paths).flatMap((item) => Object.values(item)).find((o) => o.operationId === operationId);
  return (operation?.parameters ?? [])
    .map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop() as string] : p))
    .filter((p) => p?.in === 'query' && !['page', 'size', 'cursor', 'sort'].includes(p.name as string))
    .map((p) => p?.name as string);
}

describe('saved views', () => {
  let service: TestService;
  let p: Principals;
  const linux = { name: 'Linux hosts in Paris', list: 'ASSETS', filters: { type: 'PHYSICAL_HOST,VM', site: 'paris-1' }, columns: ['displayName', 'assetType', 'customAttributes.memoryMb'], sort: 'displayName,asc' };
  const countOf = async (client: ApiClient) => (await client.get('/api/v1/views?size=1')).body.total as number;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
  });
  afterAll(() => service.stop());

  it('keeps a view for its owner, opens it for anyone signed in by its link, and lets only the owner change or delete it', async () => {
    const created = await p.viewer.post('/api/v1/views', linux);
    expect(created.status).toBe(201);
    const view = created.body.data;
    expect(view).toEqual({ id: expect.any(String), ...linux, owner: { id: p.ids.viewer, username: 'viewer' }, createdAt: expect.any(String), updatedAt: view.createdAt });
    await p.viewer.post('/api/v1/views', { name: 'All relationships', list: 'RELATIONSHIPS' });
    const mine = await p.viewer.get('/api/v1/views');
    expect(mine.body.data.map((v: { name: string; columns: string[]; sort: string | null; filters: object }) => [v.name, v.filters, v.columns, v.sort])).toEqual([
      ['All relationships', {}, [], null],
      ['Linux hosts in Paris', linux.filters, linux.columns, linux.sort],
    ]);
    expect((await p.viewer.get('/api/v1/views?list=ASSETS')).body.data.map((v: { name: string }) => v.name)).toEqual(['Linux hosts in Paris']);
    // Not in another user's list, but open to them (and to a key) by its link.
    expect((await p.analyst.get('/api/v1/views')).body.total).toBe(0);
    expect((await p.analyst.get(`/api/v1/views/${view.id}`)).body.data).toEqual(view);
    expect((await p.integrationKey.get(`/api/v1/views/${view.id}`)).status).toBe(200);
    // Only its owner changes or deletes it.
    const theirs = await p.analyst.put(`/api/v1/views/${view.id}`, { ...linux, name: 'mine now' });
    expect([theirs.status, theirs.body.detail]).toEqual([403, 'Only the owner of a view may change or delete it: save a copy of your own.']);
    expect((await p.adminSession.delete(`/api/v1/views/${view.id}`)).status).toBe(403);
    const changed = await p.viewer.put(`/api/v1/views/${view.id}`, { name: 'Paris VMs', list: 'ASSETS', filters: { type: 'VM' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: view.id, name: 'Paris VMs', filters: { type: 'VM' }, columns: [], sort: null, createdAt: view.createdAt });
    expect(Date.parse(changed.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view.updatedAt));
    expect((await p.viewer.delete(`/api/v1/views/${view.id}`)).status).toBe(204);
    expect((await p.analyst.get(`/api/v1/views/${view.id}`)).status).toBe(404);
    expect((await p.viewer.delete(`/api/v1/views/${view.id}`)).status).toBe(404);
  });

  it("takes every filter api.yaml documents for the list, and refuses any other, paging included, naming it; nothing is saved", async () => {
    for (const [list, operation] of [['ASSETS', 'listAssets'], ['RELATIONSHIPS', 'listRelationships']] as const) {
      const filters = Object.fromEntries(documentedFilters(operation).map((name) => [name, 'x']));
      expect(Object.keys(filters).length).toBeGreaterThan(3);
      const res = await p.analyst.post('/api/v1/views', { name: `every filter of ${list}`, list, filters });
      expect([res.status, res.body.data?.filters]).toEqual([201, filters]);
    }
    const before = await countOf(p.analyst);
    const refused = await p.analyst.post('/api/v1/views', { name: 'odd', list: 'ASSETS', filters: { type: 'VM', size: '50', sourceType: 'x' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: 'body.filters.size', message: 'is not a filter of ASSETS' },
      { path: 'body.filters.sourceType', message: 'is not a filter of ASSETS' },
    ]);
    // A relationship filter is not an asset filter.
    expect((await p.analyst.post('/api/v1/views', { name: 'odd', list: 'ASSETS', filters: { relationshipType: 'HOSTS_VM' } })).status).toBe(400);
    expect(await countOf(p.analyst)).toBe(before);
  });

  it('refuses input that api.yaml does not allow, and changes nothing', async () => {
    const before = await countOf(p.apiUserSession);
    for (const bad of [
      { ...linux, name: ' padded ' },
      { ...linux, name: '' },
      { ...linux, list: 'TARGETS' },
      { ...linux, sort: 'displayName; DROP TABLE saved_views' },
      { ...linux, columns: Array.from({ length: 51 }, (_, i) => `c${i}`) },
      { ...linux, columns: ['display name'] },
      { ...linux, filters: { q: 'x'.repeat(2001) } },
      { ...linux, owner: 'someone' },
    ]) {
      const res = await p.apiUserSession.post('/api/v1/views', bad);
      expect([res.status, res.headers.get('content-type')]).toEqual([400, expect.stringContaining('application/problem+json')]);
    }
    expect(await countOf(p.apiUserSession)).toBe(before);
  });

  it("keeps names unique per owner and list, and each user within 100 views; the 101st is refused and not saved", async () => {
    const user = p.discoveryAdminSession;
    expect((await user.post('/api/v1/views', { name: 'Mine', list: 'ASSETS' })).status).toBe(201);
    expect((await user.post('/api/v1/views', { name: 'Mine', list: 'RELATIONSHIPS' })).status).toBe(201);
    expect((await p.apiUserSession.post('/api/v1/views', { name: 'Mine', list: 'ASSETS' })).status).toBe(201);
    const taken = await user.post('/api/v1/views', { name: 'Mine', list: 'ASSETS' });
    expect([taken.status, taken.body.detail]).toEqual([409, 'You already have a view of ASSETS named "Mine".']);
    const second = (await user.post('/api/v1/views', { name: 'Other', list: 'ASSETS' })).body.data;
    expect((await user.put(`/api/v1/views/${second.id}`, { name: 'Mine', list: 'ASSETS' })).status).toBe(409);
    for (let i = (await countOf(user)); i < 100; i++) expect((await user.post('/api/v1/views', { name: `view ${i}`, list: 'ASSETS' })).status).toBe(201);
    const over = await user.post('/api/v1/views', { name: 'one too many', list: 'ASSETS' });
    expect([over.status, over.body.detail]).toEqual([409, 'You have 100 views, as many as a user may keep: delete one first.']);
    expect(await countOf(user)).toBe(100);
    // Another user is not held by this one's views.
    expect((await p.apiUserSession.post('/api/v1/views', { name: 'one more', list: 'ASSETS' })).status).toBe(201);
  });

  it('answers an integration key, which is no user, 409 for views of its own', async () => {
    for (const res of [await p.integrationKey.get('/api/v1/views'), await p.integrationKey.post('/api/v1/views', linux)]) {
      expect([res.status, res.body.detail]).toEqual([409, 'An integration key has no saved views: it is not a user.']);
    }
  });
});
