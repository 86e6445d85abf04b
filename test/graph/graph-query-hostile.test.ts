// POST /graph/query tried as an attacker would, against the real service and Neo4j: a table of
// hostile statements (comment endings Neo4j reads differently from a hand tokenizer, escapes,
// prefixes, other databases, writing subqueries, LOAD CSV over file and http, administration,
// procedures, nesting, memory bombs) and a flood of slow queries. Each is refused or bounded with
// its documented problem, never a 5xx; nothing reaches the file system or the network; the graph is
// unchanged; GET /assets answers throughout; the same Neo4j process still answers at the end.
import { demoEstate } from '../../src/tools/demo-estate.js';
import type { ApiClient } from '../support/api-client.js';
import { listenerPid } from '../support/processes.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, testNeo4jDriver, testNeo4jUri, type TestService } from '../support/test-stores.js';
import { startTrapServer, type TrapServer } from '../support/trap-server.js';

const QUERY_PATH = '/api/v1/graph/query';
// Long enough that the memory-bound statements reach their memory limit first on a loaded machine.
const TIMEOUT_MS = 10_000;
const LOAD_FILE = 'LOAD CSV FROM "file:///etc/passwd" AS l RETURN l[0] AS x';
// Never in an answer: the first line of /etc/passwd.
const PASSWD = /root:x?:?0:0/;

/** Every node and relationship with its labels or type and properties, one line each (a change shows as a diff of lines). */
async function graphLines(): Promise<string[]> {
  const driver = testNeo4jDriver();
  try {
    const { records } = await driver.executeQuery(`
      CALL () { MATCH (n) WITH n ORDER BY elementId(n) RETURN collect([elementId(n), labels(n), properties(n)]) AS nodes }
      CALL () { MATCH ()-[r]->() WITH r ORDER BY elementId(r) RETURN collect([elementId(r), type(r), properties(r)]) AS rels }
      RETURN nodes, rels`);
    const { nodes, rels } = records[0]?.toObject() as { nodes: unknown[][]; rels: unknown[][] };
    return [...nodes, ...rels].map((entry) => JSON.stringify(entry.map((part) => part !== null && typeof part === 'object' && !Array.isArray(part) ? Object.fromEntries(Object.entries(part).sort(([a], [b]) => a.localeCompare(b))) : part)));
  } finally {
    await driver.close();
  }
}

type Expected = { status: 400; kind?: string } | { status: 422; detail: RegExp } | { status: 200; rows: unknown[] };

const refused = (kind: string): Expected => ({ status: 400, kind });
const notAccepted: Expected = { status: 400 };

