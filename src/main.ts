// Entry point of the service: reads the settings, starts what the roles ask for, and stops
// everything (local stores included) on SIGINT or SIGTERM.
import { ConfigError, loadConfig, type AppConfig } from './platform/config.js';
import { createLogger } from './platform/logger.js';
import { startScanner } from './features/scanners/remote-scanner.js';
import type { Logger } from './platform/logger.js';
import { startService } from './start-service.js';

// Exit status of a scanner whose token the service refused: starting it again changes nothing.
const SCANNER_REFUSED_EXIT = 3;

/** The scanner role: no store to open; it runs until stopped, or until the service refuses its token. */
function runScanner(config: AppConfig, logger: Logger): void {
  const scanner = startScanner(config, logger);
  scanner.done.then(
    (outcome) => process.exit(outcome === 'REFUSED' ? SCANNER_REFUSED_EXIT : 0),
    (error: unknown) => {
      logger.error('the scanner stopped on an unexpected error', { error });
      process.exit(1);
    },
  );
  const stop = (signal: string) => {
    logger.info('stopping', { signal });
    void scanner.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

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
  if (config.roles.includes('scanner')) {
    runScanner(config, logger);
    return;
  }
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
