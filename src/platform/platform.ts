// What every feature builds on, made once per service: the settings, the logger and the clock, the
// metrics registry, the clients of both stores (the API's, and the pools kept apart for sessions,
// exports, the flow collector and the analysts' Cypher), the job queue and the contract. No
// feature creates a store client of its own.
import type { Driver } from 'neo4j-driver';
import pg from 'pg';
import type { Clock } from './clock.js';
import type { AppConfig } from './config.js';
import { loadApiDocument, type OpenApiDocument } from './http/openapi.js';
import { sessionStore, type SessionStore } from './http/session-store.js';
import type { Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { CypherCatalog } from './neo4j/cypher-catalog.js';
import { createDriver, NeoGraph } from './neo4j/neo4j-graph.js';
import { createCopyPool } from './postgres/copy-out.js';
import { createDatabase, observeStatements, type Database } from './postgres/postgres-client.js';
import { RowCounts } from './postgres/row-counts.js';
import { Scheduler } from './scheduler/scheduler.js';
import type { SupervisedStore } from './store-supervisor.js';

// Exports streaming at the same time; more wait up to service.store-timeout-ms, then get a 503.
const EXPORT_CONNECTIONS = 4;

export interface StoreAddresses {
  databaseUrl: string;
  neo4jUri: string;
  /** The configured Neo4j user and password, or the local Neo4j's. */
  neo4jUser: string;
  neo4jPassword: string;
  /** The local stores this process started and restarts (none for external ones). */
  supervised?: SupervisedStore[];
}

export interface Platform {
  config: AppConfig;
  /** Where the stores are (the local ones included). */
  addresses: StoreAddresses;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
  db: Database;
  rowCounts: RowCounts;
  /** Connections of the browser-session store. */
  sessionPool: pg.Pool;
  sessionStore: SessionStore;
  /** Connections of the streamed exports (COPY), apart from the API's. */
  copyPool: pg.Pool;
  /** Connections of the flow collector's COPY batches and partition upkeep. */
  flowPool: pg.Pool;
  driver: Driver;
  /** The analysts' own connections to Neo4j (POST /graph/query). */
  analystDriver: Driver;
  graph: NeoGraph;
  scheduler: Scheduler;
  apiDocument: OpenApiDocument;
}

export function createPlatform(config: AppConfig, logger: Logger, stores: StoreAddresses, clock: Clock): Platform {
  const metrics = new Metrics();
  const db = createDatabase({ url: stores.databaseUrl, poolMax: config.databasePoolMax, timeoutMs: config.storeTimeoutMs, logger });
  observeStatements(db, (seconds, failed) => metrics.storeCall('postgresql', 'statement', seconds, failed));
  const sessionPool = new pg.Pool({ connectionString: stores.databaseUrl, max: 4, connectionTimeoutMillis: config.storeTimeoutMs, query_timeout: config.storeTimeoutMs, application_name: 'asset-inventory-sessions' });
  sessionPool.on('error', (error) => logger.warn('session store connection lost', { error }));
  const copyPool = createCopyPool({ url: stores.databaseUrl, max: EXPORT_CONNECTIONS, timeoutMs: config.storeTimeoutMs });
  copyPool.on('error', (error) => logger.warn('export connection lost', { error }));
  const flowPool = new pg.Pool({ connectionString: stores.databaseUrl, max: 2, connectionTimeoutMillis: config.storeTimeoutMs, application_name: 'asset-inventory-flows' });
  flowPool.on('error', (error) => logger.warn('flow store connection lost', { error }));
  const driver = createDriver({
    uri: stores.neo4jUri,
    user: stores.neo4jUser,
    password: stores.neo4jPassword,
    timeoutMs: config.storeTimeoutMs,
  });
  // The analysts' Cypher has a pool of its own: however many of its queries run, the service's never wait for a connection.
  const analystDriver = createDriver({
    uri: stores.neo4jUri,
    user: stores.neo4jUser,
    password: stores.neo4jPassword,
    timeoutMs: config.storeTimeoutMs,
    maxConnections: config.graphQueryConcurrency,
  });
  return {
    config,
    addresses: stores,
    logger,
    clock,
    metrics,
    db,
    rowCounts: new RowCounts(db),
    sessionPool,
    sessionStore: sessionStore(sessionPool),
    copyPool,
    flowPool,
    driver,
    analystDriver,
    graph: new NeoGraph(driver, config.neo4jDatabase, new CypherCatalog(), metrics.storeObserver('neo4j'), config.storeTimeoutMs, config.storeWriteTimeoutMs),
    scheduler: new Scheduler({
      databaseUrl: stores.databaseUrl,
      roles: config.roles,
      lockLifetimeMs: config.jobsLockLifetimeMs,
      pollIntervalMs: config.jobsPollIntervalMs,
      workerConcurrency: config.jobsWorkerConcurrency,
      logger,
    }),
    apiDocument: loadApiDocument(config.contextPath),
  };
}
