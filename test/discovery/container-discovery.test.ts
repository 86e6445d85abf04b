// Discovery of a host's containers (method CONTAINERS) through the service's API: Debian's podman
// on a lab host (src/tools/lab/lab-network.ts) running containers of a busybox image imported
// there, read over the real SSH path (sudo for podman's listings, as the lab's scan account is
// allowed). The containers as tuples with their host, their processes, a rescan that changes only
// seen-times, a container stopped (its processes gone), a container removed (retired only after a
// complete read), and a host where podman is gone.
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApiClient } from '../support/api-client.js';
import { attributesOf, createTarget, describeInLab, scanToEnd, startLabScanService, type AssetRow } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import { LAB_START_TIMEOUT_MS, startTestNetwork, type TestHost, type TestNetwork } from '../../src/tools/lab/lab-network.js';

const describePeers = await describeInLab('container discovery tests against a namespace host');

const TEST_TIMEOUT_MS = 180_000;
const IMAGE = 'localhost/busybox:lab';

describePeers('discovery of the containers of a host over SSH (podman on a namespace host)', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let dir: string;
  let h2: TestHost;
  let targetId: string;

  /**
   * A container started in h2 (its PID namespace: the container's processes are h2's). The
   * flags keep crun within what a sandboxed machine allows: no raised RLIMIT_NOFILE or
   * RLIMIT_NPROC, no cgroups, the host's network.
   */
  const nofile = execFileSync('sh', ['-c', 'ulimit -Hn']).toString().trim();
  const podman = (args: string) => h2.exec(`podman --cgroup-manager cgroupfs ${args}`);
  const start = (name: string, labels: string) =>
    podman(`run -d --name ${name} ${labels} --network host --cgroups disabled --ulimit nofile=${nofile}:${nofile} --ulimit nproc=1024:1024 ${IMAGE} /bin/sh -c "/bin/httpd -f -p 127.0.0.1:18080 & wait"`);

  beforeAll(async () => {
    network = await startTestNetwork();
    h2 = network.hosts.h2;
    // A root file system of busybox-static, imported as an image; h2's podman keeps its store in
    // a folder of this test (bound over /var/lib/containers in h2's own mount namespace only).
    dir = await mkdtemp(path.join(os.tmpdir(), 'inventory-containers-'));
    await mkdir(path.join(dir, 'rootfs', 'bin'), { recursive: true });
    await copyFile('/bin/busybox', path.join(dir, 'rootfs', 'bin', 'busybox'));
    await chmod(path.join(dir, 'rootfs', 'bin', 'busybox'), 0o755);
    // Named as its applets, so that each process shows its own name (comm).
    for (const applet of ['sh', 'httpd']) await symlink('busybox', path.join(dir, 'rootfs', 'bin', applet));
    execFileSync('tar', ['-C', path.join(dir, 'rootfs'), '-cf', path.join(dir, 'busybox.tar'), '.']);
    await mkdir(path.join(dir, 'store'));
    // h2's sysfs (its network namespace's) has no cgroup file system, which crun requires: an empty one, no controllers.
    // /var/lib/containers exists only once podman has run on this machine.
    await h2.exec(`mount -t tmpfs tmpfs /sys/fs/cgroup && mkdir -p /var/lib/containers && mount --bind ${dir}/store /var/lib/containers && podman import --change 'CMD ["/bin/sh"]' ${dir}/busybox.tar ${IMAGE} > /dev/null`);
    await start('web', '--label app=web --label tier=frontend');
    await podman(`create --name batch --label app=batch ${IMAGE} /bin/busybox true`);

    ({ service, api } = await startLabScanService());
    targetId = await createTarget(api, { name: 'containers', addresses: [h2.address], methods: ['SWEEP', 'SSH', 'CONTAINERS'] });
  }, LAB_START_TIMEOUT_MS);
  // The containers' processes live in h2's namespaces: they end with it.
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const scan = () => scanToEnd(api, targetId);
  // The lab host itself is a CONTAINER too (SSH recognises a host that is a container): its containers are the others.
  const containers = async (): Promise<AssetRow[]> => ((await api.get('/api/v1/assets?type=CONTAINER&size=100')).body.data as AssetRow[]).filter((c) => !(c.ipAddresses as string[]).includes(h2.address));
  const attributes = (id: string) => attributesOf(api, id);
  const named = async (name: string) => (await containers()).find((c) => c.displayName === name) as AssetRow;
  /** The processes of a container, as the API lists them: name, pid, ppid, source and parent. */
  const processesOf = async (containerId: string) =>
    ((await api.get(`/api/v1/assets?type=RUNNING_PROCESS&hostId=${containerId}&size=100`)).body.data as AssetRow[])
      .map((p) => ({ name: p.displayName, parent: p.parent, ...(JSON.parse(p.customAttributes as string) as { pid: number; ppid: number } & Record<string, unknown>) }))
      .sort((a, b) => a.pid - b.pid);
  const edges = async () =>
    ((await api.get('/api/v1/relationships?type=HOSTS_CONTAINER&size=100')).body.data as { sourceDisplayName: string; targetDisplayName: string; active?: boolean }[])
      .map((r) => `${r.sourceDisplayName} -> ${r.targetDisplayName}`).sort();

  it('makes each container a CONTAINER its host HOSTS_CONTAINER, with image, state, labels, and its processes (its main process and what that started)', async () => {
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    expect((await containers()).map((c) => `${c.displayName} ${c.status}`).sort()).toEqual(['batch ACTIVE', 'web ACTIVE']);
    expect(await edges()).toEqual(['h2 -> batch', 'h2 -> web']);
    expect((await named('web')).parent).toMatchObject({ displayName: 'h2', via: 'HOSTS_CONTAINER' });

    const web = await attributes((await named('web')).id);
    const id = (await podman('inspect --format "{{.Id}}" web')).trim();
    expect(web).toMatchObject({ runtime: 'podman', image: IMAGE, state: 'running', labels: 'app=web,tier=frontend', instanceId: id, containerId: id.slice(0, 12), pid: expect.any(Number) });
    expect(await attributes((await named('batch')).id)).toMatchObject({ state: 'created', labels: 'app=batch', image: IMAGE });
    expect((await attributes((await named('batch')).id)).pid).toBeUndefined();
    // The container's main process is one of the host's processes that SSH read, by its pid.
    const host = ((await api.get('/api/v1/assets?category=HOST&size=100')).body.data as AssetRow[]).filter((h) => (h.ipAddresses as string[]).includes(h2.address));
    expect(host.map((h) => h.assetType)).not.toContain('SERVER');
    expect(host).toHaveLength(1);
    expect(await attributes(host[0]?.id as string)).toMatchObject({ containerRuntime: expect.stringMatching(/^podman \d/), containerCount: 2 });
    const processes = await service.running.container.db('running_processes').where({ asset_id: host[0]?.id, pid: web.pid }).select('command_line');
    expect(processes.map((r: { command_line: string }) => r.command_line)).toEqual([expect.stringContaining('httpd -f -p 127.0.0.1:18080')]);

    // The container's own processes: its main process (sh) and what it started (httpd), by their host pids, the container their parent.
    const own = await processesOf((await named('web')).id);
    expect(own).toEqual([
      expect.objectContaining({ name: 'sh', pid: web.pid, command_line: '/bin/sh -c /bin/httpd -f -p 127.0.0.1:18080 & wait', source_connector: 'CONTAINERS', parent: expect.objectContaining({ displayName: 'web', via: 'RUNS_ON' }) }),
      expect.objectContaining({ name: 'httpd', ppid: web.pid, command_line: '/bin/httpd -f -p 127.0.0.1:18080', source_connector: 'CONTAINERS' }),
    ]);
    // The same processes are the host's too, as SSH listed them.
    const hostPids = await service.running.container.db('running_processes').where({ asset_id: host[0]?.id }).pluck('pid');
    expect(hostPids).toEqual(expect.arrayContaining(own.map((p) => p.pid)));
    expect(await processesOf((await named('batch')).id)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const state = async () => ({
      containers: (await containers()).map(({ lastSeenAt: _l, lastScanAt: _s, updatedAt: _u, ...a }) => a).sort((a, b) => a.id.localeCompare(b.id)),
      edges: await edges(),
    });
    const before = await state();
    expect((await scan()).status).toBe('COMPLETED');
    expect(await state()).toEqual(before);
  }, TEST_TIMEOUT_MS);

  it('shows a container stopped, without its processes', async () => {
    await podman('stop --time 1 web');
    expect((await scan()).status).toBe('COMPLETED');
    expect(await attributes((await named('web')).id)).toMatchObject({ state: 'exited' });
    expect(await processesOf((await named('web')).id)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('retires a container removed only after a complete read; a host where podman is gone reads nothing', async () => {
    await podman('rm batch');
    // podman (and a docker client, if this machine has one) are gone from h2, in its mount namespace
    // only: the target named h2, so that is an error, and nothing is retired.
    const runtimes = (await h2.exec('ls -1 /usr/bin/podman /usr/bin/docker /usr/local/bin/podman /usr/local/bin/docker 2>/dev/null; true')).split('\n').filter(Boolean);
    for (const program of runtimes) await h2.exec(`mount --bind /dev/null ${program}`);
    const failed = await scan();
    expect(failed.status).toBe('COMPLETED_WITH_ERRORS');
    expect(failed.errors).toEqual([expect.objectContaining({ address: h2.address, method: 'CONTAINERS', code: 'CONTAINER_RUNTIME_NOT_INSTALLED' })]);
    expect((await named('batch')).status).toBe('ACTIVE');

    for (const program of runtimes) await h2.exec(`umount ${program}`);
    expect((await scan()).status).toBe('COMPLETED');
    expect((await named('batch')).status).toBe('INACTIVE');
    expect((await named('web')).status).toBe('ACTIVE');
    expect(await edges()).toEqual(['h2 -> web']);
  }, TEST_TIMEOUT_MS);
});
