// Credential-free discovery (method FINGERPRINT) through the service's API, with Debian's real
// nmap against the fingerprint lab (src/tools/lab/fingerprint-lab.ts): prn runs CUPS (a printer),
// iot mosquitto (an IoT device), l2sw snmpd alone with a switch's sysDescr, srv OpenSSH, nginx and
// PostgreSQL (a Debian server). The assets, their facts and their services as exact sets of tuples
// against what the lab holds (its MACs, its packages' versions, its OS), a rescan that changes only
// seen-times, a partial read (nmap's time-out) that changes and retires nothing where a complete one
// retires a service gone, SSH's facts kept over the fingerprint's where SSH answers too, and an
// address where nothing answers. OS detection is off in the target (nmap's OS guesses are near
// misses that vary from run to run); its rule is tested on nmap's reports in the unit test.
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../support/api-client.js';
import { canonicalJson, createTarget, describeInLab, inventoryTuples, rescan, runErrors, scanToEnd, startLabScanService, type AssetRow } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import { LAB_START_TIMEOUT_MS, startTestNetwork, type TestNetwork } from '../../src/tools/lab/lab-network.js';
import type { FingerprintLab } from '../../src/tools/lab/fingerprint-lab.js';

const describePeers = await describeInLab("FINGERPRINT discovery tests against the lab's printer, IoT device, switch and server");

const TEST_TIMEOUT_MS = 600_000;
const CONFIDENCE = { PRINTER: 0.7, IOT_DEVICE: 0.7, NETWORK_DEVICE: 0.9, HOST: 0.76 } as const;
const ASSET_TYPE = { PRINTER: 'PRINTER', IOT_DEVICE: 'IOT_DEVICE', NETWORK_DEVICE: 'NETWORK_DEVICE', HOST: 'SERVER' } as const;
/** The OS the lab hosts run: this machine's (they share its file system). */
const LAB_OS = /^NAME="?(\S+)/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] as string;

