// The local Neo4j is locked: Bolt without the generated password is refused, and a store whose
// password file is missing (a data folder from before the password, or a lost file) still starts,
// with a new password that the launcher sets.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j, { type AuthToken } from 'neo4j-driver';
import { createLogger } from '../../src/platform/logger.js';
import { startLocalNeo4j } from '../../src/platform/neo4j/local-neo4j-server.js';
import { testNeo4jUri } from '../support/test-stores.js';
import { freePort } from '../support/free-port.js';

/** Counts assets as the given user; rejects with Neo4j's error when refused. */
async function count(uri: string, auth: AuthToken | undefined): Promise<number> {
  const driver = neo4j.driver(uri, auth, { maxTransactionRetryTime: 0, connectionTimeout: 5000 });
  try {
    const { records } = await driver.executeQuery('MATCH (a:Asset) RETURN count(a) AS n');
    return Number(records[0]?.get('n'));
  } finally {
    await driver.close();
  }
}

const UNAUTHORIZED = { code: 'Neo.ClientError.Security.Unauthorized' };

describe('the local Neo4j', () => {
  it('refuses a Bolt connection without credentials, and one with a wrong password', async () => {
    // A user other than neo4j: failed sign-ins of neo4j itself would lock the tests' user for a while.
    await expect(count(testNeo4jUri(), undefined)).rejects.toMatchObject(UNAUTHORIZED);
    await expect(count(testNeo4jUri(), neo4j.auth.basic('intruder', 'wrong-password'))).rejects.toMatchObject(UNAUTHORIZED);
  });

  it('generates its password into the data folder, and sets a new one on a store whose password file is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'local-neo4j-'));
    const passwordFile = path.join(dir, 'neo4j-password');
    const options = { dataDir: path.join(dir, 'neo4j'), passwordFile, boltPort: await freePort(), heap: '256m', pageCache: '32m', logger: createLogger('error') };
    try {
      const first = await startLocalNeo4j(options);
      const firstPassword = readFileSync(passwordFile, 'utf8').trim();
      try {
        expect(first.password).toBe(firstPassword);
        expect(firstPassword.length).toBeGreaterThanOrEqual(24);
        expect(await count(first.uri, neo4j.auth.basic('neo4j', firstPassword))).toBe(0);
      } finally {
        await first.stop();
      }

      rmSync(passwordFile);
      const second = await startLocalNeo4j(options);
      try {
        const secondPassword = readFileSync(passwordFile, 'utf8').trim();
        expect(secondPassword).not.toBe(firstPassword);
        expect(await count(second.uri, neo4j.auth.basic('neo4j', secondPassword))).toBe(0);
        await expect(count(second.uri, neo4j.auth.basic('neo4j', firstPassword))).rejects.toMatchObject(UNAUTHORIZED);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
