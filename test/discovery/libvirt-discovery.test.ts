// Discovery of a libvirt host (method LIBVIRT) through the service's API: read-only virsh over the
// real SSH path on a lab host (src/tools/lab/lab-network.ts), on libvirt's own test driver with a
// node file of ours (test/fixtures/libvirt/hypervisor.xml) as the target's connection URI. The
// host and its domains, pools and networks as sets of tuples with their parents, a rescan that
// changes only seen-times, a domain shut off, a domain removed (retired only after a complete
// read), a host without virsh, and a URI that is no URI.
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApiClient } from '../support/api-client.js';
import { attributesOf, createTarget, describeInLab, scanToEnd, startLabScanService, type AssetRow } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import { LAB_START_TIMEOUT_MS, startTestNetwork, type TestNetwork } from '../../src/tools/lab/lab-network.js';

const describePeers = await describeInLab('libvirt discovery tests against a namespace host');

const FIXTURE = new URL('../fixtures/libvirt/hypervisor.xml', import.meta.url);
const VIRTUAL_TYPES = 'HYPERVISOR,VM,STORAGE_POOL,NETWORK';
const TEST_TIMEOUT_MS = 180_000;

describePeers('discovery of a libvirt host over SSH (libvirt test driver on a namespace host)', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let dir: string;
  let nodeFile: string;
  let targetId: string;
  let h1: string;

  beforeAll(async () => {
    network = await startTestNetwork();
    h1 = network.hosts.h1.address;
    // The scan account reads the node file: a folder of its own, readable by all.
    dir = await mkdtemp(path.join(os.tmpdir(), 'inventory-libvirt-'));
    await chmod(dir, 0o755);
    nodeFile = path.join(dir, 'hypervisor.xml');
    await copyFile(FIXTURE, nodeFile);
    await chmod(nodeFile, 0o644);
    ({ service, api } = await startLabScanService());
    targetId = await createTarget(api, { name: 'kvm', addresses: [h1], methods: ['SWEEP', 'SSH', 'LIBVIRT'], settings: { LIBVIRT: { uri: `test://${nodeFile}` } } });
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = async (runId: string) => (await api.get(`/api/v1/discovery/runs/${runId}`)).body.data.errors as { address: string; method: string; code: string }[];
  const assets = async (): Promise<AssetRow[]> => {
    const res = await api.get(`/api/v1/assets?type=${VIRTUAL_TYPES}&size=1000`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const attributes = (id: string) => attributesOf(api, id);
  const named = async (type: string, name: string) => (await assets()).find((a) => a.assetType === type && a.displayName === name) as AssetRow;
  const edges = async () => {
    const res = await api.get('/api/v1/relationships?type=CONTAINS,HOSTS_VM,USES_DATASTORE&size=1000');
    expect(res.status).toBe(200);
    return res.body.data.map((r: { relationshipType: string; sourceDisplayName: string; targetDisplayName: string }) => `${r.relationshipType} ${r.sourceDisplayName} -> ${r.targetDisplayName}`).sort();
  };
  const editNode = async (edit: (xml: string) => string) => writeFile(nodeFile, edit(await readFile(nodeFile, 'utf8')));

  it('makes the host a HYPERVISOR (one asset with what SSH saw of it: its OS) hosting its domains, with its pools and networks', async () => {
    const run = await scan(targetId);
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    const rows = await assets();
    expect(rows.map((a) => `${a.assetType} ${a.displayName}`).sort()).toEqual(['HYPERVISOR h1', 'NETWORK lab-isolated', 'NETWORK lab-nat', 'STORAGE_POOL images', 'VM db-1', 'VM web-1']);
    expect(await edges()).toEqual(['CONTAINS h1 -> lab-isolated', 'CONTAINS h1 -> lab-nat', 'HOSTS_VM h1 -> db-1', 'HOSTS_VM h1 -> web-1', 'USES_DATASTORE h1 -> images']);
    const byName = new Map(rows.map((a) => [a.displayName, a]));
    expect(byName.get('h1')?.parent).toBeUndefined();
    for (const [name, via] of [['web-1', 'HOSTS_VM'], ['db-1', 'HOSTS_VM'], ['images', 'USES_DATASTORE'], ['lab-nat', 'CONTAINS'], ['lab-isolated', 'CONTAINS']]) {
      expect(byName.get(name as string)?.parent).toMatchObject({ assetType: 'HYPERVISOR', displayName: 'h1', via });
    }

    // The hypervisor is the host SSH inventoried: one asset at the address, with SSH's facts and libvirt's.
    const hosts = (await api.get('/api/v1/assets?category=HOST&size=100')).body.data as AssetRow[];
    expect(hosts.filter((h) => (h.ipAddresses as string[]).includes(h1)).map((h) => h.assetType)).toEqual(['HYPERVISOR']);
    const host = byName.get('h1') as AssetRow;
    expect(await attributes(host.id)).toMatchObject({ hypervisorProduct: 'TEST 0.0.2 (libvirt)', libvirtVersion: expect.stringMatching(/^\d+\.\d+/), libvirtUri: `test://${nodeFile}`, vmCount: 2, osName: expect.any(String) });
    const ran = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(ran).toEqual([expect.objectContaining({ address: h1, methods: ['SSH', 'LIBVIRT'], outcome: 'SUCCESS', assetId: host.id })]);

    const web = await attributes((byName.get('web-1') as AssetRow).id);
    expect(web).toMatchObject({ powerState: 'poweredOn', libvirtState: 'running', cpuCount: 2, memoryMb: 2048, domainType: 'kvm', instanceUuid: '4a9b3f52-1c6e-4d0a-9e1f-6b2d3c4e5f61', networks: 'lab-nat', storagePools: 'images' });
    expect((await api.get(`/api/v1/assets/${(byName.get('web-1') as AssetRow).id}`)).body.data.macAddresses).toEqual(['52:54:00:6b:01:01']);
    expect(await attributes((byName.get('db-1') as AssetRow).id)).toMatchObject({ cpuCount: 4, memoryMb: 4096, bridges: 'br0', storagePools: 'images' });
    expect(await attributes((byName.get('images') as AssetRow).id)).toMatchObject({ poolType: 'dir', capacityGb: 100, path: '/var/lib/libvirt/images', volumeCount: 2, active: true });
    expect(await attributes((byName.get('lab-nat') as AssetRow).id)).toMatchObject({ cidr: '192.168.150.0/24', forwardMode: 'nat', bridge: 'virbr1' });
    expect(await attributes((byName.get('lab-isolated') as AssetRow).id)).toMatchObject({ cidr: '10.200.0.0/16', forwardMode: 'isolated' });
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const state = async () => ({
      assets: (await assets()).map(({ lastSeenAt: _l, lastScanAt: _s, updatedAt: _u, ...a }) => a).sort((a, b) => a.id.localeCompare(b.id)),
      edges: await edges(),
    });
    const before = await state();
    expect((await scan(targetId)).status).toBe('COMPLETED');
    expect(await state()).toEqual(before);
  }, TEST_TIMEOUT_MS);

  it('shows a domain shut off', async () => {
    await editNode((xml) => xml.replace('<!--runstate-->', '<test:runstate>5</test:runstate>'));
    expect((await scan(targetId)).status).toBe('COMPLETED');
    expect(await attributes((await named('VM', 'db-1')).id)).toMatchObject({ powerState: 'poweredOff', libvirtState: 'shut off' });
  }, TEST_TIMEOUT_MS);

  it('retires a domain removed from the host only after a complete read', async () => {
    const original = await readFile(nodeFile, 'utf8');
    const withoutWeb = original.replace(/<domain type='kvm'[^]*?<name>web-1<\/name>[^]*?<\/domain>/, '');
    expect(withoutWeb).not.toContain('<name>web-1</name>');
    // A node file that does not parse: virsh cannot connect, the read gives nothing, nothing is retired.
    await writeFile(nodeFile, withoutWeb.replace('<node>', '<node'));
    const failed = await scan(targetId);
    expect(failed.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(failed.id)).toEqual([expect.objectContaining({ address: h1, method: 'LIBVIRT', code: 'LIBVIRT_UNREACHABLE' })]);
    expect((await named('VM', 'web-1')).status).toBe('ACTIVE');

    await writeFile(nodeFile, withoutWeb);
    expect((await scan(targetId)).status).toBe('COMPLETED');
    expect((await named('VM', 'web-1')).status).toBe('INACTIVE');
    expect(await edges()).not.toContain('HOSTS_VM h1 -> web-1');
    expect((await named('VM', 'db-1')).status).toBe('ACTIVE');
  }, TEST_TIMEOUT_MS);

  it('records LIBVIRT_NOT_INSTALLED for a host named on its own that has no virsh, and keeps it the host SSH saw', async () => {
    // In h2's own mount namespace only: virsh is no program there.
    await network.hosts.h2.exec('mount --bind /dev/null /usr/bin/virsh');
    const h2 = network.hosts.h2.address;
    const run = await scan(await createTarget(api, { name: 'not kvm', addresses: [h2], methods: ['SWEEP', 'SSH', 'LIBVIRT'] }));
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([expect.objectContaining({ address: h2, method: 'LIBVIRT', code: 'LIBVIRT_NOT_INSTALLED' })]);
    const hosts = (await api.get('/api/v1/assets?category=HOST&size=100')).body.data as AssetRow[];
    expect(hosts.find((h) => (h.ipAddresses as string[]).includes(h2))?.assetType).not.toBe('HYPERVISOR');
  }, TEST_TIMEOUT_MS);

  it('refuses a connection URI that is no URI (a shell command), and changes nothing', async () => {
    const res = await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { LIBVIRT: { uri: "qemu:///system'; touch /tmp/x; '" } } });
    expect(res.status).toBe(400);
    expect((await api.get(`/api/v1/discovery/targets/${targetId}`)).body.data.settings).toEqual({ LIBVIRT: { uri: `test://${nodeFile}` } });
  });
});
