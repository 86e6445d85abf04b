// `npm run bench [-- --only SECTION] [--quick] [--data-dir DIR]`: each section runs on local stores
// of its own and writes its part of BENCHMARKS.md with the machine and the date.
//   scale:     the bulk paths at 100,000 assets and 10 million sub-record rows, each beside its
//              floor (lists, relationship walks, topology, per-request overhead, exports, import).
//              --quick builds a tenth of the assets and a hundredth of the rows (labelled so);
//              --data-dir keeps the built estate there and reuses it on the next run.
//   discovery: the whole service against the lab network (needs root), and the load of one busy
//              host beside its raw writes.
//   vcenter:   a vCenter simulator with 50 hosts and 2,000 VMs inventoried (time, round trips).
//   kubernetes: the Kubernetes API server double with 5,000 pods on 50 nodes inventoried (time,
//              API requests), beside a bare client's read of the same pages.
//   dhcp:      a DHCP read of 10,000 leases from the lab's ISC Kea (time, pages), beside Kea's own
//              answer, and inventoried by the whole service (needs root).
//   aws:       an AWS account of 10,000 EC2 instances over 10 regions in the AWS double, read alone
//              (time, API requests) beside the SDK's pages alone, and inventoried by the whole service.
//   azure:     a tenant of 10,000 virtual machines over 10 subscriptions in the Azure double, read
//              alone (time, API requests) beside the SDK's pages alone, and inventoried by the whole service.
//   fingerprint: a lab /24 fingerprinted with nmap by the whole service (time, hosts, services
//              named), beside one bare nmap -sV over the same hosts (needs root).
//   ldap:      a directory of 10,000 computers read from the lab's OpenLDAP (time, pages), beside a
//              bare paged ldapsearch of the same entries, and inventoried by the whole service (needs root).
//   history:   the scale section's graph changed for 30 simulated days (1% of facts and edges a
//              day): bytes per day, an asset's history, the neighbourhood as it was and the
//              difference between two days, each beside its bare store query (--quick, --data-dir as there).
//   graph-query: the admission check of analysts' Cypher (its EXPLAIN) beside the query itself and
//              the whole endpoint, on the scale section's estate (--quick and --data-dir as there).
//   flows:     sustained flow ingest (decode and store) on one core, disk bytes per flow,
//              top-talkers latency over 1 h and 24 h of rollups at 10,000 flows/s, and the
//              collector's memory under a flood of new keys; --quick stores 100,000 flows instead
//              of 2 million and floods for 60 s; --flood-seconds sets the flood (600 by default).
//   host-discovery: the silent range lab's /16 (a few hundred hosts answer, the rest dropped)
//              swept by the whole service (SWEEP, defaults) beside `nmap -sn` over the same /16
//              (time, probes per second, hosts found, CPU; needs root).
//   web-ui:    a day's work in Chromium on the scale section's estate (--quick and --data-dir as
//              there) and a day of flow rollups: global search, a saved view of 8 columns, the Flows
//              page over 24 hours, each beside the bare API calls the page makes for it.
//   worker-loss: how long the chunks of a discovery worker killed mid-run take to be running on
//              another worker (two worker processes, a loopback /16), with the default and a
//              short lease.
import { parseArgs } from 'node:util';
import { awsBench } from './aws.js';
import { azureBench } from './azure.js';
import { dhcpBench } from './dhcp.js';
import { discoveryBench } from './discovery.js';
import { fingerprintBench } from './fingerprint.js';
import { flowsBench, FULL_FLOOD_SECONDS } from './flows.js';
import { graphQueryBench } from './graph-query.js';
import { historyBench } from './history.js';
import { hostDiscoveryBench } from './host-discovery.js';
import { kubernetesBench } from './kubernetes.js';
import { ldapBench } from './ldap.js';
import { FULL_ESTATE, QUICK_ESTATE, scaleBench } from './scale.js';
import { dropSection } from './support.js';
import { vcenterBench } from './vcenter.js';
import { webUiDailyBench } from './web-ui-daily.js';
import { workerLossBench } from './worker-loss.js';

const SECTIONS: Record<string, (options: { quick: boolean; dataDir?: string; floodSeconds?: number }) => Promise<void>> = {
  scale: async ({ quick, dataDir }) => {
    await scaleBench({ size: quick ? QUICK_ESTATE : FULL_ESTATE, dataDir });
    // Written by earlier versions of this benchmark, now part of the scale section.
    dropSection('graph-api');
    dropSection('exports');
  },
  'graph-query': ({ quick, dataDir }) => graphQueryBench({ size: quick ? QUICK_ESTATE : FULL_ESTATE, dataDir }),
  history: ({ quick, dataDir }) => historyBench({ size: quick ? QUICK_ESTATE : FULL_ESTATE, dataDir }),
  discovery: () => discoveryBench(),
  vcenter: () => vcenterBench(),
  kubernetes: () => kubernetesBench(),
  dhcp: () => dhcpBench(),
  aws: () => awsBench(),
  azure: () => azureBench(),
  fingerprint: () => fingerprintBench(),
  ldap: () => ldapBench(),
  'web-ui': ({ quick, dataDir }) => webUiDailyBench({ size: quick ? QUICK_ESTATE : FULL_ESTATE, dataDir }),
  'worker-loss': () => workerLossBench(),
  'host-discovery': () => hostDiscoveryBench(),
  flows: ({ quick, floodSeconds }) => flowsBench({ flows: quick ? 100_000 : 2_000_000, floodSeconds: floodSeconds ?? (quick ? 60 : FULL_FLOOD_SECONDS) }),
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, quick: { type: 'boolean', default: false }, 'data-dir': { type: 'string' }, 'flood-seconds': { type: 'string' } } });
  const floodSeconds = values['flood-seconds'] === undefined ? undefined : Number(values['flood-seconds']);
  if (floodSeconds !== undefined && !(floodSeconds > 0)) throw new Error('--flood-seconds takes a number of seconds');
  if (values.only && !SECTIONS[values.only]) throw new Error(`--only takes one of: ${Object.keys(SECTIONS).join(', ')}`);
  for (const [name, run] of Object.entries(SECTIONS)) {
    if (values.only && values.only !== name) continue;
    console.log(`== ${name}`);
    await run({ quick: values.quick, dataDir: values['data-dir'], floodSeconds });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
