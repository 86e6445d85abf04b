// govmomi's vCenter simulator (tools/vcsim, built from Debian's golang-github-vmware-govmomi-dev
// with Debian's Go), started on loopback for a test: a real implementation of the vSphere Web
// Services API, for the tests and the benchmark. The binary is built once per source version and
// kept under node_modules/.cache.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// Three levels below the project root, from src/tools/vcsim and from dist/tools/vcsim alike.
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const SOURCE = path.join(ROOT, 'tools/vcsim');
const GOVMOMI = '/usr/share/gocode/src/github.com/vmware/govmomi/simulator';
/** Building the simulator takes about a minute on these machines, more when loaded. */
export const VCSIM_BUILD_TIMEOUT_MS = 600_000;

export interface VcsimEstate {
  clusters: string[];
  hosts: { name: string; cluster: string; datastores: string[]; networks: string[]; vswitches: string[] }[];
  vms: { name: string; host: string; powerState: string; uuid: string; macs: string[]; datastores: string[]; networks: string[] }[];
  datastores: string[];
  networks: string[];
  portgroups: { name: string; switch: string }[];
  switches: { name: string; hosts: string[] }[];
}

export interface Vcsim {
  url: string;
  port: number;
  /** The server certificate (PEM). */
  certificate: string;
  /** The estate the simulator created, as it reports it itself. */
  estate: VcsimEstate;
  /** The next ContinueRetrievePropertiesEx answers a SystemError fault (a vCenter failing mid-read). */
  failNextContinue(): Promise<void>;
  stop(): Promise<void>;
}

export interface VcsimOptions {
  port?: number;
  username?: string;
  password?: string;
  /** Counts, as the vcsim flags: -cluster, -cluster-host, -standalone-host, -vm (per resource pool), -ds, -pg. */
  counts?: Partial<Record<'dc' | 'cluster' | 'cluster-host' | 'standalone-host' | 'vm' | 'ds' | 'pg', number>>;
}

/** Why the simulator cannot run here, or undefined. */
export function vcsimUnavailable(): string | undefined {
  if (!existsSync(GOVMOMI)) return `${GOVMOMI} is missing (apt-get install golang-github-vmware-govmomi-dev)`;
  return undefined;
}

/** The simulator's binary, built when its source changed. */
export async function vcsimBinary(): Promise<string> {
  const main = readFileSync(path.join(SOURCE, 'src/vcsim/main.go'));
  const version = createHash('sha256').update(main).digest('hex').slice(0, 16);
  const dir = path.join(ROOT, 'node_modules/.cache/vcsim', version);
  const binary = path.join(dir, 'vcsim');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}`;
  await promisify(execFile)('go', ['build', '-o', partial, 'vcsim'], {
    cwd: SOURCE,
    timeout: VCSIM_BUILD_TIMEOUT_MS,
    env: { ...process.env, GO111MODULE: 'off', GOPATH: `/usr/share/gocode:${SOURCE}`, GOCACHE: path.join(ROOT, 'node_modules/.cache/vcsim/go-build'), GOFLAGS: '' },
  });
  // Renamed into place: a concurrent test sees either no binary or a whole one.
  await promisify(execFile)('mv', ['-f', partial, binary]);
  return binary;
}

export async function startVcsim(options: VcsimOptions = {}): Promise<Vcsim> {
  const binary = await vcsimBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vcsim-'));
  const certFile = path.join(dir, 'cert.pem');
  const estateFile = path.join(dir, 'estate.json');
  const args = [
    '-listen', `127.0.0.1:${options.port ?? 0}`, '-username', options.username ?? 'inventory', '-password', options.password ?? 'secret',
    '-cert-out', certFile, '-estate-out', estateFile,
    ...Object.entries(options.counts ?? {}).flatMap(([flag, n]) => [`-${flag}`, String(n)]),
  ];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = out.match(/LISTENING (\S+)/);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`vcsim exited with ${code}: ${stderr}`)));
  });
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    certificate: readFileSync(certFile, 'utf8'),
    estate: JSON.parse(readFileSync(estateFile, 'utf8')) as VcsimEstate,
    failNextContinue: () =>
      new Promise<void>((resolve, reject) => {
        const request = https.request({ host: '127.0.0.1', port, path: '/vcsim/fail-next-continue', method: 'POST', ca: readFileSync(certFile, 'utf8') }, (response) => {
          response.resume();
          if (response.statusCode === 204) resolve();
          else reject(new Error(`vcsim answered ${response.statusCode}`));
        });
        request.on('error', reject);
        request.end();
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
