// POST /graph/query against the real service and Neo4j: the documented example queries on a demo
// estate, every refused class with the graph unchanged, the READ transaction as the last line of
// defence, the time-out (the query is gone from Neo4j), the row cap, the audit trail and the roles.
import neo4j from 'neo4j-driver';
import { translate } from '../../src/features/graph-query/ad-hoc-query-graph-repository.js';
import { documentedQueries } from '../../src/features/graph-query/documented-queries.js';
import { encodeValue, GraphCollector } from '../../src/features/graph-query/graph-values.js';
import { demoEstate } from '../../src/tools/demo-estate.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, testNeo4jDriver, testNeo4jPassword, type TestService } from '../support/test-stores.js';

const QUERY_PATH = '/api/v1/graph/query';

async function direct<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const driver = testNeo4jDriver();
  try {
    const result = await driver.executeQuery(query, params, { database: 'neo4j' });
    return result.records.map((r) => r.toObject() as T);
  } finally {
    await driver.close();
  }
}

async function graphCounts(): Promise<{ nodes: number; relationships: number }> {
  const [row] = await direct<{ nodes: number; relationships: number }>('MATCH (n) WITH count(n) AS nodes OPTIONAL MATCH ()-[r]->() RETURN nodes, count(r) AS relationships');
  return { nodes: Number(row?.nodes), relationships: Number(row?.relationships) };
}

