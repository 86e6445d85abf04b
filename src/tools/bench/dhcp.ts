// The dhcp section: a DHCP read of 10,000 leases from the lab's ISC Kea (kea-dhcp4 and
// kea-ctrl-agent on the lab host dhcp, its lease file seeded with 10,000 active leases on
// 10.80.0.0/16 besides the lab's own), read alone (lease4-get-page pages, then each lease checked
// and the clients made) beside its floor (the same pages fetched and parsed, no lease looked at)
// and Kea's time for all leases in one request, then inventoried by the whole service through its
// API (a DHCP target, scanned three times: the first run creates the clients, the others find
// them unchanged).
import os from 'node:os';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import { DEFAULT_PAGE_SIZE, validLeases } from '../../features/discovery/connectors/dhcp/dhcp.js';
import { clientFacts } from '../../features/discovery/connectors/dhcp/dhcp-leases.js';
import { keaCommand, readLeases } from '../../features/discovery/connectors/dhcp/kea-api.js';
import { DHCP_AGENT_PASSWORD, DHCP_AGENT_PORT, DHCP_AGENT_USER, DHCP_SERVER_ADDRESS, networkUnavailable, startTestNetwork } from '../lab/lab-network.js';
import { elapsedMs, int, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const LEASES = 10_000;
const READS = 5;
const RUNS = 3;
const RUN_DEADLINE_MS = 20 * 60_000;

interface RunView extends BenchRunView {
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
}

export async function dhcpBench(): Promise<void> {
  const unavailable = await networkUnavailable();
  if (unavailable) throw new Error(`the lab network cannot run: ${unavailable}`);
  const load = loadAverage();
  const lab = await startTestNetwork({ dhcpServer: true, dhcpExtraLeases: LEASES });
  try {
    const credential = { id: 'bench', name: 'bench', kind: 'HTTP_BASIC', settings: { username: DHCP_AGENT_USER }, secrets: { password: DHCP_AGENT_PASSWORD } } as unknown as RevealedCredential;
    const options = () => ({ host: DHCP_SERVER_ADDRESS, port: DHCP_AGENT_PORT, timeoutMs: 60_000, deadline: Date.now() + RUN_DEADLINE_MS });
    const bounds = { pageSize: DEFAULT_PAGE_SIZE, maxLeases: 100_000 };
    const auth = { credentialId: 'bench', header: `Basic ${Buffer.from(`${DHCP_AGENT_USER}:${DHCP_AGENT_PASSWORD}`).toString('base64')}` };
    const reads: { ms: number; pagesMs: number; pages: number; leases: number; clients: number; invalid: number }[] = [];
    const onePage: number[] = [];
    for (let i = 0; i < READS; i++) {
      // The floor: Kea's own answer for every lease at once, fetched and parsed.
      let start = process.hrtime.bigint();
      const all = await keaCommand(options(), auth, 'lease4-get-page', { from: 'start', limit: bounds.maxLeases });
      if ('code' in all) throw new Error(`one page of all leases failed: ${all.message}`);
      onePage.push(elapsedMs(start));
      start = process.hrtime.bigint();
      const read = await readLeases(options(), [credential], bounds);
      const pagesMs = elapsedMs(start);
      if (!read.complete) throw new Error(`the read failed: ${JSON.stringify(read.failure)}`);
      const { leases, invalid } = validLeases(read.leases);
      const clients = clientFacts(leases, Date.now() / 1000);
      reads.push({ ms: elapsedMs(start), pagesMs, pages: read.pages, leases: read.leases.length, clients: clients.length, invalid: invalid.length });
    }
    const runs = await withDataDir((dataDir) =>
      withService(dataDir, {}, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'kea agent', kind: 'HTTP_BASIC', matchPatterns: [], settings: { username: DHCP_AGENT_USER }, secrets: { password: DHCP_AGENT_PASSWORD } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'kea', addresses: [DHCP_SERVER_ADDRESS], methods: ['DHCP'], credentialIds: [credentialId] })).data.id;
        // The lab's one lease whose host name is no DNS name is reported (DHCP_LEASE_INVALID): the run ends COMPLETED_WITH_ERRORS.
        const accept = (run: RunView) => run.status === 'COMPLETED' || (run.status === 'COMPLETED_WITH_ERRORS' && run.summary.errors === 1);
        return scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS, accept);
      }),
    );
    const [first, ...rest] = runs as [RunView & { seconds: number }, ...(RunView & { seconds: number })[]];
    const read = reads[0] as (typeof reads)[number];
    const floor = median(reads.map((r) => r.pagesMs));
    const readMs = median(reads.map((r) => r.ms));
    const firstMs = first.seconds * 1000;
    const rescanMs = median(rest.map((r) => r.seconds)) * 1000;
    const onePageMs = median(onePage);
    const seconds = (ms: number, digits: number) => `${(ms / 1000).toFixed(digits)} s`;
    const ratio = (ms: number) => `${(ms / floor).toFixed(2)}×`;
    writeSection('dhcp', `## DHCP discovery (ISC Kea, ${int(read.leases)} leases)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

Scale: ${int(LEASES)} active leases seeded on 10.80.0.0/16 in the lease file of the lab's Kea 2.2 (Debian's kea-dhcp4-server with the lease_cmds hook, and kea-ctrl-agent with basic authentication, in a network namespace of this machine), besides the lab's own ${read.leases - LEASES} (three clients' real leases and the seeded history): ${int(read.leases)} leases, ${int(read.clients)} clients with an active lease, ${read.invalid} lease left out as invalid. Read over HTTP with \`lease4-get-page\`, pages of ${int(bounds.pageSize)} (\`settings.DHCP.pageSize\`'s default).

| | Time | Pages | Against the floor |
|---|---|---|---|
| Floor: the pages alone (Kea's answers fetched and parsed, their shape checked, no lease looked at), median of ${READS} | ${seconds(floor, 2)} | ${read.pages} | 1.00× |
| Read alone: the pages, each lease checked, the clients made, median of ${READS} | ${seconds(readMs, 2)} | ${read.pages} | ${ratio(readMs)} |
| Whole run through the API, first (creates ${int(first.summary.assetsCreated)} assets) | ${seconds(firstMs, 1)} | as above | ${ratio(firstMs)} |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${seconds(rescanMs, 1)} | as above | ${ratio(rescanMs)} |
| For comparison: every lease in one request (limit ${int(bounds.maxLeases)}), fetched and parsed, median of ${READS} | ${seconds(onePageMs, 2)} | 1 | ${ratio(onePageMs)} |

A smaller run than the 100,000-asset estate of the sections above: the 10,000-lease read that issue 39 names, each figure beside the bare read of the same pages (the floor) in the same run.
`);
  } finally {
    await lab.stop();
  }
}
