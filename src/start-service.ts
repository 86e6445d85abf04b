// Starts the whole service for the configured roles: the local stores when no address is set,
// a fail-fast check of each store, migrations and the graph schema, the features' jobs and the job
// queue, the features' long-running parts (src/features.ts) and the HTTP listener. stop() takes
// everything down in the reverse order.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApp } from './app.js';
import { createContainer, type Container } from './container.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config.js';
import { lockDataDir } from './platform/data-dir-lock.js';
import { FEATURES } from './features.js';
import { ALLOWED_PROCEDURES } from './features/graph-query/cypher-admission.js';
import { answerClientErrorsAsProblems } from './platform/http/client-error-answer.js';
import type { Logger } from './platform/logger.js';
import { applyGraphSchema } from './platform/neo4j/cypher-catalog.js';
import { startLocalNeo4j } from './platform/neo4j/local-neo4j-server.js';
import { startEmbeddedPostgres } from './platform/postgres/embedded-postgres-server.js';
import { localPostgresOptions } from './platform/postgres/open-database.js';
import { NotificationListener } from './platform/postgres/notification-listener.js';
import { ShutdownSteps } from './platform/shutdown-steps.js';
import type { SupervisedStore } from './platform/store-supervisor.js';
import { migrateToLatest } from './platform/postgres/postgres-client.js';

/** The local Neo4j's password, in the data folder beside the other generated local secrets. */
export const LOCAL_NEO4J_PASSWORD_FILE = 'neo4j-password';

export interface RunningService {
  container: Container;
  /** Base URL of the API (with the context path) when this process has the api role. */
  url?: string;
  stop(): Promise<void>;
}

export class StoreUnreachableError extends Error {
  override name = 'StoreUnreachableError';
}

/** host:port of a store address, never its credentials. */
export function describeAddress(url: string): string {
  try {
    const { hostname, port, protocol } = new URL(url);
    return `${protocol}//${hostname}${port ? `:${port}` : ''}`;
  } catch {
    return '(unparseable address)';
  }
}

async function ensureReachable(store: string, address: string, check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new StoreUnreachableError(`${store} at ${describeAddress(address)} cannot be reached: ${reason}`);
  }
}

/** The stores, opened and prepared (migrations, graph schema), with the services built on them. */
export interface OpenedStores {
  container: Container;
  /** The previous service on the data folder died without stopping (see data-dir-lock.ts), and PostgreSQL is the local one, which no other process writes. */
  afterCrash: boolean;
  close(): Promise<void>;
}

/**
 * Starts the local stores that have no configured address (side by side; each registers its stop
 * as soon as it is up, so a failure of one never leaves the other running), checks that both
 * answer, applies migrations and the graph schema, and builds the container. The `owner` (the
 * service, holding the lock of the data folder) also stops a local PostgreSQL that a crashed run
 * left behind; tools only borrow what is running.
 */
