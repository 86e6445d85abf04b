// The local default Neo4j: a real Neo4j 5.26 Community server run by the small Java launcher in
// neo4j-launcher/ (built once with Maven from Maven Central artifacts, then reused). It listens on
// 127.0.0.1 only, keeps its store under the data folder, and stops on SIGTERM or when this process
// goes away (the launcher exits when its standard input closes). Authentication is on, with the
// password of the neo4j user generated once per installation into a file of the data folder.
//
// It is hardened for the analysts' Cypher endpoint, whatever that endpoint's own check lets through
// (docs/graph-model.md, "What the engine refuses"): as root it runs as the unprivileged system user
// neo4j, which owns only its own store folder; LOAD CSV reads no file and no network address; only
// the given procedures may be loaded; a transaction's memory is bounded; its threads' stacks are
// deep enough that no statement within the endpoint's length parses into a stack overflow (which
// Neo4j 5.26 never answers); and an out-of-memory error fails the query, not the server. A server
// that exits anyway is started again (store-supervisor.ts).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { localSecretFile } from '../local-secret-file.js';
import type { Logger } from '../logger.js';
import { osAccount, type OsAccount } from '../os-account.js';
import { fromProjectRoot } from '../project-root.js';
import { StoreSupervisor, type SupervisedStore } from '../store-supervisor.js';

/** The one user of the local Neo4j (Community has no others the service would need). */
export const LOCAL_NEO4J_USER = 'neo4j';

export interface LocalNeo4jServer {
  uri: string;
  user: string;
  password: string;
  /** Restarts after unexpected exits; absent for a server this process found running. */
  supervision?: SupervisedStore;
  stop(): Promise<void>;
}

export interface LocalNeo4jOptions {
  dataDir: string;
  /** The file that holds the neo4j user's password; generated when missing. */
  passwordFile: string;
  boltPort: number;
  heap: string;
  pageCache: string;
  /** The only procedures the server loads from plug-ins (its built-in ones are always there). */
  procedures: readonly string[];
  logger: Logger;
}

/** The system user the local Neo4j runs as when the service runs as root. */
export const LOCAL_NEO4J_OS_USER = 'neo4j';

const LAUNCHER_DIR = fromProjectRoot('neo4j-launcher');
const LAUNCHER_JAR = path.join(LAUNCHER_DIR, 'target', 'neo4j-launcher.jar');
const READY_LINE = /^NEO4J_READY (\S+)/m;
const START_TIMEOUT_MS = 180_000;
// Within the service's shutdown grace (30 s by default): a store stopped short is recovered at its next start.
const STOP_TIMEOUT_MS = 20_000;

// Neo4j 5.26's own JVM settings (from its neo4j.conf); the three --add-opens keep the fast page
// cache I/O path. Not -XX:+ExitOnOutOfMemoryError: Neo4j answers an OutOfMemoryError in a query's
// thread as Neo.TransientError.General.OutOfMemoryError and the heap is free again, whereas an exit
// ends the database for everyone (a string doubled 29 times in one RETURN did). -Xss: the parser
// recurses per nesting level; with the default 1 MB, 400 nested brackets overflowed its stack and
// the statement was never answered (the Bolt connection hung for two minutes). With 64 MB (address
// space, committed only when used) 8,000 levels parse; deeper ones are beyond the endpoint's length.
const JVM_FLAGS = [
  '-XX:+UseG1GC',
  '-XX:-OmitStackTraceInFastThrow',
  '-XX:+UnlockExperimentalVMOptions',
  '-XX:+TrustFinalNonStaticFields',
  '-XX:+DisableExplicitGC',
  '-Xss64m',
  '-Djdk.nio.maxCachedBufferSize=1024',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-Dlog4j2.disable.jmx=true',
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/java.io=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '--enable-native-access=ALL-UNNAMED',
];

