import { loadApiDocument } from '../../src/platform/http/openapi.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTestService, startTestServiceBehindProxies, type TestService } from '../support/test-stores.js';

describe('the service with both stores up', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ contextPath: '/inventory' });
  });
  afterAll(() => service.stop());

  it('answers GET /health with 200 and each store UP, under the context path', async () => {
    expect(service.url).toMatch(/\/inventory$/);
    const res = await request(`${service.url}/health`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'UP', components: { postgresql: { status: 'UP' }, neo4j: { status: 'UP' } } });
  });

  it('serves Swagger UI at /swagger-ui.html with its assets beside it', async () => {
    const page = await request(`${service.url}/swagger-ui.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js']) {
      expect(page.text).toContain(`./${asset}`);
      const res = await fetch(`${service.url}/${asset}`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const init = await request(`${service.url}/swagger-ui-init.js`);
    // The page is given this deployment's server, the context path.
    expect(init.text).toContain('"url": "/inventory"');
  });

  it('serves the raw API document beside Swagger UI', async () => {
    const res = await request(`${service.url}/api.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    expect(res.text).toMatch(/^openapi: 3\./);
    expect(loadApiDocument('/inventory').servers).toEqual([{ url: '/inventory' }]);
  });

  it('answers an unknown path with a 404 problem+json, inside and outside the context path', async () => {
    for (const url of [`${service.url}/api/v1/no-such-thing`, `${service.url.replace('/inventory', '')}/health`]) {
      const res = await request(url);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 404, title: 'Not Found', type: expect.any(String), detail: expect.any(String) });
    }
  });

  it('rejects an undocumented query parameter with a 400 problem naming it', async () => {
    const res = await request(`${service.url}/health?verbose=1`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: expect.stringContaining('verbose') })]);
  });

  it('gives every request an id, echoed in a header and carried by its log line', async () => {
    const res = await request(`${service.url}/health`, { headers: { 'X-Request-Id': 'trace-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    const generated = await request(`${service.url}/health`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const line = service.logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === 'trace-abc.123');
    expect(line).toMatchObject({ message: 'request', method: 'GET', path: '/inventory/health', status: 200, level: 'info' });
  });
});

describe('the service when a store goes away', () => {
  let service: TestService;
  let neo4jProxy: TcpProxy;
  let postgresProxy: TcpProxy;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    // The service reaches both stores through the proxies.
    ({ service, neo4jProxy, postgresProxy, stop } = await startTestServiceBehindProxies({ storeTimeoutMs: 1500 }));
  });
  afterAll(() => stop());

  it('answers /health with 503 naming Neo4j when Neo4j is unreachable, and 200 once it is back', async () => {
    neo4jProxy.cut();
    const down = await request(`${service.url}/health`);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'DOWN', components: { postgresql: { status: 'UP' }, neo4j: { status: 'DOWN' } } });
    // Readiness fails with it; liveness does not (a restart would not bring the store back).
    const ready = await request(`${service.url}/health/ready`);
    expect([ready.status, ready.body]).toEqual([503, down.body]);
    const live = await request(`${service.url}/health/live`);
    expect([live.status, live.body]).toEqual([200, { status: 'UP' }]);
    neo4jProxy.restore();
    const back = await eventually(() => request(`${service.url}/health`), (r) => r.status === 200, 'the health once Neo4j is back');
    expect(back.status).toBe(200);
    expect((await request(`${service.url}/health/ready`)).status).toBe(200);
  });

  it('answers /health with 503 naming PostgreSQL when PostgreSQL is unreachable', async () => {
    postgresProxy.cut();
    const down = await request(`${service.url}/health`);
    expect(down.status).toBe(503);
    expect(down.body.components).toEqual({ postgresql: { status: 'DOWN' }, neo4j: { status: 'UP' } });
    postgresProxy.restore();
  });
});
