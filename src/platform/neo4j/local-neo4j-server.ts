// The local default Neo4j: a real Neo4j 5.26 Community server run by the small Java launcher in
// neo4j-launcher/ (built once with Maven from Maven Central artifacts, then reused). It listens on
// 127.0.0.1 only, keeps its store under the data folder, and stops on SIGTERM or when this process
// goes away (the launcher exits when its standard input closes). Authentication is on, with the
// password of the neo4j user generated once per installation into a file of the data folder.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { localSecretFile } from '../local-secret-file.js';
import type { Logger } from '../logger.js';
import { fromProjectRoot } from '../project-root.js';

/** The one user of the local Neo4j (Community has no others the service would need). */
export const LOCAL_NEO4J_USER = 'neo4j';

export interface LocalNeo4jServer {
  uri: string;
  user: string;
  password: string;
  stop(): Promise<void>;
}

export interface LocalNeo4jOptions {
  dataDir: string;
  /** The file that holds the neo4j user's password; generated when missing. */
  passwordFile: string;
  boltPort: number;
  heap: string;
  pageCache: string;
  logger: Logger;
}

const LAUNCHER_DIR = fromProjectRoot('neo4j-launcher');
const LAUNCHER_JAR = path.join(LAUNCHER_DIR, 'target', 'neo4j-launcher.jar');
const READY_LINE = /^NEO4J_READY (\S+)/m;
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

// Neo4j 5.26's own JVM settings (from its neo4j.conf); the three --add-opens keep the fast page
// cache I/O path.
const JVM_FLAGS = [
  '-XX:+UseG1GC',
  '-XX:-OmitStackTraceInFastThrow',
  '-XX:+UnlockExperimentalVMOptions',
  '-XX:+TrustFinalNonStaticFields',
  '-XX:+DisableExplicitGC',
  '-XX:+ExitOnOutOfMemoryError',
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

export async function startLocalNeo4j({ dataDir, passwordFile, boltPort, heap, pageCache, logger }: LocalNeo4jOptions): Promise<LocalNeo4jServer> {
  const running = `bolt://127.0.0.1:${boltPort}`;
  const password = localNeo4jPassword(path.resolve(passwordFile), logger);
  if (await answersBolt(running, password)) {
    logger.info('a local Neo4j is already running on its port; using it', { uri: running });
    return { uri: running, user: LOCAL_NEO4J_USER, password, stop: async () => undefined };
  }
  const jar = ensureLauncherBuilt(logger);
  const home = path.resolve(dataDir);
  mkdirSync(home, { recursive: true });
  // The password travels in its file, never on the command line (which every local user sees).
  const args = [`-Xms${heap}`, `-Xmx${heap}`, ...JVM_FLAGS, '-jar', jar, '--home', home, '--bolt-port', String(boltPort), '--password-file', path.resolve(passwordFile), '--pagecache', pageCache];
  // Its own process group: a Ctrl-C in the terminal reaches the service, which stops Neo4j last.
  // Standard input stays open: the launcher exits when it closes (the service died).
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const uri = await waitForReady(child, boltPort);
  child.once('exit', (code, signal) => logger.error('the local Neo4j stopped unexpectedly', { code, signal }));
  logger.info('local Neo4j is up', { uri, home });
  return { uri, user: LOCAL_NEO4J_USER, password, stop: () => stopChild(child) };
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
