// The embedded PostgreSQL is locked with a password of its installation: generated into the data
// folder (0600) at the first start, and given at its next start to a cluster made before, which
// still had the one password every installation shared.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedPostgres } from '../../src/platform/postgres/embedded-postgres-server.js';
import { freePort } from '../support/free-port.js';

const LEGACY_PASSWORD = 'inventory-local';

/** Signs in as postgres with this password; rejects with PostgreSQL's error when refused. */
async function signIn(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await client.connect();
  await client.end();
}

describe('the embedded PostgreSQL', () => {
  let dir: string;
  beforeAll(() => {
    // Under /tmp and open to the postgres OS user, which runs the server when we are root.
    dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-postgres-'));
    chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generates its password at the first start, and gives a new one to a cluster that still has the shared one', async () => {
    const passwordFile = path.join(dir, 'postgres-password');
    const options = { dataDir: path.join(dir, 'postgres'), passwordFile, port: await freePort(), database: 'inventory', logger: createLogger('error') };

    // A cluster as an earlier version made it: initialised with the password all installations shared.
    writeFileSync(passwordFile, `${LEGACY_PASSWORD}\n`, { mode: 0o600 });
    const legacy = await startEmbeddedPostgres(options);
    await legacy.stop();

    // Its next start has no password file: one is generated, and the cluster takes it.
    unlinkSync(passwordFile);
    const server = await startEmbeddedPostgres(options);
    try {
      const password = readFileSync(passwordFile, 'utf8').trim();
      expect(password).not.toBe(LEGACY_PASSWORD);
      expect(password.length).toBeGreaterThanOrEqual(32);
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      await expect(signIn(options.port, LEGACY_PASSWORD)).rejects.toMatchObject({ code: '28P01' });
      await expect(signIn(options.port, password)).resolves.toBeUndefined();
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      expect((await client.query('SELECT current_database() AS db')).rows).toEqual([{ db: 'inventory' }]);
      await client.end();
    } finally {
      await server.stop();
    }

    // A start with the file as it is keeps the password.
    const before = readFileSync(passwordFile, 'utf8');
    const again = await startEmbeddedPostgres(options);
    await again.stop();
    expect(readFileSync(passwordFile, 'utf8')).toBe(before);
  });
});
