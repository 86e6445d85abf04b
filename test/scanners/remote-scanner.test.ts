// A remote scanner process (dist/main.js with SERVICE_ROLES=scanner, no store settings) in a
// network namespace of its own, on a lab network that the service's own process cannot reach
// (REMOTE_SITE: this machine's traffic to the hosts is dropped and counted): it takes the chunks of
// its group's target, logs in to the hosts over SSH with the credential the chunk brought, and
// reports what it found; the service loads it as its own. The credential goes to that chunk
// only, never to a chunk of another target. A scanner killed mid-chunk and started again loses
// and repeats nothing; a revoked token stops the scanner at its next claim.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { LAB_START_TIMEOUT_MS, REMOTE_SITE, remoteSiteDrops, SCAN_PASSWORD, SCAN_USER, startTestNetwork, SUBNET, type TestNetwork } from '../../src/tools/lab/lab-network.js';
import { ApiClient } from '../support/api-client.js';
import { describeInLab, runToEnd } from '../support/discovery-scans.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { freePort } from '../support/free-port.js';
import { startTestService, testNeo4jPassword, testNeo4jUri, type TestService } from '../support/test-stores.js';

const describePeers = await describeInLab('The remote scanner tests');

const LEASE_MS = 4000;

interface Scanner {
  child: ChildProcess;
  log: string[];
  exited: Promise<number | null>;
}

