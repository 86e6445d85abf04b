import { mkdtempSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { startService } from '../../src/start-service.js';
import { request } from '../support/http.js';
import { createTestDatabase, testNeo4jSettings, wipeGraph } from '../support/test-stores.js';

const logger = createLogger('error');

describe('start-up', () => {
  it('fails at once, naming Neo4j and its address, when Neo4j cannot be reached', async () => {
    const database = await createTestDatabase();
    try {
      const config = loadConfig({ file: false, overrides: { databaseUrl: database.url, neo4jUri: 'bolt://127.0.0.1:1', port: 0, storeTimeoutMs: 2000 } });
      const started = Date.now();
      await expect(startService(config, logger)).rejects.toThrow(/^Neo4j at bolt:\/\/127\.0\.0\.1:1 cannot be reached/);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await database.drop();
    }
  });

  it('fails at once, naming PostgreSQL without its password, when PostgreSQL cannot be reached', async () => {
    const config = loadConfig({
      file: false,
      overrides: { databaseUrl: 'postgres://inventory:s3cret-pw@127.0.0.1:1/inventory', ...testNeo4jSettings(), port: 0, storeTimeoutMs: 2000 },
    });
    const failure = startService(config, logger);
    await expect(failure).rejects.toThrow(/^PostgreSQL at postgres:\/\/127\.0\.0\.1:1 cannot be reached/);
    await expect(failure).rejects.not.toThrow(/s3cret-pw/);
  });

  it('starts its own embedded PostgreSQL when no database URL is set, and finds its data again after a restart', async () => {
    await wipeGraph();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inventory-local-'));
    chmodSync(dataDir, 0o755);
    const port = 40000 + Math.floor(Math.random() * 20000);
    const config = loadConfig({ file: false, overrides: { ...testNeo4jSettings(), port: 0, dataDir, localPostgresPort: port, flowsNetflowPort: 0, flowsSflowPort: 0 } });

    const first = await startService(config, logger);
    expect((await request(`${first.url}/health`)).status).toBe(200);
    await first.container.db.raw('CREATE TABLE restart_probe (v text)');
    await first.container.db('restart_probe').insert({ v: 'kept' });
    await first.stop();

    const second = await startService(config, logger);
    try {
      expect(await second.container.db('restart_probe').select('v')).toEqual([{ v: 'kept' }]);
    } finally {
      await second.stop();
    }
    // Stopped means stopped: the embedded PostgreSQL no longer accepts connections.
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
