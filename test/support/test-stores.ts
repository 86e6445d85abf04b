// Per test file: a fresh PostgreSQL database cloned from the migrated template, an empty graph,
// and the real service started on a free port against both, its log lines captured.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import neo4j, { type Driver } from 'neo4j-driver';
import pg from 'pg';
import { loadConfig, type ConfigOverrides } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { startService, type RunningService } from '../../src/start-service.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { forgetClock, registerClock, TestClock } from './test-clock.js';

export function withDatabaseName(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function templateDatabase(): string {
  return process.env.TEST_PG_TEMPLATE ?? 'inventory_test_template';
}

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (npm test)');
  return url;
}

/** This jest worker's own Neo4j (global-setup.mjs starts one per worker). */
function testGraph(): { uri: string; password: string } {
  const graphs = process.env.TEST_NEO4J_GRAPHS;
  if (!graphs) throw new Error('TEST_NEO4J_GRAPHS is not set: run the tests through jest (npm test)');
  const list = JSON.parse(graphs) as { uri: string; password: string }[];
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const graph = list[worker - 1];
  if (!graph) throw new Error(`no Neo4j for jest worker ${worker} (${list.length} started)`);
  return graph;
}

export function testNeo4jUri(): string {
  return testGraph().uri;
}

export function testNeo4jPassword(): string {
  return testGraph().password;
}

/** The settings that point a service at the tests' Neo4j. */
export function testNeo4jSettings(): { neo4jUri: string; neo4jPassword: string } {
  return { neo4jUri: testNeo4jUri(), neo4jPassword: testNeo4jPassword() };
}

/** A driver signed in to the tests' Neo4j (close it after use). */
export function testNeo4jDriver(): Driver {
  return neo4j.driver(testNeo4jUri(), neo4j.auth.basic('neo4j', testNeo4jPassword()));
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new database with every migration applied (cloned from the template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase()}`));
  return {
    name,
    url: withDatabaseName(adminUrl(), name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** An empty database with no migration applied (for the migration tests). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `empty_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: withDatabaseName(adminUrl(), name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export async function wipeGraph(): Promise<void> {
  const driver = testNeo4jDriver();
  const session = driver.session();
  try {
    // Batched in an auto-commit transaction, which CALL ... IN TRANSACTIONS requires.
    await session.run('MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS');
  } finally {
    await session.close();
    await driver.close();
  }
}

export interface TestService {
  /** Base URL including the context path. */
  url: string;
  running: RunningService;
  /** Every log line the service wrote, as raw JSON text. */
  logLines: string[];
  database: TestDatabase;
  /** The service's data folder (its generated local keys live there). */
  dataDir: string;
  /** The time the service reads for expiries; a test moves it on instead of waiting. */
  clock: TestClock;
  stop(): Promise<void>;
}

/**
 * Starts the real service (all roles) on a free port against a fresh database and an empty graph.
 * `postgresPort` reaches the same PostgreSQL through another port (a test's TCP proxy).
 */
export async function startTestService(overrides: ConfigOverrides = {}, { postgresPort }: { postgresPort?: number } = {}): Promise<TestService> {
  const database = await createTestDatabase();
  const databaseUrl = new URL(database.url);
  if (postgresPort) databaseUrl.port = String(postgresPort);
  await wipeGraph();
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = chunk.toString('utf8').split('\n').filter(Boolean);
      logLines.push(...lines);
      // An error in the service is worth seeing beside the failing test.
      for (const line of lines) if (line.includes('"level":"error"')) process.stderr.write(`service error: ${line}\n`);
      done();
    },
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inventory-data-'));
  const config = loadConfig({
    file: false,
    overrides: {
      databaseUrl: databaseUrl.toString(),
      ...testNeo4jSettings(),
      port: 0,
      validateResponses: true,
      logLevel: 'debug',
      dataDir,
      jobsLockLifetimeMs: 2000,
      jobsPollIntervalMs: 200,
      // The flow collector on free ports: test files run side by side.
      flowsNetflowPort: 0,
      flowsSflowPort: 0,
      // Reads are bounded by it: tests share two loaded cores, where a read may take seconds.
      storeTimeoutMs: 30_000,
      ...overrides,
    },
  });
  const clock = new TestClock();
  const running = await startService(config, createLogger(config.logLevel, sink), { clock });
  const url = running.url ?? '';
  registerClock(url, clock);
  return {
    url,
    running,
    logLines,
    database,
    dataDir,
    clock,
    stop: async () => {
      forgetClock(url);
      await running.stop();
      await database.drop();
    },
  };
}

/** The service reaching both stores through TCP proxies, so that a test can take either store away and give it back. */
export async function startTestServiceBehindProxies(overrides: ConfigOverrides = {}): Promise<{ service: TestService; neo4jProxy: TcpProxy; postgresProxy: TcpProxy; stop(): Promise<void> }> {
  const bolt = new URL(testNeo4jUri());
  const neo4jProxy = await startTcpProxy(bolt.hostname, Number(bolt.port));
  const pgUrl = new URL(process.env.TEST_PG_ADMIN_URL as string);
  const postgresProxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port));
  const service = await startTestService({ neo4jUri: `bolt://127.0.0.1:${neo4jProxy.port}`, ...overrides }, { postgresPort: postgresProxy.port });
  return {
    service, neo4jProxy, postgresProxy,
    async stop() {
      await service.stop();
      await neo4jProxy.close();
      await postgresProxy.close();
    },
  };
}