describe('POST /graph/query against a hostile corpus', () => {
  let service: TestService;
  let p: Principals;
  let trap: TrapServer;
  let neo4jPid: number;
  let graphBefore: string[];
  let assetsProbe: { stop: () => Promise<number[]> };

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, graphQueryTimeoutMs: TIMEOUT_MS });
    p = await createPrincipals(service.url);
    for (const bundle of demoEstate(20)) expect((await p.integrationKey.post('/api/v1/import', bundle)).status).toBe(200);
    trap = await startTrapServer();
    neo4jPid = listenerPid(Number(new URL(testNeo4jUri()).port));
    graphBefore = await graphLines();
    // GET /assets all along, one at a time: every answer is kept.
    let running = true;
    const statuses: number[] = [];
    const loop = (async () => {
      while (running) {
        statuses.push((await p.integrationKey.get('/api/v1/assets?size=5')).status);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    assetsProbe = { stop: async () => { running = false; await loop; return statuses; } };
  }, 180_000);

  afterAll(async () => {
    await assetsProbe?.stop();
    await trap?.close();
    await service?.stop();
  });

  const corpus = (): [string, object, Expected][] => [
    // A // comment ends at LF, CR and CRLF for Neo4j; what follows is read, and checked on its plan.
    ...[['LF', '\n'], ['CR', '\r'], ['CRLF', '\r\n']].map(([name, end]) => [`a // comment ended by ${name}`, { query: `RETURN "" AS x // c${end} UNION ALL ${LOAD_FILE}` }, refused('LOAD_CSV')] as [string, object, Expected]),
    // U+2028, U+2029 and U+0085 do not end it for Neo4j: the rest is comment, and the answer is the first part's.
    ...[['U+2028', '\u2028'], ['U+2029', '\u2029'], ['U+0085', '\u0085']].map(([name, end]) => [`a // comment "ended" by ${name}`, { query: `RETURN "" AS x // c${end} UNION ALL ${LOAD_FILE}` }, { status: 200, rows: [{ x: '' }] }] as [string, object, Expected]),
    ['a block comment hiding nothing', { query: `RETURN 1 AS x /* */ UNION ALL ${LOAD_FILE.replace('l[0]', 'size(l)')}` }, refused('LOAD_CSV')],
    ['a unicode escape in a keyword', { query: '\\u0043REATE (n:Intruder) RETURN n' }, notAccepted],
    ['a backticked keyword', { query: '`CREATE` (n:Intruder) RETURN n' }, notAccepted],
    ['a keyword as a backticked name', { query: 'MATCH (a:Asset) RETURN a.`CREATE` AS c LIMIT 1' }, { status: 200, rows: [{ c: null }] }],
    ['a CYPHER prefix', { query: `CYPHER runtime=slotted ${LOAD_FILE}` }, refused('LOAD_CSV')],
    ['a CYPHER version prefix with a write', { query: 'CYPHER 5 MATCH (a:Asset) SET a.owner = "intruder"' }, refused('WRITE')],
    ['an EXPLAIN prefix', { query: `EXPLAIN ${LOAD_FILE}` }, refused('LOAD_CSV')],
    ['a PROFILE prefix', { query: `PROFILE ${LOAD_FILE}` }, notAccepted],
    ['USE system', { query: 'USE system SHOW USERS' }, notAccepted],
    ['USE system with a read', { query: 'USE system MATCH (n) RETURN n' }, notAccepted],
    ['a CALL subquery that writes', { query: 'MATCH (a:Asset) CALL (a) { SET a.owner = "intruder" } RETURN count(*) AS n' }, refused('WRITE')],
    ['a CALL subquery in transactions', { query: 'CALL { CREATE (:Intruder) } IN TRANSACTIONS' }, refused('WRITE')],
    ['a COLLECT subquery that loads a file', { query: `RETURN COLLECT { ${LOAD_FILE} } AS c` }, refused('LOAD_CSV')],
    ['a COLLECT subquery inside a list comprehension', { query: `RETURN [i IN [1] | COLLECT { ${LOAD_FILE} }] AS c` }, refused('SUBQUERY_EXPRESSION')],
    ['a procedure inside reduce()', { query: 'RETURN reduce(s = 0, i IN [1] | s + COUNT { CALL dbms.listConfig() YIELD name RETURN name }) AS c' }, refused('SUBQUERY_EXPRESSION')],
    ['LOAD CSV from a file', { query: 'LOAD CSV FROM "file:///etc/hostname" AS l RETURN l' }, refused('LOAD_CSV')],
    ['LOAD CSV from a parameter', { query: 'LOAD CSV FROM $url AS l RETURN l', parameters: { url: 'file:///etc/passwd' } }, refused('LOAD_CSV')],
    ['LOAD CSV over http', { query: `LOAD CSV FROM "${'TRAP'}" AS l RETURN l` }, refused('LOAD_CSV')],
    ['SHOW USERS', { query: 'SHOW USERS' }, refused('ADMINISTRATION')],
    ['SHOW SETTINGS', { query: 'SHOW SETTINGS YIELD name, value RETURN name, value' }, refused('ADMINISTRATION')],
    ['SHOW TRANSACTIONS', { query: 'SHOW TRANSACTIONS' }, refused('ADMINISTRATION')],
    ['TERMINATE TRANSACTIONS', { query: 'TERMINATE TRANSACTIONS "neo4j-transaction-1"' }, refused('ADMINISTRATION')],
    ['ALTER USER', { query: 'ALTER USER neo4j SET PASSWORD "intruder-password-1"' }, refused('ADMINISTRATION')],
    ['CREATE USER', { query: 'CREATE USER intruder SET PASSWORD "intruder-password-1"' }, refused('ADMINISTRATION')],
    ['GRANT', { query: 'GRANT ROLE admin TO intruder' }, notAccepted],
    ['CREATE INDEX', { query: 'CREATE INDEX intruder FOR (n:Asset) ON (n.intruder)' }, refused('ADMINISTRATION')],
    ['dbms.listConfig', { query: 'CALL dbms.listConfig() YIELD name, value RETURN name, value' }, refused('PROCEDURE')],
    ['dbms.components', { query: 'CALL dbms.components()' }, refused('PROCEDURE')],
    ['db.clearQueryCaches', { query: 'CALL db.clearQueryCaches()' }, refused('PROCEDURE')],
    ['tx.setMetaData', { query: 'CALL tx.setMetaData({owner: "intruder"})' }, refused('PROCEDURE')],
    ['a plug-in procedure', { query: 'CALL apoc.load.json("file:///etc/passwd")' }, notAccepted],
    ['an allowed procedure', { query: 'CALL db.labels() YIELD label WHERE label = "Asset" RETURN label' }, { status: 200, rows: [{ label: 'Asset' }] }],
    ['a map parameter', { query: 'RETURN $m AS m', parameters: { m: { a: 1 } } }, notAccepted],
    ['a nested list parameter', { query: 'RETURN $l AS l', parameters: { l: [[1]] } }, notAccepted],
    ['a list of maps parameter', { query: 'RETURN $l AS l', parameters: { l: [{ a: 1 }] } }, notAccepted],
    ['brackets nested 10,000 deep', { query: `RETURN ${'['.repeat(10_000)}1${']'.repeat(10_000)} AS x` }, notAccepted],
    ['maps nested 1,000 deep', { query: `RETURN ${'{a:'.repeat(1000)}1${'}'.repeat(1000)} AS x` }, refused('TOO_DEEP')],
    ['parentheses nested 500 deep behind a string that closes them', { query: `RETURN ")))))" + ${'('.repeat(500)}"x"${')'.repeat(500)} AS x` }, refused('TOO_DEEP')],
    ['a string doubled 29 times', { query: 'RETURN size(reduce(s = "x", i IN range(1, 29) | s + s)) AS s' }, { status: 422, detail: /more memory than the graph database has/ }],
    ['a list of 200 million numbers', { query: 'UNWIND range(1, 200000000) AS i WITH collect(i) AS c RETURN size(c) AS n' }, { status: 422, detail: /db\.memory\.transaction\.max|dbms\.memory\.transaction\.total\.max/ }],
    ['a shortest path between a node and itself', { query: 'MATCH (a:Asset) WITH a LIMIT 1 MATCH p = shortestPath((a)-[*..15]-(a)) RETURN count(p) AS c' }, { status: 422, detail: /Neo4j could not run the query/ }],
  ];

  it('refuses or bounds every statement of the corpus with its documented problem, and nothing reaches the file system or the network', async () => {
    for (const [name, body, expected] of corpus()) {
      const sent = JSON.parse(JSON.stringify(body).replace('TRAP', trap.url)) as object;
      const res = await p.analyst.post(QUERY_PATH, sent);
      expect({ name, status: res.status }).toEqual({ name, status: expected.status });
      expect({ name, leaked: PASSWD.test(res.text) }).toEqual({ name, leaked: false });
      if (expected.status === 200) {
        expect({ name, rows: res.body.data.rows }).toEqual({ name, rows: expected.rows });
      } else {
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        if (expected.status === 400 && expected.kind) expect({ name, kind: res.body.errors?.[0] }).toEqual({ name, kind: { path: 'body.query', message: expected.kind } });
        if (expected.status === 422) expect({ name, detail: res.body.detail }).toEqual({ name, detail: expect.stringMatching(expected.detail) });
      }
    }
    expect(trap.hits()).toBe(0);
  }, 300_000);

  it('answers 200 slow queries at once with 422 or 429 (Retry-After), never a 5xx, and GET /assets answers all along', async () => {
    const slow = { query: 'UNWIND range(1, 100000000000) AS i WITH i WHERE i < 0 RETURN i' };
    const clients: ApiClient[] = [p.analyst, p.integrationKey, p.adminToken, p.discoveryAdminToken];
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => (clients[i % clients.length] as ApiClient).post(QUERY_PATH, slow)));
    const statuses = answers.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([422, 429]));
    for (const res of answers.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const metrics = await p.integrationKey.get('/metrics');
    expect(metrics.text).toMatch(/graph_query_rejections_total\{reason="PER_PRINCIPAL"\} [1-9]/);
  }, 300_000);

  it('leaves the graph as it was, GET /assets answered 200 throughout, and the same Neo4j process answers at the end', async () => {
    expect(await graphLines()).toEqual(graphBefore);
    const statuses = await assetsProbe.stop();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(listenerPid(Number(new URL(testNeo4jUri()).port))).toBe(neo4jPid);
    expect((await p.integrationKey.get('/health/ready')).status).toBe(200);
  });
});
