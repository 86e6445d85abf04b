// The CONTAINERS connector's mapping of a real `podman inspect` (test/fixtures/containers, README
// there), as the script marks it: containers, their host, state, labels, ports, a cut inspect, and
// the containers' processes picked from the host's process table.
import { readFileSync } from 'node:fs';
import { toContainerEstate } from '../../src/features/discovery/connectors/containers/container-estate.js';

const INSPECT = readFileSync(new URL('../fixtures/containers/podman-4.3-inspect.json', import.meta.url), 'utf8');
const MARK = '@@0123456789ab';
// The host's processes as the script's ps parts print them (the SSH connector's ps): web's main
// process (14354, under conmon) with a child and a grandchild, and processes of the host itself.
const PROCESSES = [
  '@@self', '20001', '@@ps',
  '    1     0 root                             Ss     9000  0.0 -                                                                                                    /sbin/init',
  '14351     1 root                             Ssl    2100  0.0 -                                                                                                    /usr/bin/conmon --api-version 1 -c 4281445e3400',
  '14354 14351 root                             Ss     1200  0.0 -                                                                                                    /bin/sh -c /bin/httpd -f -p 127.0.0.1:18080 & wait',
  '14360 14354 root                             S      1100  0.1 -                                                                                                    /bin/httpd -f -p 127.0.0.1:18080',
  '14371 14360 www-data                         S       900  0.0 -                                                                                                    /bin/httpd -f -p 127.0.0.1:18080',
  '  812     1 root                             Ss     5200  0.0 ssh.service                                                                                          sshd: /usr/sbin/sshd -D',
].join('\n');
const NAMES = ['@@comm', '    1 init', '14351 conmon', '14354 sh', '14360 httpd', '14371 httpd', '  812 sshd'].join('\n');
const output = (inspect: string, end = true, processes = true) =>
  [
    `${MARK}runtime`, 'podman version 4.3.1', `${MARK}hostname`, 'node-7.example.com', `${MARK}inspect`, inspect,
    ...(processes ? [`${MARK}processes`, PROCESSES, `${MARK}names`, NAMES] : []), ...(end ? [`${MARK}end`] : []),
  ].join('\n');
const read = (inspect: string, end = true, processes = true) => toContainerEstate(output(inspect, end, processes), MARK, '10.0.0.7', 'CONTAINERS:10.0.0.7:22');

describe('the containers of a host from podman inspect', () => {
  it('makes each container a CONTAINER its host HOSTS_CONTAINER, with image, state, labels and main pid', () => {
    const estate = read(INSPECT);
    expect(estate.complete).toBe(true);
    const [host, ...containers] = estate.assets;
    expect(host).toMatchObject({ key: 'host', assetType: 'SERVER', displayName: 'node-7.example.com', hostname: 'node-7', ipAddresses: ['10.0.0.7'], attributes: { containerRuntime: 'podman 4.3.1', containerCount: 2 } });
    const byName = new Map(containers.map((c) => [c.displayName, c]));
    expect(byName.get('web')?.attributes).toMatchObject({ runtime: 'podman', image: 'localhost/busybox:lab', state: 'running', labels: 'app=web,tier=frontend', pid: 14354 });
    expect(byName.get('batch')?.attributes).toMatchObject({ state: 'created', labels: 'app=batch' });
    expect(byName.get('batch')?.attributes.pid).toBeUndefined();
    expect(byName.get('batch')?.attributes.startedAt).toBeUndefined();
    const ids = (JSON.parse(INSPECT) as { Id: string; Name: string }[]).map((c) => c.Id);
    expect(containers.map((c) => c.attributes.instanceId).sort()).toEqual([...ids].sort());
    expect(estate.relationships).toEqual(containers.map((c) => ({ type: 'HOSTS_CONTAINER', source: 'host', target: c.key })));
    // Addresses and MACs identify no container: they are attributes only.
    for (const c of containers) expect([c.macAddresses, c.ipAddresses]).toEqual([[], []]);
  });

  it('lists published and unpublished ports as Docker documents them', () => {
    const containers = JSON.parse(INSPECT) as { NetworkSettings: Record<string, unknown> }[];
    (containers[0] as { NetworkSettings: Record<string, unknown> }).NetworkSettings.Ports = { '80/tcp': [{ HostIp: '0.0.0.0', HostPort: '8080' }, { HostIp: '::', HostPort: '8080' }], '443/tcp': null };
    const ports = read(JSON.stringify(containers)).assets.flatMap((a) => (a.attributes.ports ? [a.attributes.ports] : []));
    expect(ports).toEqual(['0.0.0.0:8080->80/tcp,443/tcp,:::8080->80/tcp']);
  });

  it('gives each running container its main process and that one\'s descendants, by host pid; none to a container not running', () => {
    const estate = read(INSPECT);
    const web = estate.assets.find((a) => a.displayName === 'web')?.key;
    expect(estate.processes?.map((p) => [p.asset === web ? 'web' : p.asset, p.pid, p.ppid, p.processName, p.username, p.sourceConnector])).toEqual([
      ['web', 14354, 14351, 'sh', 'root', 'CONTAINERS'],
      ['web', 14360, 14354, 'httpd', 'root', 'CONTAINERS'],
      ['web', 14371, 14360, 'httpd', 'www-data', 'CONTAINERS'],
    ]);
    expect(estate.processes?.[0]).toMatchObject({ commandLine: '/bin/sh -c /bin/httpd -f -p 127.0.0.1:18080 & wait', state: 'Ss', memoryKb: 1200, cpuPercent: 0 });
  });

  it('reads no processes (and so replaces none) when the ps part is missing, failed, or the read is incomplete', () => {
    expect(read(INSPECT, true, false).processes).toBeUndefined();
    expect(toContainerEstate(output(INSPECT).replace(`${MARK}names`, `${MARK}unread\n${MARK}names`), MARK, '10.0.0.7', 'CONTAINERS:10.0.0.7:22').processes).toBeUndefined();
    expect(read(INSPECT, false).processes).toBeUndefined();
  });

  it('is incomplete, with nothing read, when the inspect was cut short or the script did not end', () => {
    const cut = read(INSPECT.slice(0, INSPECT.length / 2));
    expect(cut.complete).toBe(false);
    expect(cut.assets.map((a) => a.key)).toEqual(['host']);
    expect(read(INSPECT, false).complete).toBe(false);
  });
});
