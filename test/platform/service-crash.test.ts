// A service killed with SIGKILL in the middle of an import, as its own process on its own data
// folder with the local stores it starts itself: no store outlives it (the local Neo4j's launcher
// exits when its pipe from the service closes; the embedded PostgreSQL is stopped by its
// watchdog), and its next start leaves no identity row whose asset is not in the graph (the rows
// of batches whose graph write never came are swept), after which the same import converges.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import pg from 'pg';
import { ApiClient, signIn } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { listenerPid } from '../support/processes.js';
import { ADMIN_PASSWORD } from '../support/principals.js';

const MAIN = path.resolve('dist/main.js');
const ASSETS = 3000;
const BUNDLE = {
  source: 'crash-test',
  assets: Array.from({ length: ASSETS }, (_, i) => ({ key: `h${i}`, assetType: 'SERVER', hostname: `crash-${i}`, serialNumber: `CRASH-${i}` })),
};

/** True while the process exists and is not a zombie (one whose parent has not reaped it has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('a service killed during an import', () => {
  let dir: string;
  let ports: { http: number; postgres: number; bolt: number };
  let service: ChildProcess | undefined;

  const base = () => `http://127.0.0.1:${ports.http}`;

  /** Starts the service as its own process (a clean environment, no settings file) and waits for its health. */
  async function start(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [MAIN], {
      cwd: dir,
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_DATA_DIR: path.join(dir, 'data'), PORT: String(ports.http),
        SERVICE_LOCAL_POSTGRES_PORT: String(ports.postgres), SERVICE_LOCAL_NEO4J_BOLT_PORT: String(ports.bolt),
        SERVICE_LOCAL_NEO4J_HEAP: '384m', SERVICE_LOCAL_NEO4J_PAGECACHE: '64m', SERVICE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        SERVICE_FLOWS_NETFLOW_PORT: '0', SERVICE_FLOWS_SFLOW_PORT: '0', SERVICE_LOG_LEVEL: 'warn', SERVICE_STORE_TIMEOUT_MS: '30000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      return fetch(`${base()}/health`).then((r) => r.status, () => 0);
    }, (status) => status === 200, 'the service health', 300_000);
    return child;
  }

  /** The service's own PostgreSQL and Neo4j, signed in with the passwords it generated into its data folder. */
  async function stores<T>(work: (db: pg.Client, graph: neo4j.Driver) => Promise<T>): Promise<T> {
    const secret = (file: string) => readFileSync(path.join(dir, 'data', file), 'utf8').trim();
    const db = new pg.Client({ host: '127.0.0.1', port: ports.postgres, user: 'postgres', password: secret('postgres-password'), database: 'inventory' });
    await db.connect();
    const graph = neo4j.driver(`bolt://127.0.0.1:${ports.bolt}`, neo4j.auth.basic('neo4j', secret('neo4j-password')));
    try {
      return await work(db, graph);
    } finally {
      await db.end();
      await graph.close();
    }
  }

  /** Identity rows whose asset is not in the graph. */
  const orphanIdentities = () => stores(async (db, graph) => {
    const ids = (await db.query<{ asset_id: string }>('SELECT DISTINCT asset_id FROM asset_identifiers')).rows.map((r) => r.asset_id);
    const { records } = await graph.executeQuery('MATCH (a:Asset) WHERE a.id IN $ids RETURN a.id AS id', { ids });
    const existing = new Set(records.map((r) => r.get('id') as string));
    return ids.filter((id) => !existing.has(id));
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'service-crash-'));
    // PostgreSQL runs as the user postgres, who must reach its data folder.
    chmodSync(dir, 0o755);
    ports = { http: await freePort(), postgres: await freePort(), bolt: await freePort() };
  });

  afterAll(async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service?.once('exit', resolve));
      service.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no store running, and after the next start no identity row of an asset that is not in the graph; the same import then converges', async () => {
    service = await start();
    const admin = await signIn(base(), 'admin', ADMIN_PASSWORD);
    const key = new ApiClient(base(), { kind: 'bearer', token: (await admin.post('/api/v1/integration-keys', { name: 'crash' })).body.data.token });
    const postmaster = Number(readFileSync(path.join(dir, 'data', 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const neo4jPid = listenerPid(ports.bolt);
    // What a crash between an import's two stores leaves, planted so that the sweep has one row it must remove whatever the kill hits.
    const planted = randomUUID();
    await stores((db) => db.query("INSERT INTO asset_identifiers (rule, value, asset_id, asset_category) VALUES ('SERIAL_NUMBER', 'PLANTED-CRUMB', $1, 'HOST')", [planted]));

    // The import runs; once its first batches are in PostgreSQL, the service is killed.
    const importing = key.post('/api/v1/import', BUNDLE).catch(() => undefined);
    await eventually(() => stores(async (db) => Number((await db.query("SELECT count(*) AS n FROM asset_identifiers WHERE value LIKE 'CRASH-%'")).rows[0].n)), (n) => n > 0, 'the import under way', 120_000);
    const exited = new Promise((resolve) => service?.once('exit', resolve));
    service.kill('SIGKILL');
    await exited;
    await importing;

    await eventually(async () => ({ postgres: running(postmaster), neo4j: running(neo4jPid) }), (s) => !s.postgres && !s.neo4j, 'the stores after the kill', 120_000);
    expect(existsSync(path.join(dir, 'data', 'service.lock'))).toBe(true);

    service = await start();
    expect(await orphanIdentities()).toEqual([]);
    expect(await stores(async (db) => (await db.query('SELECT count(*)::int AS n FROM asset_identifiers WHERE asset_id = $1', [planted])).rows[0].n)).toBe(0);

    const again = await key.post('/api/v1/import', BUNDLE);
    expect(again.status).toBe(200);
    expect(await stores(async (_db, graph) => (await graph.executeQuery("MATCH (a:Asset) WHERE a.hostname STARTS WITH 'crash-' RETURN count(a) AS n")).records[0]?.get('n').toNumber())).toBe(ASSETS);
    expect(await orphanIdentities()).toEqual([]);
  }, 900_000);
});
