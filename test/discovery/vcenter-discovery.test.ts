// Discovery of a vCenter (method VCENTER) against govmomi's simulator, a real implementation of the
// vSphere Web Services API (tools/vcsim), through the service's API: the estate as sets of tuples
// with the spec's parent rules, a rescan that changes only seen-times, a VM powered off and a VM
// removed (retired only after a complete read), wrong credentials, an unreachable vCenter, and the
// certificate checked and pinned.
import { Vim25Session, moRef, text, asRef } from '../../src/features/discovery/connectors/vcenter/vim25-session.js';
import type { ApiClient } from '../support/api-client.js';
import { scanToEnd } from '../support/discovery-scans.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { startVcsim, VCSIM_BUILD_TIMEOUT_MS, vcsimUnavailable, type Vcsim } from '../../src/tools/vcsim/vcsim.js';

const unavailable = vcsimUnavailable();
if (unavailable) process.stderr.write(`\nvCenter discovery tests not run: ${unavailable}.\n`);
const describeVcsim = unavailable ? describe.skip : describe;

interface AssetRow {
  id: string;
  displayName: string;
  assetType: string;
  status: string;
  serialNumber?: string | null;
  customAttributes: Record<string, unknown>;
  parent?: { id: string; displayName: string; assetType: string; via: string };
  [field: string]: unknown;
}

interface RelationshipRow {
  relationshipType: string;
  sourceDisplayName: string;
  targetDisplayName: string;
  [field: string]: unknown;
}

const PASSWORD = 'vc-secret';
const USER = 'inventory';
// Generous: a scan loads the whole estate, and the machine may be busy.
const TEST_TIMEOUT_MS = 300_000;
const VIRTUAL_TYPES = 'VIRTUALIZATION_MANAGER,CLUSTER,HYPERVISOR,VM,DATASTORE,VSWITCH,PORT_GROUP,NETWORK';

