// Discovery of DHCP clients (method DHCP) through the service's API, against Debian's real ISC Kea
// on the lab's DHCP server dhcp (src/tools/lab/lab-network.ts): kea-dhcp4 with the lease_cmds
// hook, kea-ctrl-agent with basic authentication, and the clients c1..c3, whose busybox udhcpc got
// real leases; its lease file was seeded before the start with what no client makes here (c1's
// lease on another subnet, expired; a device gone; a declined address; a lease whose host name is
// no DNS name). The assets and their facts as exact sets of tuples against the server's own lease
// file, a rescan that changes only seen-times, a partial read (maxLeases) that changes and retires
// nothing, the wrong password, no credential, and an address where no agent listens.
import type { ApiClient } from '../support/api-client.js';
import { canonicalJson, createTarget, describeInLab, inventoryTuples, rescan, runErrors, scanToEnd, startLabScanService } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import {
  DHCP_AGENT_PASSWORD, DHCP_AGENT_USER, DHCP_CLIENTS, DHCP_SEEDED_LEASES, DHCP_SERVER_ADDRESS, LAB_START_TIMEOUT_MS, startTestNetwork, SUBNET, type LabLease, type TestNetwork,
} from '../../src/tools/lab/lab-network.js';

const describePeers = await describeInLab("DHCP discovery tests against the lab's Kea");

