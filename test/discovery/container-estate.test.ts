// The CONTAINERS connector's mapping of a real `podman inspect` (test/fixtures/containers, README
// there), as the script marks it: containers, their host, state, labels, ports, and a cut inspect.
import { readFileSync } from 'node:fs';
import { toContainerEstate } from '../../src/features/discovery/connectors/containers/container-estate.js';

const INSPECT = readFileSync(new URL('../fixtures/containers/podman-4.3-inspect.json', import.meta.url), 'utf8');
const MARK = '@@0123456789ab';
const output = (inspect: string, end = true) => [`${MARK}runtime`, 'podman version 4.3.1', `${MARK}hostname`, 'node-7.example.com', `${MARK}inspect`, inspect, ...(end ? [`${MARK}end`] : [])].join('\n');
const read = (inspect: string, end = true) => toContainerEstate(output(inspect, end), MARK, '10.0.0.7', 'CONTAINERS:10.0.0.7:22');

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

  it('is incomplete, with nothing read, when the inspect was cut short or the script did not end', () => {
    const cut = read(INSPECT.slice(0, INSPECT.length / 2));
    expect(cut.complete).toBe(false);
    expect(cut.assets.map((a) => a.key)).toEqual(['host']);
    expect(read(INSPECT, false).complete).toBe(false);
  });
});
