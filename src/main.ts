// Entry point of the service: reads the settings, starts what the roles ask for, and stops
// everything (local stores included) on SIGINT or SIGTERM.
import { ConfigError, loadConfig } from './platform/config.js';
import { createLogger } from './platform/logger.js';
import { startService } from './start-service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig({ env: process.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Cannot start: ${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  let service;
  try {
    service = await startService(config, logger);
  } catch (error) {
    logger.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      logger.warn('second signal: exiting at once', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('stopping', { signal });
    // Whatever a store does (stopped, dying, hung), the process ends within the grace period; a
    // local Neo4j still running then is killed on the way out (local-neo4j-server.ts).
    setTimeout(() => {
      logger.error('the service did not stop within its grace period; exiting', { graceMs: config.shutdownGraceMs });
      process.exit(1);
    }, config.shutdownGraceMs).unref();
    void service.stop().then(() => {
      logger.info('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
