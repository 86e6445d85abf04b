// HTTP conventions (compression, Link, CORS, HEAD/OPTIONS/Allow, 304) and /metrics, against the
// real service. Raw node:http requests where fetch would hide what is on the wire (it decompresses).
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import pathToRegexpModule from 'path-to-regexp';
import { ApiClient, signIn } from '../support/api-client.js';
import { importEstate } from '../support/estate.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { parsePrometheus } from '../support/prometheus.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const PORTAL = 'https://portal.example.com';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function raw(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP conventions and metrics', () => {
  let service: TestService;
  let key: ApiClient;
  let auth: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, corsOrigins: `${PORTAL},http://localhost:5173` });
    const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    const created = await admin.post('/api/v1/integration-keys', { name: 'http-tests' });
    key = new ApiClient(service.url, { kind: 'bearer', token: created.body.data.token });
    auth = { authorization: `Bearer ${created.body.data.token}` };
    await importEstate(key);
    // Generous: other test runs share this machine's two cores.
  }, 240_000);
  afterAll(() => service.stop());

  it('compresses a JSON answer with gzip or br when asked, and not otherwise', async () => {
    const plain = await raw(`${service.url}/api/v1/assets?size=50`, 'GET', auth);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const expected = JSON.parse(plain.body.toString('utf8'));
    expect(expected.data.length).toBeGreaterThan(3);
    const gzip = await raw(`${service.url}/api/v1/assets?size=50`, 'GET', { ...auth, 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/Accept-Encoding/i);
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8'))).toEqual(expected);
    expect(gzip.body.length).toBeLessThan(plain.body.length);
    const br = await raw(`${service.url}/api/v1/assets?size=50`, 'GET', { ...auth, 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(expected);
  });

  it.each(['assets.csv', 'assets.json', 'software.csv', 'relationships.json'])('compresses the export %s when asked, still streamed (chunked, no length)', async (file) => {
    const plain = await raw(`${service.url}/api/v1/export/${file}`, 'GET', auth);
    expect(plain.status).toBe(200);
    const gzip = await raw(`${service.url}/api/v1/export/${file}`, 'GET', { ...auth, 'accept-encoding': 'gzip, br;q=0.5' });
    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['transfer-encoding']).toBe('chunked');
    expect(gzip.headers['content-length']).toBeUndefined();
    expect(gunzipSync(gzip.body).toString('utf8')).toBe(plain.body.toString('utf8'));
  });

  it('sends the links of a list as an RFC 8288 Link header equal to the JSON links', async () => {
    const res = await key.get('/api/v1/assets?size=2&page=1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.links)).toEqual(expect.arrayContaining(['first', 'prev', 'next', 'last']));
    const header = res.headers.get('link') as string;
    const parsed = Object.fromEntries(header.split(/,\s*(?=<)/).map((part) => {
      const m = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
      if (!m) throw new Error(`not a link: ${part}`);
      return [m[2], m[1]];
    }));
    expect(parsed).toEqual(res.body.links);
    // A single resource has no links and no Link header.
    const one = await key.get(`/api/v1/assets/${res.body.data[0].id}`);
    expect(one.headers.get('link')).toBeNull();
  });

  it('answers CORS for the configured origins only, preflight included', async () => {
    const preflight = (origin: string) =>
      raw(`${service.url}/api/v1/discovery/targets`, 'OPTIONS', { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
    const ok = await preflight(PORTAL);
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(ok.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, OPTIONS');
    expect(ok.headers['access-control-allow-headers']).toMatch(/Authorization.*Content-Type/);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    const other = await preflight('https://evil.example.net');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-allow-methods']).toBeUndefined();

    const get = await raw(`${service.url}/api/v1/assets?size=1`, 'GET', { ...auth, origin: PORTAL });
    expect([get.status, get.headers['access-control-allow-origin']]).toEqual([200, PORTAL]);
    expect(get.headers['access-control-expose-headers']).toMatch(/Link/);
    expect(get.headers.vary).toMatch(/Origin/);
    const foreign = await raw(`${service.url}/api/v1/assets?size=1`, 'GET', { ...auth, origin: 'https://evil.example.net' });
    expect(foreign.status).toBe(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves HEAD wherever GET is served, and names the methods in Allow for OPTIONS and 405', async () => {
    const get = await raw(`${service.url}/api/v1/assets?size=5`, 'GET', auth);
    const head = await raw(`${service.url}/api/v1/assets?size=5`, 'HEAD', auth);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect((await raw(`${service.url}/health`, 'HEAD')).status).toBe(200);
    // HEAD is checked like GET: no credential, no answer.
    expect((await raw(`${service.url}/api/v1/assets`, 'HEAD')).status).toBe(401);

    const options = await raw(`${service.url}/api/v1/discovery/targets`, 'OPTIONS');
    expect([options.status, options.headers.allow]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
    const optionsOne = await raw(`${service.url}/api/v1/assets/00000000-0000-4000-8000-000000000000`, 'OPTIONS');
    expect(optionsOne.headers.allow).toBe('GET, HEAD, OPTIONS');

    const notAllowed = await raw(`${service.url}/api/v1/assets`, 'DELETE', auth);
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(notAllowed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await raw(`${service.url}/api/v1/no-such-thing`, 'OPTIONS')).status).toBe(404);
  });

  it('answers 304 to a GET whose If-None-Match is the current ETag', async () => {
    const first = await raw(`${service.url}/api/v1/schema/asset-types`, 'GET', auth);
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await raw(`${service.url}/api/v1/schema/asset-types`, 'GET', { ...auth, 'if-none-match': etag });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });

  it('matches requests to the api.yaml paths late in the document, each path pattern compiled once', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (let i = 0; i < 2; i++) {
      expect((await key.get('/api/v1/relationships?size=1')).status).toBe(200);
      expect((await key.get(`/api/v1/users/${missing}/tokens`)).status).toBe(404);
      const refused = await key.get('/api/v1/relationships?size=many');
      expect([refused.status, refused.body.errors?.[0]?.path]).toEqual([400, 'query.size']);
    }
    const samples = parsePrometheus((await raw(`${service.url}/metrics`, 'GET', auth)).body.toString('utf8'));
    const count = (route: string, status: string) => samples.find((s) => s.name === 'http_server_request_duration_seconds_count' && s.labels.method === 'GET' && s.labels.route === route && s.labels.status === status)?.value;
    expect(count('/api/v1/relationships', '200')).toBeGreaterThanOrEqual(2);
    expect(count('/api/v1/users/{userId}/tokens', '404')).toBe(2);
    expect(count('/api/v1/relationships', '400')).toBe(2);
    // The validator's matcher (the module it calls) gives back the pattern it compiled before.
    const options = { sensitive: false, strict: false } as Parameters<typeof pathToRegexpModule.pathToRegexp>[1];
    expect(pathToRegexpModule.pathToRegexp('/api/v1/users/:userId/tokens', options)).toBe(pathToRegexpModule.pathToRegexp('/api/v1/users/:userId/tokens', options));
  });

  it('serves /metrics in the Prometheus text format to an administrator or integration key only', async () => {
    expect((await raw(`${service.url}/metrics`)).status).toBe(401);
    const exportedRowsOf = async (dataset: string) =>
      parsePrometheus((await raw(`${service.url}/metrics`, 'GET', auth)).body.toString('utf8')).find((s) => s.name === 'export_rows_total' && s.labels.dataset === dataset && s.labels.format === 'csv')?.value ?? 0;
    const exportedBefore = await exportedRowsOf('assets');
    // Rows of a PostgreSQL export (COPY) are counted too.
    expect((await key.post('/api/v1/import', { source: 'metrics', assets: [{ key: 'h', assetType: 'SERVER', displayName: 'metrics-host', serialNumber: 'METRICS-1' }], software: [{ asset: 'h', packageName: 'curl' }, { asset: 'h', packageName: 'bash' }] })).status).toBe(200);
    const softwareBefore = await exportedRowsOf('software');
    const software = await raw(`${service.url}/api/v1/export/software.csv`, 'GET', auth);
    // Traffic to count: a list, a 404, an export.
    await key.get('/api/v1/assets?size=3');
    await key.get('/api/v1/assets/00000000-0000-4000-8000-000000000000');
    const exported = await raw(`${service.url}/api/v1/export/assets.csv`, 'GET', auth);
    const exportedRows = exported.body.toString('utf8').trim().split('\r\n').length - 1;
    await key.post('/api/v1/discovery/targets', { name: 'metrics-target', addresses: ['127.0.0.1'], methods: ['SWEEP'] });

    const res = await raw(`${service.url}/metrics`, 'GET', auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parsePrometheus(res.body.toString('utf8'));
    const sample = (name: string, labels: Record<string, string>) => samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    expect(sample('http_server_request_duration_seconds_count', { method: 'GET', route: '/api/v1/assets', status: '200' })?.value).toBeGreaterThanOrEqual(1);
    expect(sample('http_server_request_duration_seconds_count', { method: 'GET', route: '/api/v1/assets/{assetId}', status: '404' })?.value).toBe(1);
    expect(sample('http_server_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/assets', status: '200', le: '+Inf' })).toBeDefined();
    expect(sample('store_operation_duration_seconds_count', { store: 'postgresql', operation: 'statement' })?.value).toBeGreaterThan(0);
    expect(sample('store_operation_duration_seconds_count', { store: 'neo4j', operation: 'read' })?.value).toBeGreaterThan(0);
    expect(sample('store_operation_duration_seconds_count', { store: 'neo4j', operation: 'write' })?.value).toBeGreaterThan(0);
    expect(res.body.toString('utf8')).toContain('# TYPE store_errors_total counter');
    expect(exportedRows).toBeGreaterThan(3);
    expect(sample('export_rows_total', { dataset: 'assets', format: 'csv' })?.value).toBe(exportedBefore + exportedRows);
    expect(sample('export_rows_total', { dataset: 'software', format: 'csv' })?.value).toBe(softwareBefore + software.body.toString('utf8').trim().split('\r\n').length - 1);
    expect(sample('job_queue_jobs', { state: 'waiting' })?.value).toBeGreaterThanOrEqual(0);
    expect(sample('job_queue_jobs', { state: 'running' })?.value).toBeGreaterThanOrEqual(0);
    for (const status of ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED']) expect(sample('discovery_runs', { status })?.value).toBe(0);
    expect(sample('process_cpu_seconds_total', {})).toBeDefined();
  });

  it('counts discovery runs by status', async () => {
    const targets = await key.get('/api/v1/discovery/targets');
    const target = targets.body.data.find((t: { name: string }) => t.name === 'metrics-target');
    expect((await key.post(`/api/v1/discovery/targets/${target.id}/scan`)).status).toBe(202);
    const res = await raw(`${service.url}/metrics`, 'GET', auth);
    const samples = parsePrometheus(res.body.toString('utf8'));
    const runs = samples.filter((s) => s.name === 'discovery_runs').reduce((sum, s) => sum + s.value, 0);
    expect(runs).toBe(1);
  });
});
