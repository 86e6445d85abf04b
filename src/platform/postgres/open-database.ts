// For command-line tools: the configured PostgreSQL, or the embedded one of the data folder
// (used as it is when the service is running it, started and stopped again otherwise).
import path from 'node:path';
import type { AppConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { startEmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres-server.js';
import { createDatabase, type Database } from './postgres-client.js';

const LOCAL_DATABASE = 'inventory';
const LOCAL_POSTGRES_PASSWORD_FILE = 'postgres-password';

/** Where the embedded PostgreSQL of the data folder keeps its cluster and its password, and its port. */
export function localPostgresOptions(config: AppConfig, logger: Logger): EmbeddedPostgresOptions {
  return {
    dataDir: path.join(config.dataDir, 'postgres'),
    passwordFile: path.join(config.dataDir, LOCAL_POSTGRES_PASSWORD_FILE),
    port: config.localPostgresPort,
    database: LOCAL_DATABASE,
    logger,
  };
}

export interface OpenDatabase {
  db: Database;
  close(): Promise<void>;
}

export async function openDatabase(config: AppConfig, logger: Logger): Promise<OpenDatabase> {
  const local = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(localPostgresOptions(config, logger));
  const db = createDatabase({ url: config.databaseUrl ?? (local?.url as string), poolMax: 2, timeoutMs: config.storeTimeoutMs, logger });
  return {
    db,
    close: async () => {
      await db.destroy();
      await local?.stop();
    },
  };
}
