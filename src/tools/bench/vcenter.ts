// The vcenter section: a vCenter simulator (govmomi's, tools/vcsim) with 50 hosts and 2,000 VMs
// inventoried by the whole service through its API (a VCENTER target, scanned three times: the
// first run creates the estate, the others find it unchanged), and the read alone (the vim25
// session and the PropertyCollector pages, no load) with its round trips.
import os from 'node:os';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import { readVcenter } from '../../features/discovery/connectors/vcenter/vcenter.js';
import { startVcsim, vcsimUnavailable } from '../vcsim/vcsim.js';
import { elapsedMs, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection } from './support.js';

const HOSTS = 50;
const VMS = 2000;
const RUNS = 3;
const READS = 5;
const RUN_DEADLINE_MS = 20 * 60_000;
const USER = 'bench';
const PASSWORD = 'bench-secret';

interface RunView {
  id: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
  errors?: unknown[];
}

export async function vcenterBench(): Promise<void> {
  const unavailable = vcsimUnavailable();
  if (unavailable) throw new Error(`the vCenter simulator cannot run: ${unavailable}`);
  const load = loadAverage();
  // One cluster of 50 hosts, its one resource pool holding the 2,000 VMs.
  const vc = await startVcsim({ username: USER, password: PASSWORD, counts: { cluster: 1, 'cluster-host': HOSTS, 'standalone-host': 0, vm: VMS } });
  try {
    const credential = { id: 'bench', name: 'bench', kind: 'HTTP_BASIC', settings: { username: USER }, secrets: { password: PASSWORD } } as unknown as RevealedCredential;
    const pins = { pinOrCompare: async () => undefined };
    const reads: { ms: number; calls: number; pages: number; assets: number }[] = [];
    for (let i = 0; i < READS; i++) {
      const start = process.hrtime.bigint();
      const read = await readVcenter('127.0.0.1', [credential], { port: vc.port, verifyCertificate: false, connectTimeoutMs: 5000, pageSize: 500, deadline: Date.now() + RUN_DEADLINE_MS }, pins);
      if (read.errors.length || !read.estate?.complete) throw new Error(`the read failed: ${JSON.stringify(read.errors)}`);
      reads.push({ ms: elapsedMs(start), calls: read.calls, pages: read.pages, assets: read.estate.assets.length });
    }
    const runs = await withDataDir((dataDir) =>
      withService(dataDir, {}, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'vcenter', kind: 'HTTP_BASIC', matchPatterns: [], settings: { username: USER }, secrets: { password: PASSWORD } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', {
          name: 'vcsim', addresses: ['127.0.0.1'], methods: ['VCENTER'], credentialIds: [credentialId], ports: { VCENTER: vc.port }, settings: { VCENTER: { caCertificate: vc.certificate } },
        })).data.id;
        return scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS);
      }),
    );
    const [first, ...rest] = runs as [RunView & { seconds: number }, ...(RunView & { seconds: number })[]];
    const read = reads[0] as (typeof reads)[number];
    writeSection('vcenter', `## vCenter discovery (simulator)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

govmomi's vCenter simulator (\`tools/vcsim\`, built from Debian's golang-github-vmware-govmomi-dev) on loopback with ${HOSTS} hosts in one cluster and ${VMS} VMs, read over vim25 SOAP (TLS) with \`service.discovery.vcenter-page-size\` 500.

| | Time | PropertyCollector round trips |
|---|---|---|
| Read alone (session, ContainerView, pages; ${read.assets} assets mapped), median of ${READS} | ${(median(reads.map((r) => r.ms)) / 1000).toFixed(2)} s | ${read.pages} pages (RetrievePropertiesEx + ${read.pages - 1} ContinueRetrievePropertiesEx), ${read.calls} SOAP calls in all |
| Whole run through the API, first (creates ${first.summary.assetsCreated} assets) | ${first.seconds.toFixed(1)} s | as above |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${median(rest.map((r) => r.seconds)).toFixed(1)} s | as above |
`);
  } finally {
    await vc.stop();
  }
}