describe('POST /graph/query', () => {
  let service: TestService;
  let p: Principals;
  let analyst: ApiClient;
  const TIMEOUT_MS = 1500;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, graphQueryTimeoutMs: TIMEOUT_MS });
    p = await createPrincipals(service.url);
    analyst = p.analyst;
    for (const bundle of demoEstate(40)) expect((await p.integrationKey.post('/api/v1/import', bundle)).status).toBe(200);
    // What the example queries about scan failures, staleness and old sightings look for: the
    // demo import observes everything now, so three hosts are aged here.
    await direct(`MATCH (h:Host) WITH h ORDER BY h.displayName LIMIT 3
      SET h.consecutiveScanFailures = 2, h.lastScanOutcome = 'FAILED', h.lastScanAt = datetime(), h.status = 'STALE', h.lastSeenAt = datetime() - duration('P10D')`);
  }, 180_000);
  afterAll(() => service.stop());

  it('runs every example query of docs/graph-model.md and answers what Neo4j answers, with the documented columns', async () => {
    const queries = documentedQueries();
    expect(queries).toHaveLength(10);
    for (const query of queries) {
      const res = await analyst.post(QUERY_PATH, { query });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      const expected = await direct<Record<string, unknown>>(query);
      expect({ query, empty: res.body.data.rows.length === 0 }).toEqual({ query, empty: false });
      // The same rows as Neo4j gives a direct client (order aside: ties of ORDER BY may differ).
      const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
      const collector = new GraphCollector();
      expect(sorted(res.body.data.rows)).toEqual(sorted(expected.map((row) => encodeValue(row, collector))));
      expect(res.body.data.truncated).toBe(false);
      // Columns as RETURN names them.
      expect(res.body.data.columns).toEqual(Object.keys(expected[0] as object));
    }
  });

  it('gives the documented results: VMs per hypervisor, busiest first, and the software of the hosts of one site', async () => {
    const [first, second] = documentedQueries();
    const vms = await analyst.post(QUERY_PATH, { query: first });
    const counts = vms.body.data.rows.map((r: { vms: number }) => r.vms);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    const hostedVms = await direct<{ c: number }>("MATCH (:Host {assetType: 'HYPERVISOR'})-[:HOSTS_VM]->(vm:Host {assetType: 'VM'}) RETURN count(vm) AS c");
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(Number(hostedVms[0]?.c));
    const software = await analyst.post(QUERY_PATH, { query: second });
    for (const row of software.body.data.rows) {
      expect(typeof row.host).toBe('string');
      expect(Array.isArray(row.software)).toBe(true);
    }
  });

  it('returns nodes, relationships and paths in a shape a graph view draws, beside plain values', async () => {
    const res = await analyst.post(QUERY_PATH, {
      query: 'MATCH p = (h:Host {assetType: $type})-[r:HOSTS_VM]->(vm) RETURN h, r, vm.displayName AS name, p, h.lastSeenAt AS seen LIMIT 3',
      parameters: { type: 'HYPERVISOR' },
    });
    expect(res.status).toBe(200);
    const { columns, rows, graph } = res.body.data;
    expect(columns).toEqual(['h', 'r', 'name', 'p', 'seen']);
    const [row] = rows;
    expect(row.h).toMatchObject({ $kind: 'node', id: expect.any(String), labels: expect.arrayContaining(['Asset', 'Host']), properties: expect.objectContaining({ assetType: 'HYPERVISOR' }) });
    expect(row.r).toMatchObject({ $kind: 'relationship', type: 'HOSTS_VM', startNode: row.h.id });
    expect(row.p).toEqual({ $kind: 'path', nodes: [row.h.id, row.r.endNode], relationships: [row.r.id] });
    expect(typeof row.name).toBe('string');
    expect(new Date(row.seen).getTime()).not.toBeNaN();
    const nodeIds = graph.nodes.map((n: { id: string }) => n.id);
    expect(new Set(nodeIds).size).toBe(nodeIds.length);
    expect(nodeIds).toEqual(expect.arrayContaining([row.h.id, row.r.endNode]));
    expect(graph.relationships.map((r: { id: string }) => r.id)).toContain(row.r.id);
  });

  it('takes plain parameters (a whole number as an integer for LIMIT) and refuses maps and nested lists', async () => {
    const ok = await analyst.post(QUERY_PATH, { query: 'MATCH (a:Asset) WHERE a.assetType IN $types RETURN a.assetType AS t LIMIT $n', parameters: { types: ['VM', 'HYPERVISOR'], n: 2 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.rows).toHaveLength(2);
    for (const parameters of [{ m: { a: 1 } }, { l: [[1]] }, { l: [{ a: 1 }] }]) {
      const res = await analyst.post(QUERY_PATH, { query: 'RETURN 1 AS x', parameters });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
  });

  it('holds the row cap, 1,000 by default and at most 10,000, and says when it cut', async () => {
    const many = 'UNWIND range(1, 20000) AS i RETURN i';
    const byDefault = await analyst.post(QUERY_PATH, { query: many });
    expect(byDefault.body.data).toMatchObject({ limit: 1000, truncated: true });
    expect(byDefault.body.data.rows).toHaveLength(1000);
    const capped = await analyst.post(QUERY_PATH, { query: many, limit: 10_000 });
    expect(capped.body.data.rows).toHaveLength(10_000);
    expect(capped.body.data.truncated).toBe(true);
    const exact = await analyst.post(QUERY_PATH, { query: 'UNWIND range(1, 5) AS i RETURN i', limit: 5 });
    expect(exact.body.data).toMatchObject({ truncated: false, rows: [{ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }, { i: 5 }] });
    expect((await analyst.post(QUERY_PATH, { query: many, limit: 10_001 })).status).toBe(400);
    expect((await analyst.post(QUERY_PATH, { query: many, limit: 0 })).status).toBe(400);
  });

  it('refuses each forbidden class with a 400 that says why, and the graph is unchanged', async () => {
    const before = await graphCounts();
    const refused: [string, string][] = [
      ['CREATE (n:Asset {id: "intruder"}) RETURN n', 'WRITE'],
      ['MATCH (n) DETACH DELETE n', 'WRITE'],
      ['MATCH (a:Asset) SET a.status = "DECOMMISSIONED"', 'WRITE'],
      ['MERGE (n:Intruder)', 'WRITE'],
      ['MATCH (a) /* quietly */ REMOVE a:Asset', 'WRITE'],
      ['MATCH (a:Asset) CALL (a) { SET a.x = 1 } IN TRANSACTIONS OF 10 ROWS', 'WRITE'],
      ['LOAD CSV FROM "file:///etc/passwd" AS line RETURN line', 'LOAD_CSV'],
      ['CREATE INDEX intruder IF NOT EXISTS FOR (n:Asset) ON (n.intruder)', 'ADMINISTRATION'],
      ['DROP CONSTRAINT asset_id_unique', 'ADMINISTRATION'],
      ['SHOW USERS', 'ADMINISTRATION'],
      ['CALL dbms.listConfig()', 'PROCEDURE'],
      ['RETURN [x IN [1] | COUNT { MATCH (n) RETURN n }] AS c', 'SUBQUERY_EXPRESSION'],
      [`RETURN ${'['.repeat(65)}1${']'.repeat(65)} AS deep`, 'TOO_DEEP'],
    ];
    for (const [query, kind] of refused) {
      const res = await analyst.post(QUERY_PATH, { query });
      expect({ query, status: res.status, kind: res.body.errors?.[0] }).toEqual({ query, status: 400, kind: { path: 'body.query', message: kind } });
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.detail).toMatch(/^The query was not run: /);
    }
    expect(await graphCounts()).toEqual(before);
  });

  it('runs in a READ transaction: a write that got past the check is refused by Neo4j itself', async () => {
    const before = await graphCounts();
    const driver = testNeo4jDriver();
    try {
      const session = driver.session({ defaultAccessMode: neo4j.session.READ });
      await expect(session.executeRead((tx) => tx.run('CREATE (:Intruder)'))).rejects.toMatchObject({ code: 'Neo.ClientError.Statement.AccessMode' });
      await session.close();
    } finally {
      await driver.close();
    }
    expect(translate(Object.assign(new Error('write'), { code: 'Neo.ClientError.Statement.AccessMode' }), 1000)).toMatchObject({ status: 400, message: expect.stringMatching(/only reads/) });
    expect(await graphCounts()).toEqual(before);
  });

  it('answers a query Neo4j does not accept with a 400 that gives its reason', async () => {
    const res = await analyst.post(QUERY_PATH, { query: 'MATCH (n RETURN n' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/Neo\.ClientError\.Statement\.SyntaxError/);
  });

  it('stops a query that would run for a minute at the time-out, and Neo4j no longer runs it', async () => {
    const query = 'UNWIND range(1, 100000000000) AS i WITH i WHERE i < 0 RETURN i';
    const started = Date.now();
    const res = await analyst.post(QUERY_PATH, { query });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/ran longer than 1500 ms \(service\.graph-query\.timeout-ms/);
    // The time-out plus a second (and slack for a loaded machine): far from the minute it would take.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000 + 5000);
    const running = await direct<{ currentQuery: string }>('SHOW TRANSACTIONS YIELD currentQuery, metaData WHERE metaData.graphQueryId IS NOT NULL OR currentQuery CONTAINS $text RETURN currentQuery', {
      text: '100000000000',
    });
    expect(running.filter((t) => !t.currentQuery.startsWith('SHOW TRANSACTIONS'))).toEqual([]);
    const audit = await p.adminToken.get('/api/v1/audit-events?action=graph.query&size=1000');
    expect(audit.body.data.find((e: { details: { query: string } }) => e.details.query === query)?.details.outcome).toBe('TIMED_OUT');
  });

  it('writes every query, run or refused, to the audit trail with its caller and text, never its results', async () => {
    const marker = `audit-marker-${Date.now()}`;
    await analyst.post(QUERY_PATH, { query: `RETURN '${marker}' AS secretResult` });
    await analyst.post(QUERY_PATH, { query: `CREATE (:X {m: '${marker}'})` });
    const audit = await p.adminToken.get('/api/v1/audit-events?action=graph.query&size=1000');
    expect(audit.status).toBe(200);
    const mine = audit.body.data.filter((e: { details: { query: string } }) => e.details.query.includes(marker));
    expect(mine).toHaveLength(2);
    for (const entry of mine) expect(entry).toMatchObject({ actorKind: 'USER', actorName: 'analyst' });
    expect(mine.map((e: { details: { outcome: string } }) => e.details.outcome).sort()).toEqual(['OK', 'REFUSED']);
    // The result value appears only inside the query text, never as a result.
    for (const entry of mine) expect(JSON.stringify(entry).split(marker)).toHaveLength(2);
  });

  it('is for ANALYST, DISCOVERY_ADMIN, ADMINISTRATOR and integration keys; a VIEWER and an API_USER get 403', async () => {
    const body = { query: 'MATCH (a:Asset) RETURN count(a) AS n' };
    for (const client of [p.analyst, p.discoveryAdminSession, p.adminSession, p.integrationKey]) expect((await client.post(QUERY_PATH, body)).status).toBe(200);
    for (const client of [p.viewer, p.apiUserSession, p.apiUserToken]) expect((await client.post(QUERY_PATH, body)).status).toBe(403);
    expect((await p.anonymous.post(QUERY_PATH, body)).status).toBe(401);
  });

  it('never shows the Neo4j password in an answer or a log line', async () => {
    await analyst.post(QUERY_PATH, { query: 'MATCH (n RETURN n' });
    const password = testNeo4jPassword();
    expect(service.logLines.join('\n')).not.toContain(password);
  });
});
