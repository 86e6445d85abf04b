// What an import refuses beyond its schema's types (docs/interface.md, import bounds): an observation
// time outside the retention window or ahead of the clock, strings and custom attributes beyond
// their size, numbers that JSON cannot hold, bytes that are no UTF-8. Each refusal is a 400
// problem+json naming the field, and leaves both stores as they were.
import { request } from '../support/http.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { storeSnapshot } from '../support/store-snapshot.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const DAY_MS = 86_400_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const bundle = (asset: object = {}, extra: object = {}) => ({ source: 'bounds', assets: [{ key: 'b', assetType: 'SERVER', hostname: 'bounds-host', ...asset }], ...extra });

describe('the bounds of an import', () => {
  let service: TestService;
  let p: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    // Something in the stores, so that "nothing changed" has something to keep.
    expect((await p.integrationKey.post('/api/v1/import', { source: 'base', assets: [{ key: 'k', assetType: 'SERVER', hostname: 'kept-host' }] })).status).toBe(200);
  });
  afterAll(() => service.stop());

  /** A body as bytes, as a careless client may send them (fetch would encode a string as UTF-8). */
  const raw = (body: Buffer | string) =>
    request(`${service.url}/api/v1/import`, { method: 'POST', body: new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body), headers: { ...p.integrationKey.headers('POST'), 'content-type': 'application/json' } });
  const json = (body: object) => p.integrationKey.post('/api/v1/import', body);

  it.each([
    ['an observation time in year 9999 (the asset would never age)', () => json(bundle({}, { observedAt: '9999-12-31T00:00:00Z' })), 'body.observedAt'],
    ['an observation time in year 1', () => json(bundle({}, { observedAt: '0001-01-01T00:00:00Z' })), 'body.observedAt'],
    ['an observation time older than the retention window', () => json(bundle({}, { observedAt: at(-31 * DAY_MS) })), 'body.observedAt'],
    ['an observation time an hour ahead of the clock', () => json(bundle({}, { observedAt: at(3_600_000) })), 'body.observedAt'],
    ['a 10 MB string in customAttributes', () => json(bundle({ customAttributes: { note: 'x'.repeat(10_000_000) } })), 'body.assets.0.customAttributes'],
    ['customAttributes over 64 KiB in UTF-8 though under it in characters', () => json(bundle({ customAttributes: { note: 'é'.repeat(33_000) } })), 'body.assets.0.customAttributes'],
    ['a relationship key longer than an asset key may be', () => json(bundle({}, { relationships: [{ type: 'RUNS_ON', source: 'b', target: 'k'.repeat(201) }] })), 'body.relationships/0/target'],
    ['a sub-record naming its asset by a key longer than a key may be', () => json(bundle({}, { software: [{ asset: 'b'.repeat(201), packageName: 'openssl' }] })), 'body.software/0/asset'],
    ['1e309 (stored as null before)', () => raw('{"source":"bounds","assets":[{"key":"b","assetType":"SERVER","hostname":"bounds-host","customAttributes":{"size":1e309}}]}'), 'body.assets.0.customAttributes.size'],
    ['-1e309 deep in customAttributes', () => raw('{"source":"bounds","assets":[{"key":"b","assetType":"SERVER","hostname":"bounds-host","customAttributes":{"disks":[{"bytes":-1e309}]}}]}'), 'body.assets.0.customAttributes.disks.0.bytes'],
    ['bytes that are no UTF-8 (replaced by U+FFFD before)', () => raw(Buffer.concat([Buffer.from('{"source":"bounds","assets":[{"key":"b","assetType":"SERVER","hostname":"bounds-host","displayName":"bad '), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')])), 'body'],
    ['an overlong UTF-8 encoding of "/"', () => raw(Buffer.concat([Buffer.from('{"source":"bounds","assets":[{"key":"b","assetType":"SERVER","hostname":"bounds-host","model":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}]}')])), 'body'],
  ])('refuses %s with a 400 problem+json naming it, and changes nothing', async (_what, send, path) => {
    const before = await storeSnapshot(service);
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await storeSnapshot(service)).toBe(before);
    expect((await p.integrationKey.get('/api/v1/assets?q=bounds-host')).body.total).toBe(0);
  });

  it('says what the observation window is', async () => {
    const res = await json(bundle({}, { observedAt: '9999-12-31T00:00:00Z' }));
    expect(res.body.errors).toEqual([{ path: 'body.observedAt', message: expect.stringMatching(/within the last 30 days .* and at most 300 s ahead/) }]);
  });

  it.each([
    ['an observation time 29 days ago', bundle({ hostname: 'recent-host' }, { observedAt: at(-29 * DAY_MS) })],
    ['an observation time a minute ahead of the clock (skew)', bundle({ hostname: 'skewed-host' }, { observedAt: at(60_000) })],
    ['customAttributes just under 64 KiB', bundle({ hostname: 'roomy-host', customAttributes: { note: 'x'.repeat(65_000) } })],
  ])('takes %s', async (_what, body) => {
    const res = await json(body);
    expect(res.status).toBe(200);
    expect(res.body.data.created).toBe(1);
  });
});
