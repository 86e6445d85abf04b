// The first line of defence of POST /graph/query, on its own: what it refuses and what it lets
// through (the READ transaction behind it is tested in graph-query.test.ts).
import { refusalOf } from '../../src/features/graph-query/read-only-cypher.js';

describe('the read-only Cypher check', () => {
  it.each([
    ['MATCH (n:Asset) RETURN n.displayName AS name'],
    ['MATCH (n) WHERE n.status = "CREATE" RETURN n // DELETE everything'],
    ["MATCH (n) RETURN n /* SET n.x = 1; */, 'MERGE; DROP' AS s;"],
    ['MATCH (n) RETURN n.set, n.delete, {create: 1, remove: 2} AS m'],
    ['MATCH (n:Set)-[:DELETE]->(m) RETURN m'],
    ['MATCH (`CREATE`) RETURN `CREATE`'],
    ['CALL db.labels() YIELD label RETURN label'],
    ['CALL `db`.`relationshipTypes`()'],
    ['CALL DB.PROPERTYKEYS'],
    ['MATCH (n) CALL (n) { MATCH (n)--(m) RETURN count(m) AS c } RETURN n, c'],
    ['MATCH (n) CALL { WITH n MATCH (n)-->(m) RETURN m } RETURN m'],
    ['RETURN datetime() - duration("P7D") AS t, date.truncate("month", date()) AS d, point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS p'],
    ['MATCH (a:Asset) WHERE a.lastSeenAt < $since RETURN a LIMIT $n'],
    ['EXPLAIN MATCH (n) RETURN n'],
    ["RETURN 'it''s' AS a, \"say \\\"SET\\\"\" AS b"],
  ])('lets %s through', (query) => {
    expect(refusalOf(query)).toBeNull();
  });

  it.each([
    ['CREATE (n:Asset {id: "x"})', 'WRITE'],
    ['match (n) detach delete n', 'WRITE'],
    ['MATCH (n) SET n.status = "GONE"', 'WRITE'],
    ['MATCH (n:Asset) REMOVE n:Asset', 'WRITE'],
    ['MERGE (n:X)', 'WRITE'],
    ['MATCH (n) FOREACH (x IN [1] | SET n.y = x)', 'WRITE'],
    ['MATCH (n) /* a comment */ DELETE /* and another */ n', 'WRITE'],
    ['MATCH (n) CALL (n) { DELETE n } RETURN 1', 'WRITE'],
    ['MATCH (n) CALL (n) { SET n.x = 1 } IN TRANSACTIONS OF 10 ROWS', 'WRITE'],
    ['MATCH (n) CALL { WITH n RETURN n } IN TRANSACTIONS RETURN n', 'WRITE'],
    ['USING PERIODIC COMMIT 500 LOAD CSV FROM "file:///etc/passwd" AS row RETURN row', 'WRITE'],
    ['LOAD CSV FROM "file:///etc/passwd" AS row RETURN row', 'LOAD_CSV'],
    ['load csv with headers from "https://example.com/x.csv" as row return row', 'LOAD_CSV'],
    ['DROP INDEX asset_status', 'ADMINISTRATION'],
    ['CREATE TEXT INDEX x FOR (n:Asset) ON (n.name)', 'ADMINISTRATION'],
    ['CREATE CONSTRAINT x FOR (n:Asset) REQUIRE n.id IS UNIQUE', 'ADMINISTRATION'],
    ['CREATE OR REPLACE DATABASE x', 'ADMINISTRATION'],
    ['CREATE USER bob SET PASSWORD "secret-password"', 'ADMINISTRATION'],
    ['SHOW USERS', 'ADMINISTRATION'],
    ['SHOW TRANSACTIONS', 'ADMINISTRATION'],
    ['TERMINATE TRANSACTION "neo4j-transaction-1"', 'ADMINISTRATION'],
    ['ALTER USER neo4j SET PASSWORD "x"', 'ADMINISTRATION'],
    ['USE system SHOW DATABASES', 'ADMINISTRATION'],
    ['STOP DATABASE neo4j', 'ADMINISTRATION'],
    ['GRANT ROLE admin TO bob', 'ADMINISTRATION'],
    ['CALL dbms.security.listUsers()', 'PROCEDURE'],
    ['CALL dbms.killQueries(["x"])', 'PROCEDURE'],
    ['CALL apoc.cypher.runWrite("CREATE (n)", {})', 'PROCEDURE'],
    ['CALL `apoc`.`periodic`.`iterate`("MATCH (n) RETURN n", "DELETE n", {})', 'PROCEDURE'],
    ['CALL db.createLabel("X")', 'PROCEDURE'],
    ['MATCH (n) CALL { CALL apoc.load.json("file:///x") YIELD value RETURN value } RETURN value', 'PROCEDURE'],
    ['RETURN apoc.cypher.runFirstColumnSingle("MATCH (n) RETURN n", {})', 'FUNCTION'],
    ['RETURN dbms . components ( )', 'FUNCTION'],
    ['MATCH (n) RETURN n; MATCH (m) RETURN m', 'SEVERAL_STATEMENTS'],
    ['MATCH (n) RETURN n;;', 'SEVERAL_STATEMENTS'],
    ['RETURN "unclosed', 'SYNTAX'],
    ['MATCH (n) RETURN n /* unclosed', 'SYNTAX'],
    ['  // only a comment', 'SYNTAX'],
  ])('refuses %s (%s)', (query, kind) => {
    expect(refusalOf(query)?.kind).toBe(kind);
  });
});