function newestSource(dir: string): number {
  let newest = statSync(path.join(dir, 'pom.xml')).mtimeMs;
  for (const entry of readdirSync(path.join(dir, 'src'), { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function requireTool(command: string, purpose: string): void {
  const probe = spawnSync(command, ['-version'], { stdio: 'ignore' });
  if (probe.error) {
    throw new Error(`${command} is not installed: ${purpose}. Install Java 17+ and Maven, or set NEO4J_URI to an existing Neo4j 5.`);
  }
}

/** Builds the launcher when it is missing or older than its sources (the first start only). */
export function ensureLauncherBuilt(logger: Logger): string {
  requireTool('java', 'the local Neo4j runs on Java');
  if (existsSync(LAUNCHER_JAR) && statSync(LAUNCHER_JAR).mtimeMs >= newestSource(LAUNCHER_DIR)) return LAUNCHER_JAR;
  requireTool('mvn', 'the local Neo4j launcher is built with Maven');
  logger.info('building the local Neo4j launcher with Maven (first start only; downloads Neo4j from Maven Central)');
  const build = spawnSync('mvn', ['-q', '-B', '-f', path.join(LAUNCHER_DIR, 'pom.xml'), 'package', '-DskipTests'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    const output = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`Building the local Neo4j launcher failed (mvn exit ${build.status}):\n${output}`);
  }
  return LAUNCHER_JAR;
}

/**
 * The local Neo4j's password: read from its file, or generated into it at the first start of an
 * installation, including one whose store an older launcher made without a password.
 */
function localNeo4jPassword(passwordFile: string, logger: Logger): string {
  const { secret, generated } = localSecretFile(passwordFile);
  if (generated) logger.warn('generated the password of the local Neo4j (user neo4j); Neo4j Browser and cypher-shell sign in with it', { file: passwordFile });
  return secret;
}

/**
 * True when a Neo4j already answers Bolt on the port with our password (the service's own, for a
 * command-line tool). One that refuses the password is not ours: starting another then fails on
 * the port, which says more than a wrong password would.
 */
async function answersBolt(uri: string, password: string): Promise<boolean> {
  const driver = neo4j.driver(uri, neo4j.auth.basic(LOCAL_NEO4J_USER, password), { connectionTimeout: 1000, maxTransactionRetryTime: 0 });
  try {
    await driver.verifyConnectivity();
    return true;
  } catch {
    return false;
  } finally {
    await driver.close();
  }
}

const KIB_PER_SIZE_UNIT: Record<string, number> = { k: 1, m: 1024, g: 1024 * 1024 };

/**
 * The memory a transaction may use (a quarter of the heap) and all of them together (half), so that
 * no query and no number of them runs the heap out through what Neo4j tracks (rows, lists, maps kept
 * by operators); Neo4j answers MemoryPoolOutOfMemoryError naming the limit instead. What it tracks
 * is less than what the heap holds: at half the heap for one query, a list of 200 million numbers
 * kept a 768 MB heap collecting garbage for 100 s before the limit was reached.
 */
export function transactionMemoryLimits(heap: string): { perTransaction: string; total: string } {
  const match = /^(\d+)([kmg])$/i.exec(heap);
  if (!match) throw new Error(`not a heap size: ${heap}`);
  const kib = Number(match[1]) * (KIB_PER_SIZE_UNIT[(match[2] as string).toLowerCase()] as number);
  return { perTransaction: `${Math.floor(kib / 4)}k`, total: `${Math.floor(kib / 2)}k` };
}

/** The account the launcher runs as: a system user's (as root), or unset (this process's own). */
type Account = Partial<OsAccount>;

const canAccess = (account: Account, test: '-r' | '-w', file: string) => spawnSync('test', [test, file], account).status === 0;

/**
 * The launcher as the account can read it: where it was built, or, when the folders above the
 * project let no other user through (a checkout in a private folder), a mirror beside the store
 * folder (hard links where the file system allows, copies otherwise), renewed when rebuilt.
 */
function readableLauncher(account: Account, jar: string, home: string): string {
  if (canAccess(account, '-r', jar)) return jar;
  const mirror = path.join(path.dirname(home), 'neo4j-launcher');
  const mirrored = path.join(mirror, path.basename(jar));
  if (!existsSync(mirrored) || statSync(mirrored).mtimeMs < statSync(jar).mtimeMs) {
    rmSync(mirror, { recursive: true, force: true });
    const libs = path.join(path.dirname(jar), 'lib');
    mkdirSync(path.join(mirror, 'lib'), { recursive: true, mode: 0o755 });
    const place = (from: string, to: string) => {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
      }
    };
    for (const lib of readdirSync(libs)) place(path.join(libs, lib), path.join(mirror, 'lib', lib));
    place(jar, mirrored);
  }
  return mirrored;
}

/**
 * The account the local Neo4j runs as. As root: the system user neo4j (created when missing),
 * owner of the store folder and nothing else, so that a query that reaches the file system anyway
 * finds only what that user may read. Otherwise the service's own user, which is not root.
 */
function storeAccount(home: string): Account {
  if (process.getuid?.() !== 0) return {};
  if (spawnSync('id', ['-u', LOCAL_NEO4J_OS_USER], { stdio: 'ignore' }).status !== 0) {
    execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', LOCAL_NEO4J_OS_USER], { stdio: 'ignore' });
  }
  const account = osAccount(LOCAL_NEO4J_OS_USER);
  // A store made while Neo4j ran as root belongs to root: hand it over.
  execFileSync('chown', ['-R', `${account.uid}:${account.gid}`, home]);
  if (!canAccess(account, '-w', home)) {
    throw new Error(`the local Neo4j runs as the system user ${LOCAL_NEO4J_OS_USER}, which cannot write to ${home}: let other users through the folders above it (chmod o+x), or set NEO4J_URI`);
  }
  return account;
}

export async function startLocalNeo4j({ dataDir, passwordFile, boltPort, heap, pageCache, procedures, logger }: LocalNeo4jOptions): Promise<LocalNeo4jServer> {
  const running = `bolt://127.0.0.1:${boltPort}`;
  const password = localNeo4jPassword(path.resolve(passwordFile), logger);
  if (await answersBolt(running, password)) {
    logger.info('a local Neo4j is already running on its port; using it', { uri: running });
    return { uri: running, user: LOCAL_NEO4J_USER, password, stop: async () => undefined };
  }
  const jar = ensureLauncherBuilt(logger);
  const home = path.resolve(dataDir);
  mkdirSync(home, { recursive: true });
  const account = storeAccount(home);
  const memory = transactionMemoryLimits(heap);
  const args = [
    `-Xms${heap}`, `-Xmx${heap}`, ...JVM_FLAGS, '-jar', readableLauncher(account, jar, home), '--home', home, '--bolt-port', String(boltPort), '--password-stdin', '--pagecache', pageCache,
    '--tx-memory-max', memory.perTransaction, '--tx-memory', memory.total, '--procedures', procedures.join(','),
  ];
  let current: ChildProcess | undefined;
  const launch = async () => {
    // Its own process group: a Ctrl-C in the terminal reaches the service, which stops Neo4j last.
    // Standard input stays open: the launcher exits when it closes (the service died). The password
    // travels on it, never on the command line (which every local user sees).
    const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, ...account });
    child.stdin?.write(`${password}\n`);
    current = child;
    const uri = await waitForReady(child, boltPort);
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    return { uri, exited, stop: () => stopChild(child) };
  };
  const first = await launch();
  const supervisor = new StoreSupervisor('neo4j', { start: launch }, logger);
  supervisor.watch(first.exited);
  // However this process ends (a grace period run out included), no Neo4j of its own outlives it.
  const killOnExit = () => current?.kill('SIGKILL');
  process.once('exit', killOnExit);
  logger.info('local Neo4j is up', { uri: first.uri, home, user: account.uid === undefined ? 'this process\'s' : LOCAL_NEO4J_OS_USER });
  return {
    uri: first.uri, user: LOCAL_NEO4J_USER, password, supervision: supervisor,
    stop: async () => {
      supervisor.stop();
      if (current) await stopChild(current);
      process.removeListener('exit', killOnExit);
    },
  };
}

function waitForReady(child: ChildProcess, boltPort: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`The local Neo4j could not start on 127.0.0.1:${boltPort}: ${reason}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const ready = READY_LINE.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        child.stderr?.removeAllListeners('data');
        child.stderr?.resume();
        resolve(ready[1] as string);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code) => {
      const reported = /NEO4J_FAILED:? ?(.*)/.exec(stderr)?.[1];
      fail(reported ?? (stderr.trim().split('\n').slice(-3).join(' | ') || `the launcher exited with code ${code}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.removeAllListeners('exit');
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