export async function openStores(config: AppConfig, logger: Logger, { owner = false, clock = systemClock }: { owner?: boolean; clock?: Clock } = {}): Promise<OpenedStores> {
  const steps = new ShutdownSteps(logger);
  const close = () => steps.run();
  let afterCrash = false;
  try {
    if (owner && (!config.databaseUrl || !config.neo4jUri)) {
      const lock = lockDataDir(config.dataDir);
      steps.add('data folder lock', lock.release);
      afterCrash = lock.afterCrash && !config.databaseUrl;
    }
    const supervised: SupervisedStore[] = [];
    const [postgres, neo4j] = await Promise.allSettled([
      config.databaseUrl ??
        startEmbeddedPostgres({ ...localPostgresOptions(config, logger), takeOver: owner }).then((server) => {
          steps.addSelfBounded('local PostgreSQL', server.stop);
          if (server.supervision) supervised.push(server.supervision);
          return server.url;
        }),
      config.neo4jUri
        ? { uri: config.neo4jUri, user: config.neo4jUser, password: config.neo4jPassword }
        : startLocalNeo4j({
            dataDir: path.join(config.dataDir, 'neo4j'),
            passwordFile: path.join(config.dataDir, LOCAL_NEO4J_PASSWORD_FILE),
            boltPort: config.localNeo4jBoltPort,
            heap: config.localNeo4jHeap,
            pageCache: config.localNeo4jPageCache,
            procedures: ALLOWED_PROCEDURES,
            logger,
          }).then(({ stop, supervision, ...server }) => {
            steps.addSelfBounded('local Neo4j', stop);
            if (supervision) supervised.push(supervision);
            return server;
          }),
    ]);
    if (postgres.status === 'rejected') throw postgres.reason;
    if (neo4j.status === 'rejected') throw neo4j.reason;
    const databaseUrl = postgres.value;
    const { uri: neo4jUri, user: neo4jUser, password: neo4jPassword } = neo4j.value;

    const container = createContainer(config, logger, { databaseUrl, neo4jUri, neo4jUser, neo4jPassword, supervised }, clock);
    steps.add('PostgreSQL pool', () => container.db.destroy());
    // Its pruning timer outlives a stopped service otherwise, and then finds the pool ended.
    steps.add('session store', async () => {
      await container.sessionStore.close();
      await container.sessionPool.end();
    });
    steps.add('export pool', () => container.copyPool.end());
    steps.add('flow pool', () => container.flowPool.end());
    steps.add('Neo4j driver', () => container.driver.close());
    steps.add("analysts' Neo4j driver", () => container.analystDriver.close());
    await ensureReachable('PostgreSQL', databaseUrl, () => container.db.raw('SELECT 1'));
    await ensureReachable('Neo4j', neo4jUri, () => container.driver.verifyConnectivity({ database: config.neo4jDatabase }));

    const migrations = await migrateToLatest(container.db);
    const schemaStatements = await applyGraphSchema(container.driver, config.neo4jDatabase);
    logger.info('stores ready', { migrationsApplied: migrations.length, graphSchemaStatements: schemaStatements });
    return { container, afterCrash, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `clock`: the time the service reads for expiries (a test moves it on). */
export async function startService(config: AppConfig, logger: Logger, { clock = systemClock }: { clock?: Clock } = {}): Promise<RunningService> {
  const { container, afterCrash, close } = await openStores(config, logger, { owner: true, clock });
  const steps = new ShutdownSteps(logger);
  steps.addSelfBounded('stores', close);
  const stop = () => steps.run();
  try {
    await container.users.ensureAdministrator(config.adminUsername, config.adminPassword);
    if (afterCrash) {
      // Nothing else writes yet (nor ever: this process holds the local PostgreSQL): every such row is a crumb.
      const removed = await container.unwrittenAssets.run(new Date());
      logger.warn('the previous run stopped without shutting down; removed the rows of assets it never wrote to the graph', { assets: removed });
    }
    for (const feature of FEATURES) feature.jobs?.(container);
    await container.scheduler.start();
    steps.add('job queue', () => container.scheduler.stop());
    for (const feature of FEATURES) {
      const stopFeature = await feature.start?.(container);
      if (stopFeature) steps.add(feature.name, stopFeature);
    }

    let url: string | undefined;
    if (config.roles.includes('api')) {
      // Known tokens are looked up in memory while every change to tokens and users is heard.
      const lookups = container.tokenLookups;
      const authChanges = new NotificationListener(container.addresses.databaseUrl, 'auth_changes', {
        onNotify: () => lookups.clear(), onListening: () => lookups.trust(), onLost: () => lookups.distrust(),
      }, logger);
      authChanges.start();
      steps.add('auth_changes listener', () => authChanges.stop());
      const server = await listen(buildApp(container), config.port);
      steps.add('HTTP server', () => closeServer(server));
      const { port } = server.address() as AddressInfo;
      url = `http://127.0.0.1:${port}${config.contextPath}`;
      logger.info('service listening', { port, contextPath: config.contextPath || '/', roles: config.roles });
    } else {
      logger.info('service running without HTTP', { roles: config.roles });
    }
    return { container, url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function listen(app: ReturnType<typeof buildApp>, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port);
    // Idle kept-alive connections stay open longer than clients' and proxies' usual idle limits, so
    // that a client never reuses a connection the service is closing at that instant.
    server.keepAliveTimeout = 65_000;
    answerClientErrorsAsProblems(server);
    server.once('listening', () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is in use (setting server.port, environment variable PORT)`) : error),
    );
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}
