// Every operation of api.yaml, called with hostile values of every class of issue 17 (charsets,
// false gzip, huge numbers, deep nesting, NUL and surrogates, oversized URLs and headers, wrong
// types): no answer is a 5xx, every error is problem+json, and a request that failed changed no data.
import http from 'node:http';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { importEstate } from '../support/estate.js';
import { fuzzRequests, loadApi, type FuzzRequest } from '../support/openapi-fuzzer.js';
import { ADMIN_PASSWORD, createPrincipals, createUser, type Principals } from '../support/principals.js';
import { storeSnapshot } from '../support/store-snapshot.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** One request as bytes on the wire (fetch would refuse or normalise most of these). */
function send(base: URL, req: Pick<FuzzRequest, 'method' | 'path' | 'headers' | 'body'>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body) headers['content-length'] = req.body.length;
    const call = http.request({ host: base.hostname, port: base.port, method: req.method, path: `${base.pathname.replace(/\/$/, '')}${req.path}`, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    call.on('error', reject);
    call.end(req.body);
  });
}

describe('hostile input against every operation of api.yaml', () => {
  let service: TestService;
  let p: Principals;
  let base: URL;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    base = new URL(service.url);
  });
  afterAll(() => service.stop());

  const snapshot = () => storeSnapshot(service);

  it('answers every variant with a 4xx or a 2xx, errors as problem+json, and a failed write writes nothing', async () => {
    const ids = await importEstate(p.integrationKey);
    const admin = p.adminSession;
    const victimUser = await createUser(admin, 'fuzz-victim', ['VIEWER']);
    const key = await admin.post('/api/v1/integration-keys', { name: 'fuzz-victim-key' });
    const token = await p.apiUserSession.post('/api/v1/me/tokens', { name: 'fuzz-victim-token' });
    const credential = await admin.post('/api/v1/credentials', { name: 'fuzz-cred', kind: 'SNMP_V2C', matchPatterns: ['10.9.9.0/24'], secrets: { community: 'fuzz' } });
    const target = await admin.post('/api/v1/discovery/targets', { name: 'fuzz-target', addresses: ['127.0.0.1'], methods: ['SWEEP'] });
    expect([key.status, token.status, credential.status, target.status]).toEqual([201, 201, 201, 201]);
    const known: Record<string, string> = {
      assetId: ids.vm1 as string,
      userId: victimUser,
      keyId: key.body.data.id,
      tokenId: token.body.data.id,
      credentialId: credential.body.data.id,
      targetId: target.body.data.id,
      addresses: '127.0.0.1',
      matchPatterns: '10.9.9.0/24',
      roles: 'VIEWER',
      type: 'VM',
      name: 'aging-sweep',
      assetType: 'SERVER',
      username: 'fuzz-nobody',
      password: 'a-fuzz-password-1234',
    };
    const integrationKey = p.integrationKey.headers('GET');
    const requests = fuzzRequests(loadApi(fromProjectRoot('api.yaml')), known, integrationKey);
    expect(requests.length).toBeGreaterThan(800);

    const failures: string[] = [];
    const check = (req: FuzzRequest, answer: RawAnswer, changed: boolean) => {
      if (answer.status >= 500) failures.push(`${req.label}: ${answer.status} ${answer.text.slice(0, 200)}`);
      if (answer.status < 400) return;
      if (!answer.contentType.startsWith('application/problem+json')) failures.push(`${req.label}: ${answer.status} as ${answer.contentType || 'no content type'}`);
      else if (JSON.parse(answer.text).status !== answer.status) failures.push(`${req.label}: problem status differs from ${answer.status}`);
      if (changed) failures.push(`${req.label}: answered ${answer.status} but changed data`);
    };
    let before = await snapshot();
    for (let at = 0; at < requests.length; ) {
      const req = requests[at] as FuzzRequest;
      if (req.method === 'GET') {
        // Reads go a few at a time; each write alone, between two pictures of the data.
        let end = at;
        while (end < requests.length && end - at < 6 && requests[end]?.method === 'GET') end += 1;
        const batch = requests.slice(at, end);
        const answers = await Promise.all(batch.map((r) => send(base, r)));
        batch.forEach((r, k) => check(r, answers[k] as RawAnswer, false));
        at = end;
        continue;
      }
      const answer = await send(base, req);
      const after = await snapshot();
      check(req, answer, after !== before);
      before = after;
      at += 1;
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it.each([
    ['a 100 kB URL', { method: 'GET', path: `/api/v1/assets?q=${'x'.repeat(100_000)}`, headers: {} }],
    ['a 40 kB header', { method: 'GET', path: '/api/v1/assets', headers: { 'x-fuzz': 'y'.repeat(40_000) } }],
  ])('answers %s with problem+json (Node refuses it before Express sees it)', async (_what, req) => {
    const answer = await send(base, { ...req, headers: { ...p.integrationKey.headers('GET'), ...req.headers } });
    expect(answer.status).toBe(431);
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.text)).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
  });
});
