// `npm run migrate`: applies the PostgreSQL migrations to DATABASE_URL (or to the embedded
// PostgreSQL of the data folder) and exits.
import { loadConfig } from './platform/config.js';
import { createLogger } from './platform/logger.js';
import { openDatabase } from './platform/postgres/open-database.js';
import { migrateToLatest } from './platform/postgres/postgres-client.js';

async function migrate(): Promise<void> {
  const config = loadConfig({ env: process.env });
  const logger = createLogger(config.logLevel);
  const { db, close } = await openDatabase(config, logger);
  try {
    const applied = await migrateToLatest(db);
    logger.info(applied.length ? 'migrations applied' : 'the database is up to date', { applied });
  } finally {
    await close();
  }
}

migrate().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