describeVcsim('discovery of a vCenter (govmomi simulator)', () => {
  let vc: Vcsim;
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let credentialId: string;
  let targetId: string;

  beforeAll(async () => {
    vc = await startVcsim({ username: USER, password: PASSWORD });
    // A small page: the default estate takes several PropertyCollector round trips.
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryVcenterPageSize: 10, discoveryConnectTimeoutMs: 2000 });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
    const credential = await api.post('/api/v1/credentials', { name: 'vcenter reader', kind: 'HTTP_BASIC', matchPatterns: [], settings: { username: USER }, secrets: { password: PASSWORD } });
    expect(credential.body).toMatchObject({ data: { kind: 'HTTP_BASIC' } });
    credentialId = credential.body.data.id;
    const target = await api.post('/api/v1/discovery/targets', {
      name: 'vcenter', addresses: ['127.0.0.1'], methods: ['SWEEP', 'VCENTER'], credentialIds: [credentialId],
      ports: { VCENTER: vc.port }, settings: { VCENTER: { caCertificate: vc.certificate } },
    });
    expect(target.status).toBe(201);
    targetId = target.body.data.id;
  }, VCSIM_BUILD_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await service?.stop();
    await vc?.stop();
  });

  const scan = (id: string) => scanToEnd(api, id);
  const assets = async (): Promise<AssetRow[]> => {
    const res = await api.get(`/api/v1/assets?type=${VIRTUAL_TYPES}&size=1000`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const detail = async (id: string): Promise<AssetRow> => {
    const res = await api.get(`/api/v1/assets/${id}`);
    expect(res.status).toBe(200);
    // The API serves custom attributes as a JSON text.
    return { ...res.body.data, customAttributes: JSON.parse(res.body.data.customAttributes) };
  };
  const relationships = async (): Promise<RelationshipRow[]> => {
    const res = await api.get('/api/v1/relationships?type=MANAGED_BY,CONTAINS,HOSTS_VM,USES_DATASTORE&size=1000');
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const tuples = (rows: RelationshipRow[]) => new Set(rows.map((r) => `${r.relationshipType} ${r.sourceDisplayName} -> ${r.targetDisplayName}`));
  const sorted = <T>(values: Iterable<T>) => [...values].sort();

  /** A session of our own to change the simulator through the same vim25 API. */
  const withSimulator = async <T>(work: (session: Vim25Session, vm: (name: string) => Promise<{ type: string; value: string }>) => Promise<T>): Promise<T> => {
    const pins = { pinOrCompare: async () => undefined };
    const session = new Vim25Session({ host: '127.0.0.1', port: vc.port, path: '/sdk', verifyCertificate: false, connectTimeoutMs: 5000, deadline: Date.now() + 60_000 }, pins);
    await session.verify();
    const content = (await session.call('RetrieveServiceContent', moRef('_this', { type: 'ServiceInstance', value: 'ServiceInstance' }))).returnval as Record<string, unknown>;
    const ref = (name: string) => asRef(content[name]) as { type: string; value: string };
    await session.call('Login', `${moRef('_this', ref('sessionManager'))}<userName>${USER}</userName><password>${PASSWORD}</password>`);
    const vm = async (name: string) => {
      let found: { type: string; value: string } | undefined;
      await session.retrieveAll(ref('rootFolder'), ref('propertyCollector'), ref('viewManager'), { VirtualMachine: ['name'] }, 100, (page) => {
        found ??= page.find((o) => text(o.props.get('name')) === name)?.obj;
      });
      if (!found) throw new Error(`no VM ${name}`);
      return found;
    };
    try {
      return await work(session, vm);
    } finally {
      await session.logout(ref('sessionManager'));
    }
  };
  /** Runs a vim25 task method and waits for the task to end. */
  const runTask = (method: string, vmName: string) =>
    withSimulator(async (session, vm) => {
      const task = asRef((await session.call(method, moRef('_this', await vm(vmName)))).returnval) as { type: string; value: string };
      const taskState = async () => {
        const r = await session.call('RetrievePropertiesEx', `${moRef('_this', { type: 'PropertyCollector', value: 'propertyCollector' })}<specSet><propSet><type>Task</type><pathSet>info.state</pathSet></propSet><objectSet>${moRef('obj', task)}</objectSet></specSet><options></options>`);
        const objects = (r.returnval as Record<string, unknown> | undefined)?.objects as Record<string, unknown>[] | undefined;
        return text((objects?.[0]?.propSet as Record<string, unknown>[] | undefined)?.[0]?.val);
      };
      const state = await eventually(taskState, (s) => s === 'success' || s === 'error', `${method} ending`, 40_000);
      if (state === 'error') throw new Error(`${method} failed`);
    });

  it("gives exactly the simulator's hosts, VMs, clusters, datastores and networks, with the spec's parent rules", async () => {
    const run = await scan(targetId);
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    const { estate } = vc;
    const rows = await assets();
    // The manager is named as the sweep found the address (its reverse name), and known by it.
    const manager = rows.find((a) => a.assetType === 'VIRTUALIZATION_MANAGER') as AssetRow;
    expect((await detail(manager.id)).ipAddresses).toEqual(['127.0.0.1']);
    const expected = [
      `VIRTUALIZATION_MANAGER ${manager.displayName}`,
      ...estate.clusters.map((c) => `CLUSTER ${c}`),
      ...estate.hosts.map((h) => `HYPERVISOR ${h.name}`),
      ...estate.vms.map((v) => `VM ${v.name}`),
      ...estate.datastores.map((d) => `DATASTORE ${d}`),
      ...estate.networks.map((n) => `NETWORK ${n}`),
      ...estate.portgroups.map((g) => `PORT_GROUP ${g.name}`),
      ...estate.switches.map((s) => `VSWITCH ${s.name}`),
      ...estate.hosts.flatMap((h) => h.vswitches.map((s) => `VSWITCH ${s}`)),
    ];
    expect(sorted(rows.map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted(expected));
    // The default estate: 4 hosts (3 in a cluster), 4 VMs, 1 datastore, 1 network, 2 port groups on 1 distributed switch.
    expect([estate.hosts.length, estate.vms.length, estate.clusters.length, estate.datastores.length]).toEqual([4, 4, 1, 1]);

    const byName = new Map(rows.map((a) => [`${a.assetType} ${a.displayName}`, a]));
    // Parents (spec 2.4): a hypervisor's is the manager, a VM's its host; storage and networks hang from a host that has them.
    for (const h of estate.hosts) expect(byName.get(`HYPERVISOR ${h.name}`)?.parent).toMatchObject({ assetType: 'VIRTUALIZATION_MANAGER', displayName: manager.displayName, via: 'MANAGED_BY' });
    for (const v of estate.vms) expect(byName.get(`VM ${v.name}`)?.parent).toMatchObject({ assetType: 'HYPERVISOR', displayName: v.host, via: 'HOSTS_VM' });
    for (const d of estate.datastores) {
      const parent = byName.get(`DATASTORE ${d}`)?.parent;
      expect(parent).toMatchObject({ assetType: 'HYPERVISOR', via: 'USES_DATASTORE' });
      expect(estate.hosts.filter((h) => h.datastores.includes(d)).map((h) => h.name)).toContain(parent?.displayName);
    }
    for (const [type, name] of [...estate.networks.map((n) => ['NETWORK', n]), ...estate.portgroups.map((g) => ['PORT_GROUP', g.name])] as [string, string][]) {
      const parent = byName.get(`${type} ${name}`)?.parent;
      expect(parent).toMatchObject({ assetType: 'HYPERVISOR', via: 'CONTAINS' });
      expect(estate.hosts.filter((h) => h.networks.includes(name)).map((h) => h.name)).toContain(parent?.displayName);
    }
    for (const root of [`VIRTUALIZATION_MANAGER ${manager.displayName}`, ...estate.clusters.map((c) => `CLUSTER ${c}`)]) expect(byName.get(root)?.parent).toBeUndefined();

    // The VM facts: power state, guest OS, CPU, memory, instance UUID, and the BIOS serial its guest shows.
    for (const v of estate.vms) {
      const row = await detail((byName.get(`VM ${v.name}`) as AssetRow).id);
      expect(row.customAttributes).toMatchObject({ powerState: v.powerState, guestOs: expect.any(String), cpuCount: expect.any(Number), memoryMb: expect.any(Number), biosUuid: v.uuid });
      const hex = v.uuid.replace(/-/g, '').match(/../g) as string[];
      expect(row.serialNumber).toBe(`VMware-${hex.slice(0, 8).join(' ')}-${hex.slice(8).join(' ')}`);
    }

    const edges = [
      ...estate.hosts.map((h) => `MANAGED_BY ${h.name} -> ${manager.displayName}`),
      ...estate.clusters.map((c) => `MANAGED_BY ${c} -> ${manager.displayName}`),
      ...estate.hosts.filter((h) => h.cluster).map((h) => `CONTAINS ${h.cluster} -> ${h.name}`),
      ...estate.vms.map((v) => `HOSTS_VM ${v.host} -> ${v.name}`),
      ...estate.hosts.flatMap((h) => h.datastores.map((d) => `USES_DATASTORE ${h.name} -> ${d}`)),
      ...estate.hosts.flatMap((h) => h.networks.map((n) => `CONTAINS ${h.name} -> ${n}`)),
      ...estate.hosts.flatMap((h) => h.vswitches.map((s) => `CONTAINS ${h.name} -> ${s}`)),
      ...estate.switches.flatMap((s) => s.hosts.map((h) => `CONTAINS ${h} -> ${s.name}`)),
      ...estate.portgroups.map((g) => `CONTAINS ${g.switch} -> ${g.name}`),
    ];
    expect(sorted(tuples(await relationships()))).toEqual(sorted(new Set(edges)));

    const host = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(host).toEqual([expect.objectContaining({ address: '127.0.0.1', methods: ['VCENTER'], outcome: 'SUCCESS', assetId: manager.id })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const strip = <T extends Record<string, unknown>>(rows: T[]) =>
      rows.map(({ lastSeenAt: _seen, lastScanAt: _scanned, ...rest }) => rest).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const [beforeAssets, beforeEdges] = [strip(await assets()), strip(await relationships())];
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED');
    const afterAssets = await assets();
    expect(strip(afterAssets)).toEqual(beforeAssets);
    expect(strip(await relationships())).toEqual(beforeEdges);
    expect(afterAssets.every((a) => a.lastSeenAt === afterAssets[0]?.lastSeenAt)).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('shows a VM powered off in the simulator', async () => {
    const vm = vc.estate.vms[0]?.name as string;
    await runTask('PowerOffVM_Task', vm);
    expect((await scan(targetId)).status).toBe('COMPLETED');
    const rows = await assets();
    const powerStates = await Promise.all(rows.filter((a) => a.assetType === 'VM').map(async (a) => [a.displayName, (await detail(a.id)).customAttributes.powerState]));
    expect(Object.fromEntries(powerStates)).toEqual(Object.fromEntries(vc.estate.vms.map((v) => [v.name, v.name === vm ? 'poweredOff' : 'poweredOn'])));
  }, TEST_TIMEOUT_MS);

  it('retires a VM removed from the simulator only after a complete read', async () => {
    const removed = vc.estate.vms[0]?.name as string;
    await runTask('Destroy_Task', removed);
    // The vCenter stops answering in the middle of the read: what was read is loaded, nothing retired.
    await vc.failNextContinue();
    const partial = await scan(targetId);
    expect(partial.status).toBe('COMPLETED_WITH_ERRORS');
    const errors = (await api.get(`/api/v1/discovery/runs/${partial.id}`)).body.data.errors;
    expect(errors).toEqual([expect.objectContaining({ method: 'VCENTER', stage: 'collect', code: 'VCENTER_API_ERROR' })]);
    expect((await assets()).find((a) => a.displayName === removed)?.status).toBe('ACTIVE');
    expect(tuples(await relationships())).toContain(`HOSTS_VM ${vc.estate.vms[0]?.host} -> ${removed}`);

    const complete = await scan(targetId);
    expect(complete.status).toBe('COMPLETED');
    expect((await assets()).find((a) => a.displayName === removed)?.status).toBe('INACTIVE');
    expect(tuples(await relationships())).not.toContain(`HOSTS_VM ${vc.estate.vms[0]?.host} -> ${removed}`);
    expect((await assets()).filter((a) => a.assetType === 'VM' && a.status === 'ACTIVE').map((a) => a.displayName).sort()).toEqual(vc.estate.vms.slice(1).map((v) => v.name).sort());
  }, TEST_TIMEOUT_MS);

  it('fails with VCENTER_AUTH_FAILED on wrong credentials and with CONNECTION_REFUSED when the vCenter is unreachable', async () => {
    const wrong = (await api.post('/api/v1/credentials', { name: 'vcenter wrong', kind: 'HTTP_BASIC', matchPatterns: [], settings: { username: USER }, secrets: { password: 'not-it' } })).body.data.id;
    const badTarget = (await api.post('/api/v1/discovery/targets', { name: 'vcenter wrong password', addresses: ['127.0.0.1'], methods: ['VCENTER'], credentialIds: [wrong], ports: { VCENTER: vc.port }, settings: { VCENTER: { caCertificate: vc.certificate } } })).body.data.id;
    const refused = await scan(badTarget);
    expect(refused.status).toBe('COMPLETED_WITH_ERRORS');
    expect((await api.get(`/api/v1/discovery/runs/${refused.id}`)).body.data.errors).toEqual([expect.objectContaining({ address: '127.0.0.1', method: 'VCENTER', stage: 'authenticate', code: 'VCENTER_AUTH_FAILED' })]);

    const closed = await freePort();
    const downTarget = (await api.post('/api/v1/discovery/targets', { name: 'vcenter down', addresses: ['127.0.0.1'], methods: ['SWEEP', 'VCENTER'], credentialIds: [credentialId], ports: { VCENTER: closed } })).body.data.id;
    const down = await scan(downTarget);
    expect(down.status).toBe('COMPLETED_WITH_ERRORS');
    expect((await api.get(`/api/v1/discovery/runs/${down.id}`)).body.data.errors).toEqual([expect.objectContaining({ method: 'VCENTER', code: 'CONNECTION_REFUSED' })]);
  }, TEST_TIMEOUT_MS);

  it('refuses an untrusted certificate, pins the certificate at first contact, and refuses a changed one until an administrator accepts it', async () => {
    const untrusted = (await api.post('/api/v1/discovery/targets', { name: 'vcenter untrusted', addresses: ['127.0.0.1'], methods: ['VCENTER'], credentialIds: [credentialId], ports: { VCENTER: vc.port } })).body.data.id;
    const run = await scan(untrusted);
    expect((await api.get(`/api/v1/discovery/runs/${run.id}`)).body.data.errors).toEqual([expect.objectContaining({ stage: 'verify-certificate', code: 'CERTIFICATE_UNTRUSTED' })]);

    const port = await freePort();
    let second = await startVcsim({ port, username: USER, password: PASSWORD });
    try {
      const pinned = (await api.post('/api/v1/discovery/targets', { name: 'vcenter pinned', addresses: ['127.0.0.1'], methods: ['VCENTER'], credentialIds: [credentialId], ports: { VCENTER: port }, settings: { VCENTER: { verifyCertificate: false } } })).body.data.id;
      expect((await scan(pinned)).status).toBe('COMPLETED');
      const pin = await service.running.container.db('tls_certificate_pins').where({ address: '127.0.0.1', port }).first();
      expect(pin.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      // The same server again with a new certificate (a new key): refused, nothing logged in.
      await second.stop();
      second = await startVcsim({ port, username: USER, password: PASSWORD });
      const changed = await scan(pinned);
      expect(changed.status).toBe('COMPLETED_WITH_ERRORS');
      const [error] = (await api.get(`/api/v1/discovery/runs/${changed.id}`)).body.data.errors;
      expect(error).toEqual(expect.objectContaining({ stage: 'verify-certificate', code: 'CERTIFICATE_CHANGED' }));
      // Accepted by an administrator (the same mechanism as a changed SSH host key), the new certificate is the pin.
      const presented = /is now ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})/.exec(error.message)?.[1] as string;
      const accepted = await api.post('/api/v1/discovery/pins/accept', { kind: 'TLS_CERTIFICATE', address: '127.0.0.1', port, fingerprint: presented });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data).toMatchObject({ kind: 'TLS_CERTIFICATE', fingerprint: presented, presented: null });
      expect((await scan(pinned)).status).toBe('COMPLETED');
    } finally {
      await second.stop();
    }
  }, TEST_TIMEOUT_MS);
});