describePeers('discovery by fingerprint (nmap against the fingerprint lab)', () => {
  let network: TestNetwork;
  let lab: FingerprintLab;
  let service: TestService;
  let api: ApiClient;
  let targetId: string;
  const mac = new Map<string, string>();
  const addressOf = (name: string) => lab.hosts.find((h) => h.name === name)?.address as string;

  beforeAll(async () => {
    network = await startTestNetwork({ fingerprintHosts: true });
    lab = network.fingerprint as FingerprintLab;
    for (const host of lab.hosts) mac.set(host.address, (await host.exec('cat /sys/class/net/eth0/address')).trim());
    ({ service, api } = await startLabScanService());
    const [first, last] = [lab.hosts[0]?.address, lab.hosts.at(-1)?.address.split('.').pop()];
    targetId = await createTarget(api, { name: 'fingerprint lab', addresses: [`${first}-${last}`], methods: ['SWEEP', 'FINGERPRINT'], settings: { FINGERPRINT: { osDetection: false } } });
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = (runId: string) => runErrors(api, runId);
  /** Every asset as (type, name, status, addresses, attributes), every fact as (address, field, source, value), the evidence fact by its class, confidence and rules. */
  const inventory = async () => {
    const all = await inventoryTuples(api, (a) => `${a.assetType} ${a.displayName} ${a.status} ${(a.ipAddresses as string[]).join(';')} ${a.customAttributes}`);
    const facts = all.facts.map((fact) => {
      const match = /^(\S+) fingerprintEvidence fingerprint (.*)$/.exec(fact);
      if (!match) return fact;
      const { deviceClass, confidence, evidence } = JSON.parse(match[2] as string) as { deviceClass: string; confidence: number; evidence: { rule: string }[] };
      return `${match[1]} fingerprintEvidence fingerprint ${deviceClass} ${confidence} ${evidence.map((e) => e.rule).join(', ')}`;
    });
    return { ...all, facts: facts.sort() };
  };
  /** Each DISCOVERED_SERVICE row as (host address, service name, product, version, source). */
  const services = async () => {
    const assets = (await api.get('/api/v1/assets?size=1000')).body.data as AssetRow[];
    const address = new Map(assets.map((a) => [a.id, (a.ipAddresses as string[]).join(';')]));
    const rows = (await api.get('/api/v1/assets?type=DISCOVERED_SERVICE&size=1000')).body.data as AssetRow[];
    return rows
      .map((row) => {
        const attributes = JSON.parse(row.customAttributes as string) as Record<string, unknown>;
        return { id: row.id, tuple: `${address.get(row.parent?.id as string)} ${row.displayName} ${attributes.product} ${attributes.source_connector}`, version: attributes.version as string | undefined };
      })
      .sort((a, b) => a.tuple.localeCompare(b.tuple));
  };
  const upstream = (version: string) => version.replace(/^\d+:/, '').replace(/-[^-]*$/, '');

  it('classifies each lab host (printer, IoT device, switch, Debian server) with its confidence and evidence, and names its services with their products and versions', async () => {
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED');
    expect(await errorsOf(run.id)).toEqual([]);

    const { tuples, facts } = await inventory();
    // The sweep probes port 22 alone (open on srv only); the fingerprint's open TCP ports, ranked higher, are the ones kept.
    const tcpPorts = (host: (typeof lab.hosts)[number]) => host.services.filter((s) => s.protocol === 'tcp').map((s) => s.port).sort((x, y) => x - y).join(',');
    const attributes = (host: (typeof lab.hosts)[number]) =>
      canonicalJson({ deviceClass: host.deviceClass, deviceClassConfidence: CONFIDENCE[host.deviceClass], ...(host.name === 'srv' ? { osFamily: 'Linux', osName: LAB_OS } : {}), openPorts: tcpPorts(host) || (host.name === 'srv' ? '22' : '') });
    expect(tuples).toEqual(lab.hosts.map((h) => `${ASSET_TYPE[h.deviceClass]} ${h.address} ACTIVE ${h.address} ${attributes(h)}`).sort());
    const rules = { prn: 'IPP service', iot: 'MQTT service', l2sw: 'SNMP sysDescr of a network device, SNMP is all that answers', srv: 'SSH banner names an OS, server service' } as Record<string, string>;
    expect(facts).toEqual(lab.hosts.flatMap((h) => {
      const a = h.address;
      return [
        `${a} assetType fingerprint "${ASSET_TYPE[h.deviceClass]}"`, `${a} assetType sweep "UNKNOWN_ENDPOINT"`,
        `${a} custom.deviceClass fingerprint "${h.deviceClass}"`, `${a} custom.deviceClassConfidence fingerprint ${CONFIDENCE[h.deviceClass]}`,
        ...(h.name === 'srv' ? [`${a} custom.osFamily fingerprint "Linux"`, `${a} custom.osName fingerprint "${LAB_OS}"`] : []),
        ...(tcpPorts(h) ? [`${a} custom.openPorts fingerprint "${tcpPorts(h)}"`] : []),
        `${a} custom.openPorts sweep "${h.name === 'srv' ? '22' : ''}"`, `${a} displayName sweep "${a}"`,
        `${a} fingerprintEvidence fingerprint ${h.deviceClass} ${CONFIDENCE[h.deviceClass]} ${rules[h.name]}`,
        `${a} ipAddresses fingerprint ${JSON.stringify([a])}`, `${a} ipAddresses sweep ${JSON.stringify([a])}`,
        `${a} macAddresses fingerprint ${JSON.stringify([mac.get(a)])}`,
      ];
    }).sort());

    // The services each host runs, named by nmap, with the version each package installed gives.
    const rows = await services();
    expect(rows.map((r) => r.tuple)).toEqual(lab.hosts.flatMap((h) => h.services.map((s) => `${h.address} ${s.name}:${s.port}${s.protocol === 'udp' ? '/udp' : ''} ${s.product} FINGERPRINT`)).sort());
    const versionOf = (name: string) => rows.find((r) => r.tuple.includes(` ${name} `))?.version;
    const openssh = (await lab.packageVersion('openssh-server')).replace(/^\d+:/, '');
    expect(versionOf('ssh:22')).toBe(`${openssh.replace(/-.*$/, '')} Debian ${openssh.replace(/^[^-]*-/, '')}`);
    expect(versionOf('http:80')).toBe(upstream(await lab.packageVersion('nginx')));
    expect(versionOf('mqtt:1883')).toBe(upstream(await lab.packageVersion('mosquitto')));
    expect(versionOf('ipp:631')).toBe(upstream(await lab.packageVersion('cups-daemon')).split('.').slice(0, 2).join('.'));

    // The evidence that decided the printer, with the port and what answered there: provenance serves it.
    const printer = ((await api.get('/api/v1/assets?type=PRINTER')).body.data as AssetRow[])[0] as AssetRow;
    const provenance = (await api.get(`/api/v1/assets/${printer.id}/provenance`)).body.data.fields as { field: string; source: string; value: any }[];
    expect(provenance.find((f) => f.field === 'fingerprintEvidence')).toMatchObject({
      source: 'fingerprint',
      value: { deviceClass: 'PRINTER', confidence: 0.7, evidence: [{ rule: 'IPP service', deviceClass: 'PRINTER', weight: 0.7, detail: expect.stringMatching(/^tcp\/631 ipp \(CUPS \d+\.\d+\)$/) }], against: [], os: null },
    });
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data as { address: string; methods: string[]; outcome: string }[];
    expect(hosts.map((h) => `${h.address} ${h.methods.join(',')} ${h.outcome}`).sort()).toEqual(lab.hosts.map((h) => `${h.address} FINGERPRINT SUCCESS`).sort());
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan, and keeps each service row', async () => {
    const rowsBefore = await services();
    const { before, after } = await rescan(inventory, () => scan(targetId), 'COMPLETED');
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    expect(await services()).toEqual(rowsBefore);
  }, TEST_TIMEOUT_MS);

  it('changes and retires nothing on a partial read (nmap stopped at its time-out); a complete read then retires the service gone', async () => {
    const srv = lab.hosts.find((h) => h.name === 'srv') as (typeof lab.hosts)[number];
    await srv.exec('pkill -x nginx; while pgrep -x nginx > /dev/null; do sleep 0.05; done');
    const before = await inventory();
    const rowsBefore = await services();
    // 32 closed UDP ports: the hosts' kernels answer each with an ICMP port unreachable at most once
    // a second (icmp_ratelimit), so nmap needs seconds at every host, however fast the machine.
    const slowUdp = Array.from({ length: 32 }, (_, i) => 40_000 + i);
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { FINGERPRINT: { osDetection: false, timeoutMs: 1000, udpPorts: slowUdp } } })).status).toBe(200);
    const partial = await scan(targetId);
    expect(partial.status).toBe('COMPLETED_WITH_ERRORS');
    expect((await errorsOf(partial.id)).sort((a, b) => a.address.localeCompare(b.address))).toEqual(lab.hosts.map((h) => ({ address: h.address, method: 'FINGERPRINT', stage: 'collect', code: 'FINGERPRINT_TIMEOUT' })));
    const after = await inventory();
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    // Not even the fingerprint's facts' times moved: a partial read loads nothing.
    for (const [fact, at] of Object.entries(after.times)) if (fact.endsWith(' fingerprint')) expect(at).toBe(before.times[fact]);
    expect(await services()).toEqual(rowsBefore);

    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { FINGERPRINT: { osDetection: false } } })).status).toBe(200);
    expect((await scan(targetId)).status).toBe('COMPLETED');
    expect((await services()).map((r) => r.tuple)).toEqual(rowsBefore.map((r) => r.tuple).filter((t) => !t.includes(' http:80 ')));
  }, TEST_TIMEOUT_MS);

  it("keeps SSH's facts where SSH answers too (its rank is higher), the fingerprint's beside them as evidence, and SSH's services in place of the fingerprint's", async () => {
    const srv = addressOf('srv');
    const id = ((await api.get('/api/v1/assets?size=1000')).body.data as AssetRow[]).find((a) => (a.ipAddresses as string[]).includes(srv))?.id as string;
    const run = await scan(await createTarget(api, { name: 'server with ssh', addresses: [srv], methods: ['SWEEP', 'SSH', 'FINGERPRINT'], settings: { FINGERPRINT: { osDetection: false } } }));
    expect(run.status).toBe('COMPLETED');
    const after = ((await api.get('/api/v1/assets?size=1000')).body.data as AssetRow[]).filter((a) => (a.ipAddresses as string[]).includes(srv));
    // The same asset, not a second one.
    expect(after.map((a) => a.id)).toEqual([id]);
    const fields = (await api.get(`/api/v1/assets/${id}/provenance`)).body.data.fields as { field: string; source: string; value: unknown; candidates: { source: string; value: unknown }[] }[];
    const field = (name: string) => fields.find((f) => f.field === name);
    expect(field('assetType')).toMatchObject({ source: 'ssh', candidates: [{ source: 'fingerprint', value: 'SERVER' }, { source: 'sweep', value: 'UNKNOWN_ENDPOINT' }] });
    expect(after[0]?.assetType).toBe(field('assetType')?.value);
    expect(field('custom.osName')).toMatchObject({ source: 'ssh', value: expect.stringMatching(new RegExp(`^${LAB_OS}`)), candidates: [{ source: 'fingerprint', value: LAB_OS }] });
    expect(field('fingerprintEvidence')).toMatchObject({ source: 'fingerprint', value: { deviceClass: 'HOST' } });
    // SSH read the host's services: they stand, and the fingerprint's rows of the host are gone.
    const rows = (await services()).filter((r) => r.tuple.startsWith(`${srv} `));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.tuple.endsWith(' FINGERPRINT'))).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('gives HOST_UNREACHABLE for an address named on its own where nothing answers, and loads nothing', async () => {
    const before = await inventory();
    const run = await scan(await createTarget(api, { name: 'nobody', addresses: [network.emptyAddress], methods: ['FINGERPRINT'] }));
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([{ address: network.emptyAddress, method: 'FINGERPRINT', stage: 'connect', code: 'HOST_UNREACHABLE' }]);
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('refuses settings that are not its own: both ports and topPorts, a port out of range, an unknown field', async () => {
    for (const fingerprint of [{ ports: [22], topPorts: 100 }, { ports: [70000] }, { intensity: 10 }, { timeoutMs: 10 }, { community: 'public' }]) {
      expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { FINGERPRINT: fingerprint } })).status).toBe(400);
    }
  });
});
