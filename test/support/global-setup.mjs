// One PostgreSQL for the whole run and one Neo4j per jest worker (Community edition has one graph,
// which every test file wipes): the real servers the service itself starts locally, or the ones
// named by DATABASE_URL / NEO4J_URI (then one worker: the files would share that graph). A template
// database is migrated once; each test file clones it (see test-stores.ts). Global set-up runs
// outside jest's module system, so it uses the compiled service (npm test builds it first).
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../dist/platform/logger.js';
import { ALLOWED_PROCEDURES } from '../../dist/features/graph-query/cypher-admission.js';
import { startLocalNeo4j } from '../../dist/platform/neo4j/local-neo4j-server.js';
import { startEmbeddedPostgres } from '../../dist/platform/postgres/embedded-postgres-server.js';
import { createDatabase, migrateToLatest } from '../../dist/platform/postgres/postgres-client.js';

const TEMPLATE_DATABASE = 'inventory_test_template';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function withDatabaseName(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export default async function globalSetup(globalConfig) {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn');
  const handles = { stops: [], root: undefined };
  globalThis.__testStores = handles;
  // Under /tmp: the embedded PostgreSQL runs as the postgres user, which must reach its folder.
  const root = mkdtempSync(path.join(os.tmpdir(), 'inventory-test-'));
  chmodSync(root, 0o755);
  handles.root = root;

  // Every JVM of the run (each worker's Neo4j, and those the tests start through the service)
  // compiles with C1 alone: a test run is short and runs much code a few times, where C2's
  // compiling costs more CPU than it saves (half of a Neo4j's start-up CPU on a 2-core machine, and
  // a quarter of a short query load). The service itself keeps the JVM's defaults.
  process.env.JAVA_TOOL_OPTIONS = [process.env.JAVA_TOOL_OPTIONS, '-XX:TieredStopAtLevel=1'].filter(Boolean).join(' ');
  const started = await Promise.allSettled([
    process.env.DATABASE_URL
      ? withDatabaseName(process.env.DATABASE_URL, 'postgres')
      : freePort().then(async (port) => {
          const server = await startEmbeddedPostgres({ dataDir: path.join(root, 'postgres'), passwordFile: path.join(root, 'postgres-password'), port, database: 'postgres', logger });
          handles.stops.push(server.stop);
          return server.adminUrl;
        }),
    ...(process.env.NEO4J_URI
      ? [{ uri: process.env.NEO4J_URI, password: process.env.NEO4J_PASSWORD ?? '' }]
      : Array.from({ length: Math.max(1, globalConfig.maxWorkers) }, (_, worker) =>
          freePort().then(async (boltPort) => {
            // Each in a folder of its own, laid out as the service lays out its data folder.
            const folder = path.join(root, `graph-${worker + 1}`);
            mkdirSync(folder);
            chmodSync(folder, 0o755);
            const server = await startLocalNeo4j({
              dataDir: path.join(folder, 'neo4j'),
              passwordFile: path.join(folder, 'neo4j-password'),
              boltPort,
              heap: '768m',
              pageCache: '256m',
              procedures: ALLOWED_PROCEDURES,
              logger,
            });
            handles.stops.push(server.stop);
            return server;
          }),
        )),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const [adminUrl, ...graphs] = started.map((s) => s.value);
  if (graphs.length < globalConfig.maxWorkers) throw new Error(`NEO4J_URI names one graph, which test files running side by side would wipe under each other: run with --maxWorkers=1`);

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const template = createDatabase({ url: withDatabaseName(adminUrl, TEMPLATE_DATABASE), poolMax: 1, timeoutMs: 10_000 });
  try {
    await migrateToLatest(template);
  } finally {
    await template.destroy();
  }

  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DATABASE;
  // Worker n (JEST_WORKER_ID) uses the n-th; the tests' own connections (wiping the graph,
  // counting) sign in as the neo4j user with its password.
  process.env.TEST_NEO4J_GRAPHS = JSON.stringify(graphs.map(({ uri, password }) => ({ uri, password })));
}
