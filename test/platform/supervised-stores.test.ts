// Local stores that die are started again without a restart of the service: a SIGKILLed local
// Neo4j (the service's own, under its data folder) comes back on the same port with its data, the
// service serves graph reads again by itself, /health/ready names Neo4j while it is down, and
// /metrics counts the restart. The same for the embedded PostgreSQL, whose server pg_ctl detaches.
// And a service whose Neo4j hangs still stops within its grace period on SIGTERM, Neo4j with it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedPostgres } from '../../src/platform/postgres/embedded-postgres-server.js';
import { importEstate } from '../support/estate.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { listenerPid } from '../support/processes.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { createTestDatabase, startTestService, type TestService } from '../support/test-stores.js';

// How long a restart may take on a loaded machine: the back-off (1 s) and a JVM's start.
const BACK_WITHIN_MS = 180_000;

describe('supervised local stores', () => {
  let dataDir: string;
  let boltPort: number;
  let service: TestService;
  let p: Principals;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'supervised-'));
    // As root, the local Neo4j runs as the user neo4j, who must reach its store folder.
    chmodSync(dataDir, 0o755);
    boltPort = await freePort();
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, dataDir, neo4jUri: undefined, neo4jPassword: '', localNeo4jBoltPort: boltPort, localNeo4jHeap: '512m', localNeo4jPageCache: '64m' });
    p = await createPrincipals(service.url);
    await importEstate(p.integrationKey);
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a SIGKILLed local Neo4j again: graph reads answer again with the same data, without a restart of the service', async () => {
    const before = await p.integrationKey.get('/api/v1/assets?size=200');
    expect(before.status).toBe(200);
    const killed = listenerPid(boltPort);
    process.kill(killed, 'SIGKILL');

    const down = await eventually(() => p.integrationKey.get('/health/ready'), (r) => r.status === 503, '/health/ready while Neo4j is down', BACK_WITHIN_MS);
    expect(down.body.components).toEqual({ postgresql: { status: 'UP' }, neo4j: { status: 'DOWN' } });

    const after = await eventually(() => p.integrationKey.get('/api/v1/assets?size=200'), (r) => r.status === 200, 'GET /assets after the restart', BACK_WITHIN_MS);
    expect(after.body.data.map((a: { id: string }) => a.id).sort()).toEqual(before.body.data.map((a: { id: string }) => a.id).sort());
    expect(listenerPid(boltPort)).not.toBe(killed);
    expect((await p.integrationKey.get('/health/ready')).status).toBe(200);
    // Bolt answers a moment before the launcher reports ready, and only then is the restart counted.
    const metrics = await eventually(() => p.integrationKey.get('/metrics').then((r) => r.text), (text) => /^local_store_up\{store="neo4j"\} 1$/m.test(text), 'the restart in /metrics', BACK_WITHIN_MS);
    expect(metrics).toMatch(/^local_store_restarts_total\{store="neo4j"\} 1$/m);
    expect(service.logLines.some((l) => l.includes('the local store stopped unexpectedly') && l.includes('"store":"neo4j"'))).toBe(true);
  }, 400_000);

  it('starts a SIGKILLed embedded PostgreSQL again, with its data', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'supervised-pg-'));
    chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), passwordFile: path.join(dir, 'postgres-password'), port: await freePort(), database: 'inventory', logger: createLogger('error') });
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    };
    try {
      await query('CREATE TABLE kept (v text); INSERT INTO kept VALUES (\'still here\')');
      const postmaster = Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGKILL');
      const rows = await eventually(() => query('SELECT v FROM kept').catch(() => null), (r) => r !== null, 'PostgreSQL after the restart', BACK_WITHIN_MS);
      expect(rows).toEqual([{ v: 'still here' }]);
      // PostgreSQL takes connections a moment before its start returns, when the supervisor counts the restart.
      expect(await eventually(async () => server.supervision?.restarts(), (n) => n === 1, 'the restart counted', BACK_WITHIN_MS)).toBe(1);
      expect(server.supervision?.running()).toBe(true);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 400_000);

  it('stops within its grace period on SIGTERM while its local Neo4j hangs (SIGSTOP), and the hung Neo4j ends with it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'grace-'));
    chmodSync(dir, 0o755);
    const database = await createTestDatabase();
    const port = await freePort();
    const child = spawn(process.execPath, [fromProjectRoot('dist', 'main.js')], {
      env: {
        ...process.env, DATABASE_URL: database.url, PORT: String(port), SERVICE_ROLES: 'api', SERVICE_DATA_DIR: dir, SERVICE_LOCAL_NEO4J_BOLT_PORT: String(await freePort()),
        SERVICE_LOCAL_NEO4J_HEAP: '512m', SERVICE_LOCAL_NEO4J_PAGECACHE: '64m', SERVICE_SHUTDOWN_GRACE_MS: '5000', SERVICE_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    try {
      await eventually(async () => output, (o) => o.includes('"message":"service listening"'), 'the service started', BACK_WITHIN_MS);
      const neo4jPid = listenerPid(Number(/"uri":"bolt:\/\/127\.0\.0\.1:(\d+)"/.exec(output)?.[1]));
      process.kill(neo4jPid, 'SIGSTOP');
      const stopAsked = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      // The grace period, and what a loaded machine adds to the exit itself.
      expect(Date.now() - stopAsked).toBeLessThan(5000 + 15_000);
      expect(code === 0 || code === 1).toBe(true);
      await eventually(async () => existsSync(`/proc/${neo4jPid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${neo4jPid}/status`, 'utf8')), (alive) => !alive, 'the hung Neo4j ended', 30_000);
    } finally {
      child.kill('SIGKILL');
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 400_000);
});