const TEST_TIMEOUT_MS = 180_000;
const SERVER = DHCP_SERVER_ADDRESS;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describePeers('discovery of DHCP clients (ISC Kea on a namespace host)', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let targetId: string;
  let leases: LabLease[];

  const credential = async (name: string, password: string) => {
    const res = await api.post('/api/v1/credentials', { name, kind: 'HTTP_BASIC', matchPatterns: [], settings: { username: DHCP_AGENT_USER }, secrets: { password } });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    network = await startTestNetwork({ dhcpServer: true });
    ({ service, api } = await startLabScanService());
    leases = await network.dhcp!.leases();
    const agent = await credential('lab agent', DHCP_AGENT_PASSWORD);
    targetId = await createTarget(api, { name: 'lab leases', addresses: [SERVER], methods: ['SWEEP', 'DHCP'], credentialIds: [agent] });
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = (runId: string) => runErrors(api, runId);
  /** Every asset as (type, name, status, addresses, MACs, host name, fqdn, attributes), and every fact as (address, field, source, value), sorted. */
  const inventory = () => inventoryTuples(api, (a) => `${a.assetType} ${a.displayName} ${a.status} ${(a.ipAddresses as string[]).join(';')} ${((a.macAddresses as string[] | undefined) ?? []).join(';') || '-'} ${a.hostname ?? '-'} ${a.fqdn ?? '-'} ${a.customAttributes}`);

  it("the lab's server gave each client a lease from its pool, and holds the seeded ones", () => {
    for (const client of DHCP_CLIENTS) expect(leases.filter((l) => l.mac === client.mac && l.state === 0 && l.address.startsWith(`${SUBNET}.2`))).toHaveLength(1);
    for (const seeded of DHCP_SEEDED_LEASES) expect(leases.map((l) => l.address)).toContain(seeded.address);
  });

  it("makes each client with an active lease an asset at its address: its MAC, address and name as facts of source dhcp, a fact per lease (its history), and nothing of expired, declined or invalid leases", async () => {
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    // The lease whose host name is no DNS name is left out, reported at its own address.
    const bad = DHCP_SEEDED_LEASES[3];
    expect(await errorsOf(run.id)).toEqual([{ address: bad.address, method: 'DHCP', stage: 'collect', code: 'DHCP_LEASE_INVALID' }]);

    const expectedTuples = [`UNKNOWN_ENDPOINT ${SERVER} ACTIVE ${SERVER} - - - ${JSON.stringify({ openPorts: '22,8000' })}`];
    const expectedFacts = [
      `${SERVER} assetType sweep "UNKNOWN_ENDPOINT"`, `${SERVER} custom.openPorts sweep "22,8000"`, `${SERVER} displayName sweep "${SERVER}"`, `${SERVER} ipAddresses sweep ${JSON.stringify([SERVER])}`,
    ];
    const leaseFact = (l: LabLease) => canonicalJson({ macAddress: l.mac, ...(l.hostname ? { hostname: l.hostname.toLowerCase().replace(/\.$/, '') } : {}), start: iso(l.cltt), end: iso(l.cltt + l.validLifetime) });
    for (const client of DHCP_CLIENTS) {
      const own = leases.filter((l) => l.mac === client.mac);
      const active = own.find((l) => l.state === 0) as LabLease;
      const name = 'hostname' in client ? client.hostname : undefined;
      const hostname = name?.split('.')[0];
      const fqdn = name?.includes('.') ? name : undefined;
      expectedTuples.push(`UNKNOWN_ENDPOINT ${hostname ?? active.address} ACTIVE ${active.address} ${client.mac} ${hostname ?? '-'} ${fqdn ?? '-'} {}`);
      expectedFacts.push(
        `${active.address} ipAddresses dhcp ${JSON.stringify([active.address])}`,
        `${active.address} macAddresses dhcp ${JSON.stringify([client.mac])}`,
        ...(hostname ? [`${active.address} hostname dhcp "${hostname}"`] : []),
        ...(fqdn ? [`${active.address} fqdn dhcp "${fqdn}"`] : []),
        // Every lease of the client, the expired one of c1 on the other subnet too: its MAC-to-address history.
        ...own.map((l) => `${active.address} dhcpLease:${l.address} dhcp ${leaseFact(l)}`),
      );
    }
    expect(leases.filter((l) => l.mac === DHCP_CLIENTS[0].mac)).toHaveLength(2);
    const { tuples, facts } = await inventory();
    expect(tuples).toEqual(expectedTuples.sort());
    expect(facts).toEqual(expectedFacts.sort());
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(hosts).toEqual([expect.objectContaining({ address: SERVER, methods: ['DHCP'], outcome: 'SUCCESS' })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const { before, after } = await rescan(inventory, () => scan(targetId), 'COMPLETED_WITH_ERRORS');
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    for (const [fact, at] of Object.entries(after.times)) if (fact.endsWith(' dhcp')) expect(at > (before.times[fact] as string)).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('changes and retires nothing on a partial read: more leases than maxLeases', async () => {
    const before = await inventory();
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DHCP: { maxLeases: 3, pageSize: 2 } } })).status).toBe(200);
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([{ address: SERVER, method: 'DHCP', stage: 'collect', code: 'DHCP_LEASES_TRUNCATED' }]);
    const after = await inventory();
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    // Not even the DHCP facts' times moved: a partial read loads no leases.
    for (const [fact, at] of Object.entries(after.times)) if (fact.endsWith(' dhcp')) expect(at).toBe(before.times[fact]);
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DHCP: {} } })).status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it('gives DHCP_AUTH_FAILED for a wrong password and without a credential, and changes nothing', async () => {
    const before = await inventory();
    const wrong = await credential('wrong password', 'not-the-agent-password');
    for (const [name, credentialIds] of [['wrong password', [wrong]], ['no credential', []]] as const) {
      const run = await scan(await createTarget(api, { name, addresses: [SERVER], methods: ['DHCP'], credentialIds }));
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(await errorsOf(run.id)).toEqual([{ address: SERVER, method: 'DHCP', stage: 'authenticate', code: 'DHCP_AUTH_FAILED' }]);
    }
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('gives CONNECTION_REFUSED where no control agent listens, for an address named on its own', async () => {
    const run = await scan(await createTarget(api, { name: 'no agent', addresses: [network.hosts.h1.address], methods: ['DHCP'] }));
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([{ address: network.hosts.h1.address, method: 'DHCP', stage: 'connect', code: 'CONNECTION_REFUSED' }]);
  }, TEST_TIMEOUT_MS);

  it('refuses settings out of bounds or unknown', async () => {
    for (const dhcp of [{ maxLeases: 0 }, { pageSize: 10_001 }, { timeoutMs: 10 }, { zones: ['lab.test'] }]) {
      expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DHCP: dhcp } })).status).toBe(400);
    }
  });
});
