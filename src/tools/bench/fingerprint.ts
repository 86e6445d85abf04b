// The fingerprint section: a /24 of the lab network fingerprinted by the whole service (a target
// over the subnet's addresses with SWEEP and FINGERPRINT, nmap's defaults of the connector: its
// port list, version intensity 7, OS detection), scanned through the API twice (the first run
// creates the assets, the second finds them unchanged), beside its floor in the same run: one bare
// `nmap -sV -O` over the same live hosts and ports, with nothing classified or stored.
import { execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import { DEFAULT_TCP_PORTS, DEFAULT_UDP_PORTS } from '../../features/discovery/connectors/fingerprint/fingerprint.js';
import { parseNmapReport } from '../../features/discovery/connectors/fingerprint/nmap-report.js';
import { networkUnavailable, startTestNetwork, SUBNET } from '../lab/lab-network.js';
import { int, loadAverage, machine, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

/** Plain hosts (sshd and snmpd) besides the lab's own and the fingerprint lab's. */
const EXTRA_HOSTS = 20;
const RUNS = 2;
const RUN_DEADLINE_MS = 30 * 60_000;

interface RunView extends BenchRunView {
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number };
}
interface AssetView {
  id: string;
  assetType: string;
  ipAddresses: string[];
  customAttributes: string;
}

/** One bare nmap over all the hosts at once (its own parallelism), as the connector would run it per host. */
function bareNmap(hosts: string[]): Promise<{ seconds: number; xml: string }> {
  const args = ['-oX', '-', '-n', '-Pn', '-sV', '-sS', '-sU', '-O', '--script', 'snmp-sysdescr', '-p', `T:${DEFAULT_TCP_PORTS.join(',')},U:${DEFAULT_UDP_PORTS.join(',')}`, '--', ...hosts];
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('nmap', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ seconds: (Date.now() - start) / 1000, xml: Buffer.concat(chunks).toString('utf8') }) : reject(new Error(`nmap ended with ${code}`))));
  });
}

/** The open ports nmap named a service at, over all the hosts of a report. */
function servicesNamed(xml: string): number {
  return [...xml.matchAll(/<host[\s>][\s\S]*?<\/host>/g)].reduce((n, [host]) => n + (parseNmapReport(`<nmaprun>${host}</nmaprun>`)?.ports.filter((p) => p.name).length ?? 0), 0);
}

export async function fingerprintBench(): Promise<void> {
  const unavailable = await networkUnavailable();
  if (unavailable) throw new Error(`the lab network cannot run: ${unavailable}`);
  const load = loadAverage();
  const lab = await startTestNetwork({ fingerprintHosts: true, extraHosts: EXTRA_HOSTS });
  try {
    // The subnet but this machine's own address on it (.1, the bridge): the worker would fingerprint itself.
    const range = `${SUBNET}.2-254`;
    const result = await withDataDir((dataDir) =>
      withService(dataDir, {}, async (_service, api) => {
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'lab /24', addresses: [range], methods: ['SWEEP', 'FINGERPRINT'] })).data.id;
        const runs = await scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS);
        const assets = (await api.get<{ data: AssetView[] }>('/api/v1/assets?size=1000')).data;
        const services = (await api.get<{ total: number }>('/api/v1/assets?type=DISCOVERED_SERVICE&size=1')).total;
        return { runs, assets, services };
      }),
    );
    const live = result.assets.map((a) => a.ipAddresses[0] as string).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    const bare = await bareNmap(live);
    const byType = new Map<string, number>();
    for (const a of result.assets) byType.set(a.assetType, (byType.get(a.assetType) ?? 0) + 1);
    const [first, second] = result.runs as [RunView & { seconds: number }, RunView & { seconds: number }];
    const ratio = (seconds: number) => `${(seconds / bare.seconds).toFixed(2)}×`;
    writeSection('fingerprint', `## FINGERPRINT discovery (nmap, a lab /24)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

Scale: a lab /24, labelled as such: the addresses ${range} of the lab network (\`startTestNetwork({ fingerprintHosts: true, extraHosts: ${EXTRA_HOSTS} })\`, network namespaces on this machine): ${live.length} live hosts (h1, h2 and sw; the fingerprint lab's printer, IoT device, SNMP-only switch and server; e1..e${EXTRA_HOSTS}, plain hosts with sshd and snmpd), the other addresses silent. One target over the range with SWEEP and FINGERPRINT at the connector's defaults (${DEFAULT_TCP_PORTS.length} TCP ports and UDP ${DEFAULT_UDP_PORTS.join(', ')}, version intensity 7, OS detection; the worker runs as root), scanned through the API at the service's defaults (8 hosts at a time); the run time is the run's own, from its start to its finish (queueing left out); nmap ${/Nmap version (\S+)/.exec(execFileSync('nmap', ['--version'], { encoding: 'utf8' }))?.[1] ?? ''} from Debian.

| | Time | Hosts | Services named | Against the floor |
|---|---|---|---|---|
| Floor: one bare \`nmap -sV -sS -sU -O\` over the ${live.length} live hosts and the same ports, nothing classified or stored | ${bare.seconds.toFixed(1)} s | ${live.length} | ${int(servicesNamed(bare.xml))} | 1.00× |
| Whole run through the API, first (sweep of the 253 addresses, nmap per live host, classification, load: ${int(first.summary.assetsCreated)} assets created) | ${first.seconds.toFixed(1)} s | ${first.summary.hostsResponding} | ${int(result.services)} | ${ratio(first.seconds)} |
| Whole run, rescan (nothing changed) | ${second.seconds.toFixed(1)} s | ${second.summary.hostsResponding} | as above | ${ratio(second.seconds)} |

Classified: ${[...byType].sort(([a], [b]) => a.localeCompare(b)).map(([type, n]) => `${n} ${type}`).join(', ')}. The service runs one nmap per host (so that a host's report is bounded and a slow host costs only itself), 8 at a time; the bare nmap scans all the hosts in one process with its own parallelism.
`);
  } finally {
    await lab.stop();
  }
}
