// Discovery of DNS zones (method DNS) through the service's API, against Debian's real bind9 on the
// lab's DNS server ns (src/tools/lab/lab-network.ts, DNS_ZONES): lab.test transferred to anyone,
// secure.test only with the TSIG key, closed.test to no one, and the lab subnet's reverse zone for
// PTR lookups. The assets and their facts as exact sets of tuples against what the lab holds (h1,
// h2 and sw answer; .97, .99 and fd77::99 do not), a rescan that changes only seen-times, a partial
// read (a zone refused, a zone truncated) that changes and retires nothing, the wrong TSIG key, no
// key, and a server that is not there.
import type { ApiClient } from '../support/api-client.js';
import { createTarget, describeInLab, inventoryTuples, rescan, runErrors, scanToEnd, startLabScanService } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import {
  DNS_SERVER_ADDRESS, DNS_TSIG_KEY_NAME, DNS_TSIG_SECRET, DNS_ZONES, LAB_START_TIMEOUT_MS, startTestNetwork, SUBNET, type TestNetwork,
} from '../../src/tools/lab/lab-network.js';

const describePeers = await describeInLab("DNS discovery tests against the lab's bind9");

const TEST_TIMEOUT_MS = 180_000;
const NS = DNS_SERVER_ADDRESS;
const [H1, H2, SW] = [`${SUBNET}.11`, `${SUBNET}.12`, `${SUBNET}.13`];

