// SWEEP's host discovery over a mostly silent range of the silent range lab (a /22: a few dozen
// hosts answer, the rest are dropped): every host that exists is found and no other, open ports are
// reported, and the worker's probes stay within service.discovery.probe-rate, as the lab's own
// nftables counters see them.
import { startSilentRange, LISTEN_PORT, type SilentRange } from '../../src/tools/lab/silent-range-lab.js';
import { LAB_START_TIMEOUT_MS } from '../../src/tools/lab/lab-network.js';
import type { ApiClient } from '../support/api-client.js';
import { createTarget, describeInLab, runToEnd } from '../support/discovery-scans.js';
import { parsePrometheus } from '../support/prometheus.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

// Low enough that the run takes seconds at this rate, whatever the machine: the limit binds.
const PROBE_RATE = 4000;
const PORTS = [LISTEN_PORT, 80, 443];
/** The pacer lets 100 ms worth of probes go at once. */
const BURST = PROBE_RATE * 0.1;

const describeInRange = await describeInLab('SWEEP tests over the silent range lab');

describeInRange('SWEEP over a mostly silent range', () => {
  let range: SilentRange;
  let service: TestService;
  let p: Principals;
  let api: ApiClient;

  beforeAll(async () => {
    range = await startSilentRange({ prefixLength: 22, hosts: 40, listening: 5 });
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryProbeRate: PROBE_RATE, discoverySweepPorts: PORTS.join(',') });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await range?.stop();
  });

  const probesCounted = async () => {
    const samples = parsePrometheus((await p.adminToken.get('/metrics')).text).filter((s) => s.name === 'discovery_sweep_probes_total');
    return { tcp: samples.find((s) => s.labels.kind === 'tcp')?.value ?? 0, icmp: samples.find((s) => s.labels.kind === 'icmp')?.value ?? 0 };
  };

  it('finds exactly the hosts present, with their open ports, within the probe rate', async () => {
    const addresses = 1022;
    const id = await createTarget(api, { name: 'silent /22', addresses: [range.cidr], methods: ['SWEEP'] });
    const arrivedBefore = await range.probes();
    const countedBefore = await probesCounted();
    const started = Date.now();
    const queued = await api.post(`/api/v1/discovery/targets/${id}/scan`);
    expect(queued.status).toBe(202);
    const run = await runToEnd(api, queued.body.data.id, 600_000);
    const elapsedSeconds = (Date.now() - started) / 1000;
    const arrived = await range.probes();
    const counted = await probesCounted();

    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: addresses, total: addresses }, summary: { hostsResponding: range.present.length, assetsCreated: range.present.length } });
    const found = (await api.get(`/api/v1/assets?type=UNKNOWN_ENDPOINT&size=500`)).body.data as { ipAddresses: string[]; customAttributes: string }[];
    const rangePrefix = `${range.cidr.split('.').slice(0, 2).join('.')}.`;
    const inRange = found.filter((a) => (a.ipAddresses[0] as string).startsWith(rangePrefix));
    expect(inRange.map((a) => a.ipAddresses[0]).sort()).toEqual([...range.present].sort());
    for (const asset of inRange) {
      const open = range.listening.includes(asset.ipAddresses[0] as string) ? String(LISTEN_PORT) : '';
      expect(JSON.parse(asset.customAttributes)).toEqual({ openPorts: open });
    }

    // Every address had its connects and its echo; /metrics counts what the worker sent.
    expect(counted.tcp - countedBefore.tcp).toBe(addresses * PORTS.length);
    expect(counted.icmp - countedBefore.icmp).toBe(addresses);
    const tcp = arrived.tcp - arrivedBefore.tcp;
    const icmp = arrived.icmp - arrivedBefore.icmp;
    expect(tcp).toBeGreaterThanOrEqual(addresses * PORTS.length);
    expect(icmp).toBeGreaterThanOrEqual(addresses);
    // An upper bound only: the probes that reached the range over the run's whole time, at most the rate (and a burst, and a 10% margin for retransmissions).
    expect(tcp + icmp).toBeLessThanOrEqual(PROBE_RATE * elapsedSeconds * 1.1 + BURST);
  }, 900_000);
});
