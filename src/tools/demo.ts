// `npm run demo -- --hosts N [--seed S]`: loads a realistic estate through the import path into
// the configured stores (or the local ones, borrowed from a running service).
import { parseArgs } from 'node:util';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { openStores } from '../start-service.js';
import { demoEstate } from './demo-estate.js';

const DEMO_ACTOR = { kind: 'SYSTEM' as const, name: 'demo loader' };

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { hosts: { type: 'string', default: '200' }, seed: { type: 'string', default: '42' } } });
  const hosts = Number(values.hosts);
  if (!Number.isInteger(hosts) || hosts < 1 || hosts > 1_000_000) throw new Error('--hosts must be a whole number from 1 to 1,000,000');
  const config = loadConfig({ env: process.env });
  const logger = createLogger(config.logLevel);
  const { container, close } = await openStores(config, logger);
  try {
    const bundles = demoEstate(hosts, Number(values.seed));
    const started = Date.now();
    let assets = 0;
    let relationships = 0;
    for (const [i, bundle] of bundles.entries()) {
      const result = await container.importer.import(DEMO_ACTOR, bundle);
      assets += result.assets.length;
      relationships += result.relationships;
      logger.info('demo bundle loaded', { bundle: `${i + 1}/${bundles.length}`, assets, relationships });
    }
    logger.info('demo estate loaded', { hosts, assets, relationships, seconds: (Date.now() - started) / 1000 });
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
