/// <reference lib="dom" />
// Many processes, one estate (docs/operations.md, "Many processes"): two api processes behind
// nginx as the load balancer, two workers, a remote scanner (reaching the service through nginx
// with its token alone) and a flow collector, all real service processes (dist/main.js) on one
// PostgreSQL and one Neo4j, with the keys every process must share. The test's own service holds
// the scheduler role alone (it makes the recurring jobs, the lease sweep among them). One worker
// and one api process are killed with SIGKILL mid-run: every run completes, no address becomes two
// assets, the collector's flows are read, and a browser signed in before the kill stays signed in,
// through the balancer and on each api process, the restarted one included.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { datagrams } from '../flows/fixtures.js';
import { sendDatagrams, udpSender } from '../flows/flow-senders.js';
import { signIn as signInApi, type ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/principals.js';
import { startTestService, testNeo4jPassword, testNeo4jUri, type TestService } from '../support/test-stores.js';
import { launch, openPage, signIn } from '../web/browser.js';

const LEASE_MS = 3000;
const CHUNK_SIZE = 64;
// Each worker probes 40 addresses a second: the central run (1,022 addresses, 16 chunks) lasts long
// enough for its workers to be caught holding chunks, however fast the machine.
const WORKER_PROBE_RATE = 40;
const CENTRAL_BLOCK = '127.0.8.0/22';
const CENTRAL_ADDRESSES = 1022;
const BRANCH_BLOCK = '127.0.12.0/24';
const BRANCH_ADDRESSES = 254;
const EXPORTER = '127.0.0.55';

// The keys that sign sessions, hash tokens and encrypt credential secrets: the same in every
// process, or a session or token made by one is refused by another.
const SHARED_KEYS = {
  SERVICE_AUTH_SESSION_SECRET: randomBytes(32).toString('hex'),
  SERVICE_AUTH_TOKEN_PEPPER: randomBytes(32).toString('hex'),
  SERVICE_VAULT_KEYS: `1:${randomBytes(32).toString('base64')}`,
};

interface Child {
  process: ChildProcess;
  exited: Promise<void>;
  log: string[];
}

/** A UDP port on 127.0.0.1 that nothing listens on now. */
const freeUdpPort = () => new Promise<number>((resolve) => {
  const socket = dgram.createSocket('udp4');
  socket.bind(0, '127.0.0.1', () => {
    const { port } = socket.address();
    socket.close(() => resolve(port));
  });
});

describe('many processes on one estate', () => {
  let service: TestService;
  let browser: Browser;
  let probed: net.Server;
  let dir: string;
  let nginx: ChildProcess | undefined;
  let balancer: string;
  let admin: ApiClient;
  const apiPorts: number[] = [];
  const apis: Child[] = [];
  const children: Child[] = [];

  /** A service process of the given roles on the test's stores, with the shared keys. */
  const startProcess = (roles: string, env: Record<string, string>): Child => {
    const child = spawn(process.execPath, [fromProjectRoot('dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        SERVICE_ROLES: roles,
        SERVICE_DATA_DIR: mkdtempSync(path.join(dir, `${roles}-`)),
        SERVICE_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (data: Buffer) => log.push(...data.toString('utf8').split('\n').filter(Boolean)));
    const started = { process: child, log, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) };
    children.push(started);
    return started;
  };
  const storeEnv = () => ({
    DATABASE_URL: service.database.url,
    NEO4J_URI: testNeo4jUri(),
    NEO4J_PASSWORD: testNeo4jPassword(),
    SERVICE_JOBS_POLL_INTERVAL_MS: '200',
    SERVICE_JOBS_LOCK_LIFETIME_MS: '2000',
    SERVICE_DISCOVERY_LEASE_MS: String(LEASE_MS),
    SERVICE_DISCOVERY_CHUNK_SIZE: String(CHUNK_SIZE),
    ...SHARED_KEYS,
  });

  /** An api process on its port, once it answers. */
  const startApi = async (port: number): Promise<Child> => {
    const api = startProcess('api', { ...storeEnv(), PORT: String(port) });
    await eventually(() => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0), (s) => s === 200, `the api process on ${port} (${api.log.join(' | ')})`, 120_000);
    return api;
  };
  const startWorker = () => startProcess('worker', {
    ...storeEnv(),
    SERVICE_DISCOVERY_PROBE_RATE: String(WORKER_PROBE_RATE),
    SERVICE_DISCOVERY_SWEEP_PORTS: String((probed.address() as net.AddressInfo).port),
  });
  const kill = async (child: Child) => {
    child.process.kill('SIGKILL');
    await child.exited;
  };

  /** nginx in front of the api processes: a request that finds one gone is passed to the other. */
  const startBalancer = async (): Promise<string> => {
    const port = await freePort();
    const tmp = path.join(dir, 'nginx-tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(path.join(dir, 'nginx.conf'), [
      'daemon off;', 'user root;', `pid ${dir}/nginx.pid;`, `error_log ${dir}/nginx-error.log warn;`, 'events { worker_connections 512; }',
      `http { access_log off; client_body_temp_path ${tmp}; proxy_temp_path ${tmp}; fastcgi_temp_path ${tmp}; uwsgi_temp_path ${tmp}; scgi_temp_path ${tmp};`,
      `  upstream api { ${apiPorts.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join(' ')} keepalive 16; }`,
      `  server { listen 127.0.0.1:${port};`,
      '    location / { proxy_pass http://api; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $http_host;',
      '      proxy_buffering off; proxy_read_timeout 90s; proxy_next_upstream error timeout http_502; } }',
      '}',
    ].join('\n'));
    nginx = spawn('/usr/sbin/nginx', ['-c', path.join(dir, 'nginx.conf')], { stdio: 'ignore' });
    const url = `http://127.0.0.1:${port}`;
    await eventually(() => fetch(`${url}/health`).then((r) => r.status, () => 0), (s) => s === 200, 'nginx in front of the api processes');
    return url;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'many-processes-'));
    probed = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => probed.listen(0, '0.0.0.0', resolve));
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD,
      roles: 'scheduler',
      discoveryLeaseMs: LEASE_MS,
      sessionSecret: SHARED_KEYS.SERVICE_AUTH_SESSION_SECRET,
      tokenPepper: SHARED_KEYS.SERVICE_AUTH_TOKEN_PEPPER,
      vaultKeys: SHARED_KEYS.SERVICE_VAULT_KEYS,
    });
    apiPorts.push(await freePort(), await freePort());
    apis.push(...(await Promise.all(apiPorts.map(startApi))));
    balancer = await startBalancer();
    admin = await signInApi(balancer, ADMIN_USERNAME, ADMIN_PASSWORD);
    browser = await launch();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    nginx?.kill('SIGTERM');
    await Promise.all(children.map(async (c) => {
      if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
      await c.exited;
    }));
    await service?.stop();
    probed?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runOf = async (id: string) => (await admin.get(`/api/v1/discovery/runs/${id}`)).body.data;
  const chunksOf = async (id: string) => (await admin.get(`/api/v1/discovery/runs/${id}/chunks?size=100`)).body.data as { status: string; attempts: number; done: number; size: number; ranBy: { kind: string; name: string } | null }[];
  /** The assets a run's hosts were loaded as, by address, over every page. */
  const hostsOf = async (id: string) => {
    const hosts = new Map<string, string>();
    for (let page = 0; ; page++) {
      const { body } = await admin.get(`/api/v1/discovery/runs/${id}/hosts?size=500&page=${page}`);
      for (const h of body.data as { address: string; assetId: string }[]) hosts.set(h.address, h.assetId);
      if (body.data.length < 500) return hosts;
    }
  };
  /** Whether the page's session cookie signs the browser in at this origin (an api process, or the balancer). */
  const signedInAt = async (page: Page, origin: string) => {
    await page.goto(`${origin}/assets`);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    return page.evaluate(() => fetch('/api/v1/me').then((r) => r.status));
  };

  it('completes every run with a worker and an api process killed mid-run, loads each address once, reads the flows, and keeps the browser signed in', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, balancer, ADMIN_USERNAME, ADMIN_PASSWORD);

    const [doomed] = [startWorker(), startWorker()];
    const scanner = (await admin.post('/api/v1/scanners', { name: 'branch-1', group: 'branch' })).body.data;
    startProcess('scanner', {
      SERVICE_SCANNER_URL: balancer,
      SERVICE_SCANNER_TOKEN: scanner.token,
      SERVICE_SCANNER_WAIT_SECONDS: '2',
      SERVICE_DISCOVERY_SWEEP_PORTS: String((probed.address() as net.AddressInfo).port),
    });
    const netflowPort = await freeUdpPort();
    startProcess('collector', { ...storeEnv(), SERVICE_FLOWS_NETFLOW_PORT: String(netflowPort), SERVICE_FLOWS_SFLOW_PORT: String(await freeUdpPort()) });

    const scan = async (name: string, addresses: string, scannerGroup?: string) => {
      const target = (await admin.post('/api/v1/discovery/targets', { name, addresses: [addresses], methods: ['SWEEP'], scannerGroup })).body.data;
      const queued = await admin.post(`/api/v1/discovery/targets/${target.id}/scan`);
      expect(queued.status).toBe(202);
      return queued.body.data.id as string;
    };
    const central = await scan('central block', CENTRAL_BLOCK);
    const branch = await scan('branch block', BRANCH_BLOCK, 'branch');

    // Mid-run: the doomed worker holds a chunk of the central run; it and one api process are killed.
    const doomedName = `${os.hostname()}:${doomed.process.pid}`;
    await eventually(() => chunksOf(central), (chunks) => chunks.some((c) => c.status === 'RUNNING' && c.ranBy?.name === doomedName), 'a chunk held by the doomed worker', 120_000);
    await Promise.all([kill(doomed), kill(apis[0] as Child)]);
    expect((await runOf(central)).status).toBe('RUNNING');
    // The balancer passes the browser's next requests to the other api process: still signed in.
    expect(await signedInAt(page, balancer)).toBe(200);

    // The killed api process again, on its port.
    await startApi(apiPorts[0] as number);

    // Every run completes: the doomed worker's chunks are taken again by the other worker.
    const ended = (id: string) => eventually(() => runOf(id), (r) => !['QUEUED', 'RUNNING'].includes(r.status), `the run ${id} ending`, 240_000);
    const [centralRun, branchRun] = await Promise.all([ended(central), ended(branch)]);
    expect(centralRun).toMatchObject({ status: 'COMPLETED', progress: { done: CENTRAL_ADDRESSES, total: CENTRAL_ADDRESSES }, summary: { hostsResponding: CENTRAL_ADDRESSES, errors: 0 } });
    expect(branchRun).toMatchObject({ status: 'COMPLETED', scannerGroup: 'branch', progress: { done: BRANCH_ADDRESSES, total: BRANCH_ADDRESSES }, summary: { hostsResponding: BRANCH_ADDRESSES, errors: 0 } });
    const centralChunks = await chunksOf(central);
    expect(centralChunks.every((c) => c.status === 'DONE' && c.done === c.size)).toBe(true);
    expect(centralChunks.some((c) => c.attempts >= 2 && c.ranBy?.kind === 'WORKER' && c.ranBy.name !== doomedName)).toBe(true);
    expect(new Set((await chunksOf(branch)).map((c) => `${c.status} ${c.ranBy?.kind} ${c.ranBy?.name}`))).toEqual(new Set(['DONE SCANNER branch-1']));

    // Each address is one asset, and no asset is two addresses' (every address answered).
    const hosts = new Map([...(await hostsOf(central)), ...(await hostsOf(branch))]);
    expect(hosts.size).toBe(CENTRAL_ADDRESSES + BRANCH_ADDRESSES);
    expect(new Set(hosts.values()).size).toBe(CENTRAL_ADDRESSES + BRANCH_ADDRESSES);
    expect((await admin.get('/api/v1/assets?type=UNKNOWN_ENDPOINT&size=1')).body.total).toBe(CENTRAL_ADDRESSES + BRANCH_ADDRESSES);

    // The collector's flows, read through the api processes.
    const sender = await udpSender(EXPORTER);
    await sendDatagrams(sender, netflowPort, datagrams('softflowd-v5'));
    sender.close();
    await eventually(async () => (await admin.get('/api/v1/flow/exporters')).body.data.map((e: { address: string }) => e.address), (a: string[]) => a.includes(EXPORTER), 'the exporter as the collector recorded it');

    // The session made before the kill signs the browser in on each api process, the restarted one too.
    for (const port of apiPorts) expect(await signedInAt(page, `http://127.0.0.1:${port}`)).toBe(200);
    expect(errors).toEqual([]);
  }, 600_000);
});
