// `npm run migrate`: applies the PostgreSQL migrations to DATABASE_URL (or to the embedded
// PostgreSQL of the data folder) and exits.
import path from 'node:path';
import { ConfigError, loadConfig } from './platform/config.js';
import { createLogger } from './platform/logger.js';
import { startEmbeddedPostgres } from './platform/postgres/embedded-postgres-server.js';
import { createDatabase, migrateToLatest } from './platform/postgres/postgres-client.js';
import { LOCAL_DATABASE } from './start-service.js';

async function migrate(): Promise<void> {
  const config = loadConfig({ env: process.env });
  const logger = createLogger(config.logLevel);
  const local = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'postgres'), port: config.localPostgresPort, database: LOCAL_DATABASE, logger });
  const db = createDatabase({ url: config.databaseUrl ?? (local?.url as string), poolMax: 1, timeoutMs: config.storeTimeoutMs });
  try {
    const applied = await migrateToLatest(db);
    logger.info(applied.length ? 'migrations applied' : 'the database is up to date', { applied });
  } finally {
    await db.destroy();
    await local?.stop();
  }
}

migrate().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