describePeers('a remote scanner in a network only it reaches', () => {
  let network: TestNetwork;
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let serviceUrl: string;
  const scanners: Scanner[] = [];

  beforeAll(async () => {
    network = await startTestNetwork({ remoteSite: true });
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryLeaseMs: LEASE_MS, discoveryChunkSize: 2 });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
    // The service as the scanner's namespace reaches it: over the lab bridge, at this machine's address there.
    serviceUrl = `http://${SUBNET}.1:${new URL(service.url).port}${new URL(service.url).pathname.replace(/\/$/, '')}`;
  }, LAB_START_TIMEOUT_MS);
  afterEach(async () => {
    await Promise.all(scanners.splice(0).map(async (s) => {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await s.exited;
    }));
  });
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  const newScanner = async (name: string, group: string) => {
    const created = await p.adminSession.post('/api/v1/scanners', { name, group });
    expect(created.status).toBe(201);
    return { id: created.body.data.id as string, token: created.body.data.token as string };
  };

  /** The scanner process in the remote site's namespace, with nothing but the service's URL, its token and scan bounds. */
  const startScanner = (token: string, env: Record<string, string> = {}): Scanner => {
    const child = spawn('ip', ['netns', 'exec', REMOTE_SITE.namespace, process.execPath, fromProjectRoot('dist', 'main.js')], {
      cwd: mkdtempSync(path.join(os.tmpdir(), 'inventory-scanner-')),
      env: {
        PATH: process.env.PATH,
        SERVICE_ROLES: 'scanner',
        SERVICE_SCANNER_URL: serviceUrl,
        SERVICE_SCANNER_TOKEN: token,
        SERVICE_SCANNER_WAIT_SECONDS: '2',
        SERVICE_DISCOVERY_SWEEP_PORTS: '22',
        SERVICE_DISCOVERY_CONNECT_TIMEOUT_MS: '1000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: string[] = [];
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (data: Buffer) => log.push(...data.toString('utf8').split('\n').filter(Boolean)));
    const scanner = { child, log, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
    scanners.push(scanner);
    return scanner;
  };

  /** The addresses that connected to a host's sshd (logins, and the sweep's bare connects). */
  const sshdPeers = async (host: 'h1' | 'h2' | 'sw') => new Set([...(await network.hosts[host].sshdLog()).matchAll(/(?:from|by) (\d+\.\d+\.\d+\.\d+) port/g)].map((m) => m[1]));
  const logins = async (host: 'h1' | 'h2' | 'sw') => ((await network.hosts[host].sshdLog()).match(/Accepted password for invscan/g) ?? []).length;

  it('inventories the hosts only it reaches, with the SSH credential its chunk brought, and the service loads them', async () => {
    // This machine (the service's process) cannot connect to the hosts: its packets are dropped.
    const connects = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: network.hosts.h1.address, port: 22, timeout: 1500 }, () => resolve('connected'));
      // Closed at once: a socket left open would go on sending its SYN (and count more drops).
      socket.on('timeout', () => {
        socket.destroy();
        resolve('timed out');
      }).on('error', (e) => resolve(e.message));
    });
    expect(connects).toBe('timed out');
    const dropsBefore = await remoteSiteDrops();
    expect(dropsBefore).toBeGreaterThan(0);

    const credential = await api.post('/api/v1/credentials', { name: 'site ssh', kind: 'SSH_PASSWORD', matchPatterns: [`${SUBNET}.0/24`], settings: { username: SCAN_USER }, secrets: { password: SCAN_PASSWORD } });
    expect(credential.status).toBe(201);
    const target = (await api.post('/api/v1/discovery/targets', { name: 'remote site', addresses: [`${SUBNET}.11-${SUBNET}.13`], methods: ['SWEEP', 'SSH'], scannerGroup: 'site-a' })).body.data;
    const scanner = await newScanner('site-a-1', 'site-a');
    const process1 = startScanner(scanner.token);
    const queued = await api.post(`/api/v1/discovery/targets/${target.id}/scan`);
    expect(queued.status).toBe(202);
    const run = await runToEnd(api, queued.body.data.id, 240_000);
    expect(run).toMatchObject({ status: 'COMPLETED', scannerGroup: 'site-a', progress: { done: 3, total: 3 }, chunks: { total: 2, done: 2 }, summary: { hostsResponding: 3, assetsCreated: 3, errors: 0 }, errors: [] });
    // The run's chunk list names the scanner that ran each chunk.
    const chunks = (await api.get(`/api/v1/discovery/runs/${run.id}/chunks`)).body.data;
    expect(chunks.map((c: any) => `${c.firstAddress}-${c.lastAddress} ${c.status} ${c.done} ${c.ranBy.kind} ${c.ranBy.name} ${c.ranBy.scannerId === scanner.id}`))
      .toEqual([`${SUBNET}.11-${SUBNET}.12 DONE 2 SCANNER site-a-1 true`, `${SUBNET}.13-${SUBNET}.13 DONE 1 SCANNER site-a-1 true`]);

    // The hosts as the lab holds them: their names, their MACs, this machine's packages (the namespaces share its files), Redis on h2.
    const hosts = (await api.get('/api/v1/assets?category=HOST,NETWORK_DEVICE&size=100')).body.data as { id: string; hostname: string; macAddresses: string[]; ipAddresses: string[]; sources: string[] }[];
    expect(hosts.map((h) => h.hostname).sort()).toEqual(['h1', 'h2', 'sw']);
    for (const name of ['h1', 'h2', 'sw'] as const) {
      const host = hosts.find((h) => h.hostname === name);
      expect(host?.macAddresses).toContain((await network.hosts[name].exec('cat /sys/class/net/eth0/address')).trim());
      expect(host?.ipAddresses).toContain(network.hosts[name].address);
      expect(host?.sources).toEqual(['discovery']);
    }
    const installed = execFileSync('dpkg-query', ['-W', '-f', '${db:Status-Abbrev}\n']).toString().split('\n').filter((l) => l.startsWith('ii')).length;
    const h1 = hosts.find((h) => h.hostname === 'h1') as { id: string };
    expect(await service.running.container.db('software_packages').where({ asset_id: h1.id }).count('* as n').first()).toEqual({ n: String(installed) });
    const redis = ((await api.get('/api/v1/assets?type=SOFTWARE&size=100')).body.data as { displayName: string; parent: { id: string } | null }[]).filter((s) => s.displayName === 'Redis');
    expect(redis.map((s) => s.parent?.id)).toEqual([hosts.find((h) => h.hostname === 'h2')?.id]);

    // Only the scanner connected to the hosts; the service's process never tried (its drop counter did not move).
    for (const name of ['h1', 'h2', 'sw'] as const) {
      expect(await sshdPeers(name)).toEqual(new Set([REMOTE_SITE.address]));
      expect(await logins(name)).toBe(1);
    }
    expect(await remoteSiteDrops()).toBe(dropsBefore);
    // The host keys the scanner saw are pinned in the service, as a worker's would be.
    expect(await service.running.container.db('ssh_host_keys').whereIn('address', ['h1', 'h2', 'sw'].map((n) => network.hosts[n as 'h1'].address)).count('* as n').first()).toEqual({ n: '3' });
    const listed = (await p.adminSession.get('/api/v1/scanners')).body.data.find((s: { id: string }) => s.id === scanner.id);
    expect(listed).toMatchObject({ status: 'ACTIVE', chunksDone: 2, version: expect.any(String), lastContactAt: expect.any(String) });
    // The secret never reached the scanner's log.
    expect(process1.log.join('\n')).not.toContain(SCAN_PASSWORD);
    expect(process1.log.join('\n')).toContain('scanning a chunk');

    // A chunk of another target (another group's, addresses the credential does not cover) is given no credential of it.
    const elsewhere = (await api.post('/api/v1/discovery/targets', { name: 'elsewhere', addresses: ['192.0.2.1'], methods: ['SWEEP', 'SSH'], scannerGroup: 'site-b' })).body.data;
    const other = new ApiClient(service.url, { kind: 'bearer', token: (await newScanner('site-b-1', 'site-b')).token });
    const otherRun = (await api.post(`/api/v1/discovery/targets/${elsewhere.id}/scan`)).body.data;
    const claimed = await eventually(() => other.post('/api/v1/scanner/chunks/claim', { version: '0.1.0', waitSeconds: 2 }), (r) => r.status === 200, 'a chunk of site-b', 60_000);
    expect(claimed.body.data).toMatchObject({ runId: otherRun.id, entries: ['192.0.2.1'], credentials: [{ method: 'SSH', candidates: [], revealed: [] }] });
    expect(JSON.stringify(claimed.body.data)).not.toContain(SCAN_PASSWORD);
    // Nor may its report name the credential as one it tried.
    const forged = await other.post(`/api/v1/scanner/chunks/${claimed.body.data.id}/reports`, {
      attempt: 1, results: [], remembered: [{ address: '192.0.2.1', method: 'SSH', credentialId: credential.body.data.id }], end: { credentialsTried: [credential.body.data.id] },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.errors).toEqual([expect.objectContaining({ path: 'body.remembered.0.credentialId' }), expect.objectContaining({ path: 'body.end.credentialsTried.0' })]);
    const ended = await other.post(`/api/v1/scanner/chunks/${claimed.body.data.id}/reports`, { attempt: 1, results: [], end: { credentialsTried: [] } });
    expect(ended.body.data.state).toBe('ENDED');
  }, 420_000);

  it('loses and repeats nothing when the scanner is killed mid-chunk and started again', async () => {
    const target = (await api.post('/api/v1/discovery/targets', { name: 'remote site again', addresses: [`${SUBNET}.11-${SUBNET}.13`], methods: ['SWEEP', 'SSH'], scannerGroup: 'site-c' })).body.data;
    const scanner = await newScanner('site-c-1', 'site-c');
    const before = { h1: await logins('h1'), h2: await logins('h2'), sw: await logins('sw') };
    // One address at a time: the first chunk (h1, h2) is half done when h1's result is in.
    const first = startScanner(scanner.token, { SERVICE_DISCOVERY_CONCURRENCY: '1', SERVICE_DISCOVERY_HOST_CONCURRENCY: '1' });
    const runId = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data.id;
    const midway = await eventually(async () => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data, (r) => r.progress.done >= 1, 'the first address reported', 240_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const kept: string[] = await service.running.container.db('discovery_run_results').where({ run_id: runId }).pluck('address');
    expect(kept.length).toBeGreaterThanOrEqual(midway.progress.done);

    // Started again: the chunk comes back to it after its lease, and it scans only what was not reported.
    startScanner(scanner.token);
    const run = await runToEnd(api, runId, 240_000);
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 3, total: 3 }, chunks: { total: 2, done: 2 }, summary: { hostsResponding: 3, errors: 0 } });
    const attempts: number[] = await service.running.container.db('discovery_run_chunks').where({ run_id: runId }).orderBy('seq').pluck('attempts');
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
    // What the killed process had reported was not scanned again: one login there. (A host it was
    // logged in to when killed is scanned again: its result had not reached the service.)
    for (const name of ['h1', 'h2', 'sw'] as const) {
      const since = (await logins(name)) - before[name];
      if (kept.includes(network.hosts[name].address)) expect(`${name} ${since}`).toBe(`${name} 1`);
      else expect(since).toBeGreaterThanOrEqual(1);
    }
    const hosts = (await api.get('/api/v1/assets?category=HOST,NETWORK_DEVICE&size=100')).body.data as { hostname: string }[];
    expect(hosts.map((h) => h.hostname).sort()).toEqual(['h1', 'h2', 'sw']);
  }, 420_000);

  it('rides out a restart of the api process it reports to: the run completes, no chunk lost or done twice', async () => {
    // An api-only process of the same service (same stores, same data folder: the same keys), killed and started again on its port.
    const port = await freePort();
    const startApi = () => {
      const child = spawn(process.execPath, [fromProjectRoot('dist', 'main.js')], {
        env: { PATH: process.env.PATH, SERVICE_ROLES: 'api', PORT: String(port), DATABASE_URL: service.database.url, NEO4J_URI: testNeo4jUri(), NEO4J_PASSWORD: testNeo4jPassword(), SERVICE_DATA_DIR: service.dataDir, SERVICE_LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      });
      return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
    };
    const apiUp = () => eventually(() => fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status, () => 0), (status) => status === 200, 'the api process ready', 120_000);
    let apiProcess = startApi();
    try {
      await apiUp();
      const target = (await api.post('/api/v1/discovery/targets', { name: 'remote site, api restarted', addresses: [`${SUBNET}.11-${SUBNET}.13`], methods: ['SWEEP', 'SSH'], scannerGroup: 'site-e' })).body.data;
      const scanner = await newScanner('site-e-1', 'site-e');
      const running = startScanner(scanner.token, { SERVICE_SCANNER_URL: `http://${SUBNET}.1:${port}`, SERVICE_SCANNER_RETRY_MAX_MS: '1000', SERVICE_DISCOVERY_CONCURRENCY: '1', SERVICE_DISCOVERY_HOST_CONCURRENCY: '1' });
      const runId = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data.id;
      await eventually(async () => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data, (r) => r.progress.done >= 1, 'the first address reported', 240_000);
      apiProcess.child.kill('SIGKILL');
      await apiProcess.exited;
      apiProcess = startApi();
      await apiUp();
      const run = await runToEnd(api, runId, 240_000);
      expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 3, total: 3 }, chunks: { total: 2, done: 2, failed: 0 }, summary: { hostsResponding: 3, errors: 0 } });
      // It saw the service go away, and stayed.
      expect(running.log.join('\n')).toMatch(/progress not recorded|did not answer the scanner|cannot be reached/);
      expect(running.child.exitCode).toBeNull();
      const hosts = (await api.get('/api/v1/assets?category=HOST,NETWORK_DEVICE&size=100')).body.data as { hostname: string }[];
      expect(hosts.map((h) => h.hostname).sort()).toEqual(['h1', 'h2', 'sw']);
    } finally {
      apiProcess.child.kill('SIGKILL');
      await apiProcess.exited;
    }
  }, 600_000);

  it('stops at its next claim once its token is revoked', async () => {
    const scanner = await newScanner('site-d-1', 'site-d');
    const running = startScanner(scanner.token);
    await eventually(async () => (await p.adminSession.get('/api/v1/scanners')).body.data.find((s: { id: string }) => s.id === scanner.id), (s) => s.lastContactAt !== null, 'the scanner\'s first claim', 60_000);
    expect(running.child.exitCode).toBeNull();
    expect((await p.adminSession.delete(`/api/v1/scanners/${scanner.id}`)).body.data.status).toBe('REVOKED');
    // Its claims wait 2 s at most: the next one is refused, and the process ends (status 3: a refused token).
    expect(await running.exited).toBe(3);
    expect(running.log.join('\n')).toContain('the service refused the scanner token');
  }, 120_000);
});
