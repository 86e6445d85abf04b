// The composition root: stores first, then services, then what the HTTP layer and the job queue
// need. No other module creates a database client or reads the environment.
import type { Driver } from 'neo4j-driver';
import { HealthService } from './features/health/health-service.js';
import type { AppConfig } from './platform/config.js';
import { loadApiDocument, type OpenApiDocument } from './platform/http/openapi.js';
import type { Logger } from './platform/logger.js';
import { CypherCatalog } from './platform/neo4j/cypher-catalog.js';
import { createDriver, NeoGraph } from './platform/neo4j/neo4j-graph.js';
import { createDatabase, type Database } from './platform/postgres/postgres-client.js';
import { Scheduler } from './platform/scheduler/scheduler.js';

export interface StoreAddresses {
  databaseUrl: string;
  neo4jUri: string;
}

export interface Container {
  config: AppConfig;
  logger: Logger;
  db: Database;
  driver: Driver;
  graph: NeoGraph;
  scheduler: Scheduler;
  apiDocument: OpenApiDocument;
  health: HealthService;
}

export function createContainer(config: AppConfig, logger: Logger, stores: StoreAddresses): Container {
  const db = createDatabase({ url: stores.databaseUrl, poolMax: config.databasePoolMax, timeoutMs: config.storeTimeoutMs, logger });
  const driver = createDriver({
    uri: stores.neo4jUri,
    user: config.neo4jUser,
    password: config.neo4jPassword,
    timeoutMs: config.storeTimeoutMs,
  });
  const graph = new NeoGraph(driver, config.neo4jDatabase, new CypherCatalog());
  const scheduler = new Scheduler({
    databaseUrl: stores.databaseUrl,
    roles: config.roles,
    lockLifetimeMs: config.jobsLockLifetimeMs,
    pollIntervalMs: config.jobsPollIntervalMs,
    workerConcurrency: config.jobsWorkerConcurrency,
    logger,
  });
  return {
    config,
    logger,
    db,
    driver,
    graph,
    scheduler,
    apiDocument: loadApiDocument(config.contextPath),
    health: new HealthService(db, driver, config.neo4jDatabase),
  };
}