describePeers('discovery of DNS zones (bind9 on a namespace host)', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let targetId: string;

  const credential = async (name: string, keyName: string, secret: string) => {
    const res = await api.post('/api/v1/credentials', { name, kind: 'DNS_TSIG', matchPatterns: [], settings: { keyName, algorithm: 'hmac-sha256' }, secrets: { secret } });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    network = await startTestNetwork({ dnsServer: true });
    ({ service, api } = await startLabScanService());
    const key = await credential('lab transfer key', DNS_TSIG_KEY_NAME, DNS_TSIG_SECRET);
    targetId = await createTarget(api, { name: 'lab zones', addresses: [NS], methods: ['SWEEP', 'DNS'], settings: { DNS: { zones: ['lab.test', 'secure.test'] } }, credentialIds: [key] });
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = (runId: string) => runErrors(api, runId);
  /** Every asset as (type, name, status, addresses, fqdn, attributes), and every fact as (address, field, source, value), sorted. */
  const inventory = () => inventoryTuples(api, (a) => `${a.assetType} ${a.displayName} ${a.status} ${(a.ipAddresses as string[]).join(';')} ${a.fqdn ?? '-'} ${a.customAttributes}`);

  it('names the addresses that answer with the zones\' names (facts of source dns), reports the records that point at nothing alive, and makes no other asset', async () => {
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect((await errorsOf(run.id)).sort((a, b) => a.address.localeCompare(b.address))).toEqual([
      { address: `${SUBNET}.97`, method: 'DNS', stage: 'collect', code: 'DNS_RECORD_NOT_ALIVE' },
      { address: `${SUBNET}.99`, method: 'DNS', stage: 'collect', code: 'DNS_RECORD_NOT_ALIVE' },
      { address: 'fd77::99', method: 'DNS', stage: 'collect', code: 'DNS_RECORD_NOT_ALIVE' },
    ]);
    const { tuples, facts } = await inventory();
    const names = (list: string) => JSON.stringify({ dnsNames: list });
    expect(tuples).toEqual([
      `UNKNOWN_ENDPOINT ${NS} ACTIVE ${NS} ns.lab.test ${JSON.stringify({ dnsNames: 'ns.lab.test', openPorts: '22,53' })}`,
      `UNKNOWN_ENDPOINT h1.lab.test ACTIVE ${H1} h1.lab.test ${names('api.lab.test,db.secure.test,h1.lab.test')}`,
      `UNKNOWN_ENDPOINT h2.lab.test ACTIVE ${H2} h2.lab.test ${names('api.lab.test,h2.lab.test,mail.lab.test,www.lab.test')}`,
      `UNKNOWN_ENDPOINT sw.lab.test ACTIVE ${SW} sw.lab.test ${names('sw.lab.test')}`,
    ].sort());
    const dnsFacts = (address: string, fqdn: string, dnsNames: string) => [
      `${address} custom.dnsNames dns ${JSON.stringify(dnsNames)}`, `${address} fqdn dns ${JSON.stringify(fqdn)}`, `${address} ipAddresses dns ${JSON.stringify([address])}`,
    ];
    expect(facts).toEqual([
      // The server itself: the sweep found it (ports 22 and 53), DNS names it.
      ...dnsFacts(NS, 'ns.lab.test', 'ns.lab.test'),
      `${NS} assetType sweep "UNKNOWN_ENDPOINT"`, `${NS} custom.openPorts sweep "22,53"`, `${NS} displayName sweep "${NS}"`, `${NS} ipAddresses sweep ${JSON.stringify([NS])}`,
      // PTR names (the reverse zone) are the FQDNs; api.lab.test is on two addresses, so it names neither.
      ...dnsFacts(H1, 'h1.lab.test', 'api.lab.test,db.secure.test,h1.lab.test'),
      ...dnsFacts(H2, 'h2.lab.test', 'api.lab.test,h2.lab.test,mail.lab.test,www.lab.test'),
      ...dnsFacts(SW, 'sw.lab.test', 'sw.lab.test'),
    ].sort());
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(hosts).toEqual([expect.objectContaining({ address: NS, methods: ['DNS'], outcome: 'SUCCESS' })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const { before, after } = await rescan(inventory, () => scan(targetId), 'COMPLETED_WITH_ERRORS');
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('changes and retires nothing on a partial read: a zone refused, or a zone larger than maxRecords', async () => {
    const before = await inventory();
    // maxRecords bounds the read of all zones together: lab.test's records (its SOA, NS and own) fill it, and secure.test is not read.
    const labRecords = DNS_ZONES['lab.test']!.records.length + 2;
    for (const [settings, code, stage] of [
      [{ zones: ['lab.test', 'secure.test', 'closed.test'] }, 'DNS_TRANSFER_REFUSED', 'collect:closed.test'],
      [{ zones: ['lab.test', 'secure.test'], maxRecords: 3 }, 'DNS_ZONE_TRUNCATED', 'collect:lab.test'],
      [{ zones: ['lab.test', 'secure.test'], maxRecords: labRecords }, 'DNS_ZONE_TRUNCATED', 'collect:secure.test'],
    ] as const) {
      expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DNS: settings } })).status).toBe(200);
      const run = await scan(targetId);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(await errorsOf(run.id)).toContainEqual({ address: NS, method: 'DNS', stage, code });
      const after = await inventory();
      expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
      // Not even the DNS facts' times moved: a partial read loads no names.
      for (const [fact, at] of Object.entries(after.times)) if (fact.includes(' dns')) expect(at).toBe(before.times[fact]);
    }
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DNS: { zones: ['lab.test', 'secure.test'] } } })).status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it('gives DNS_TSIG_REFUSED for a wrong TSIG secret or key name, and DNS_TRANSFER_REFUSED without a key, and changes nothing', async () => {
    const before = await inventory();
    const wrongSecret = await credential('wrong secret', DNS_TSIG_KEY_NAME, Buffer.from('not-the-lab-secret-not-the-lab-0').toString('base64'));
    const wrongName = await credential('unknown key', 'no-such-key', DNS_TSIG_SECRET);
    for (const credentialIds of [[wrongSecret], [wrongName]]) {
      const run = await scan(await createTarget(api, { name: `wrong key ${credentialIds[0]}`, addresses: [NS], methods: ['DNS'], settings: { DNS: { zones: ['secure.test'] } }, credentialIds }));
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(await errorsOf(run.id)).toEqual([{ address: NS, method: 'DNS', stage: 'authenticate', code: 'DNS_TSIG_REFUSED' }]);
    }
    const unsigned = await scan(await createTarget(api, { name: 'no key', addresses: [NS], methods: ['DNS'], settings: { DNS: { zones: ['secure.test'] } } }));
    expect(await errorsOf(unsigned.id)).toEqual([{ address: NS, method: 'DNS', stage: 'collect:secure.test', code: 'DNS_TRANSFER_REFUSED' }]);
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('gives CONNECTION_REFUSED where no DNS server listens, for an address named on its own', async () => {
    const run = await scan(await createTarget(api, { name: 'no server', addresses: [network.hosts.h1.address], methods: ['DNS'], settings: { DNS: { zones: ['lab.test'] } } }));
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([{ address: network.hosts.h1.address, method: 'DNS', stage: 'connect', code: 'CONNECTION_REFUSED' }]);
  }, TEST_TIMEOUT_MS);

  it('refuses settings without zones, or with a zone that is no DNS name', async () => {
    for (const dns of [{}, { zones: [] }, { zones: ['bad zone; rm -rf /'] }]) {
      expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { DNS: dns } })).status).toBe(400);
    }
  });
});
