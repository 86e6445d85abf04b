// The local Neo4j is locked: Bolt without the generated password is refused, and a store whose
// password file is missing (a data folder from before the password, or a lost file) still starts,
// with a new password that the launcher sets. And it refuses by itself, whatever the service's own
// check of analysts' queries lets through: files and network addresses for LOAD CSV, a query that
// would run the heap out, a statement nested deep enough to overflow its parser's stack; it runs
// as an unprivileged user that owns only its store folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j, { type AuthToken } from 'neo4j-driver';
import { withDeadline } from '../../src/platform/deadline.js';
import { createLogger } from '../../src/platform/logger.js';
import { LOCAL_NEO4J_OS_USER, startLocalNeo4j } from '../../src/platform/neo4j/local-neo4j-server.js';
import { listenerPid } from '../support/processes.js';
import { testNeo4jDriver, testNeo4jUri } from '../support/test-stores.js';
import { freePort } from '../support/free-port.js';
import { startTrapServer } from '../support/trap-server.js';

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
    // As root, Neo4j runs as the user neo4j, who must reach its store folder.
    chmodSync(dir, 0o755);
    const passwordFile = path.join(dir, 'neo4j-password');
    const options = { dataDir: path.join(dir, 'neo4j'), passwordFile, boltPort: await freePort(), heap: '256m', pageCache: '32m', procedures: [], logger: createLogger('error') };
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

  describe('with the service\'s own query check switched off (queries sent to it directly)', () => {
    /** Runs a statement in a READ transaction with a time-out, as the analysts' endpoint does; its error, or null. */
    async function readError(query: string, params: Record<string, unknown> = {}): Promise<{ code?: string; message?: string } | null> {
      const driver = testNeo4jDriver();
      const session = driver.session({ defaultAccessMode: neo4j.session.READ });
      // An explicit transaction: a managed one would retry the transient errors (out of memory) for half a minute.
      const tx = session.beginTransaction({ timeout: 20_000 });
      try {
        await tx.run(query, params);
        await tx.rollback();
        return null;
      } catch (error) {
        return error as { code?: string; message?: string };
      } finally {
        await session.close();
        await driver.close();
      }
    }

    it('refuses LOAD CSV from a file (file URLs off) and from a network address (every address blocked)', async () => {
      const fileRead = await readError('LOAD CSV FROM "file:///etc/hostname" AS l RETURN l');
      expect(fileRead).toMatchObject({ code: 'Neo.ClientError.Statement.ExternalResourceFailed', message: expect.stringContaining('allow_csv_import_from_file_urls') });
      const trap = await startTrapServer();
      try {
        expect(await readError('LOAD CSV FROM $url AS l RETURN l', { url: trap.url })).toMatchObject({ code: 'Neo.ClientError.Statement.ExternalResourceFailed', message: expect.stringContaining('blocked') });
      } finally {
        await trap.close();
      }
      expect(trap.hits()).toBe(0);
    });

    it('fails a query that runs the heap out, alone, and keeps answering', async () => {
      expect(await readError('RETURN size(reduce(s = "x", i IN range(1, 29) | s + s)) AS s')).toMatchObject({ code: 'Neo.TransientError.General.OutOfMemoryError' });
      expect(await readError('UNWIND range(1, 200000000) AS i WITH collect(i) AS c RETURN size(c)')).toMatchObject({ code: 'Neo.TransientError.General.MemoryPoolOutOfMemoryError' });
      expect(await readError('RETURN 1 AS ok')).toBeNull();
    });

    it('answers a statement nested 1,000 deep (its parser\'s stack holds), where the default stack never answered', async () => {
      const deep = `RETURN ${'('.repeat(1000)}1${')'.repeat(1000)} AS x`;
      // Neo4j 5.26 on a default stack left this unanswered for two minutes: a minute is far beyond a parse.
      expect(await withDeadline(readError(deep), 60_000, () => new Error('no answer within a minute'))).toBeNull();
    });

    it('runs as the system user neo4j (as root; otherwise as the service\'s own user, never root), which owns its store folder and cannot read the password file', () => {
      const root = process.getuid?.() === 0;
      const uid = root ? Number(execFileSync('id', ['-u', LOCAL_NEO4J_OS_USER], { encoding: 'utf8' }).trim()) : (process.getuid?.() as number);
      expect(uid).not.toBe(0);
      const pid = listenerPid(Number(new URL(testNeo4jUri()).port));
      expect(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]).toBe(String(uid));
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const home = args[args.indexOf('--home') + 1] as string;
      expect(statSync(home).uid).toBe(uid);
      if (root) {
        const passwordFile = path.join(path.dirname(home), 'neo4j-password');
        expect(statSync(passwordFile).uid).toBe(0);
        expect(spawnSync('cat', [passwordFile], { uid, stdio: 'ignore' }).status).not.toBe(0);
      }
    });
  });
});
