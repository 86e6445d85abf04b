// The host-discovery section: the silent range lab's /16 (silent-range-lab.ts: a few hundred
// hosts answer, the rest are dropped) swept by the whole service (a SWEEP-only target over the
// /16, service defaults), beside nmap's own host discovery (`nmap -sn`, its default timing) over
// the same /16 in the same run: time, probes per second (the lab's nftables counters: TCP SYNs and
// ICMP echo requests that reached the range), hosts found of those present, and CPU.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { networkUnavailable } from '../lab/lab-network.js';
import { startSilentRange, type SilentRange } from '../lab/silent-range-lab.js';
import { loadConfig } from '../../platform/config.js';
import { int, loadAverage, machine, scanThrough, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const HOSTS = 300;
const LISTENING = 10;
const RUN_DEADLINE_MS = 60 * 60_000;
// Its local stores on ports of their own: the section runs for many minutes, beside others' benchmarks.
const OWN_PORTS = { localPostgresPort: 55630, localNeo4jBoltPort: 57630 };

interface Sweep {
  seconds: number;
  probes: number;
  found: number;
  /** CPU seconds: the process (user + system) and its ended children (nmap batches, ping). */
  cpu: number;
}

/** This process's CPU and that of its children that ended, in seconds (/proc/self/stat utime, stime, cutime, cstime). */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After the command's ")": state is field 3, so utime (14) is index 11.
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
}

const probeCount = async (range: SilentRange) => {
  const { tcp, icmp } = await range.probes();
  return tcp + icmp;
};

async function serviceSweep(range: SilentRange): Promise<Sweep & { reported: { tcp: number; icmp: number } }> {
  return withDataDir((dataDir) =>
    withService(dataDir, OWN_PORTS, async (service, api) => {
      const target = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'silent /16', addresses: [range.cidr], methods: ['SWEEP'] })).data.id;
      const probesBefore = await probeCount(range);
      const cpuBefore = cpuSeconds();
      const run = await scanThrough<BenchRunView & { summary: { hostsResponding: number } }>(api, target, RUN_DEADLINE_MS);
      const cpu = cpuSeconds() - cpuBefore;
      const probes = (await probeCount(range)) - probesBefore;
      const metrics = await service.container.metrics.registry.getSingleMetric('discovery_sweep_probes_total')?.get();
      const reported = { tcp: 0, icmp: 0 };
      for (const v of metrics?.values ?? []) reported[v.labels.kind as 'tcp' | 'icmp'] = v.value;
      return { seconds: run.seconds, probes, found: run.summary.hostsResponding, cpu, reported };
    }),
  );
}

/** nmap -sn at its defaults over the range, as root: its time, probes, hosts up and CPU (its rusage through time(1)). */
async function nmapSweep(range: SilentRange): Promise<Sweep> {
  const probesBefore = await probeCount(range);
  const started = Date.now();
  const { out, err } = await new Promise<{ out: string; err: string }>((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', 'nmap', '-sn', '-n', '-oX', '-', range.cidr], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ out, err }) : reject(new Error(`nmap ended with ${code}: ${err}`))));
  });
  const seconds = (Date.now() - started) / 1000;
  const [, user = '0', system = '0'] = /cpu (\S+) (\S+)/.exec(err) ?? [];
  const found = Number(/<hosts up="(\d+)"/.exec(out)?.[1] ?? 0);
  return { seconds, probes: (await probeCount(range)) - probesBefore, found, cpu: Number(user) + Number(system) };
}

export async function hostDiscoveryBench(): Promise<void> {
  const unavailable = await networkUnavailable();
  if (unavailable) throw new Error(`the lab cannot run: ${unavailable}`);
  const config = loadConfig({ file: false });
  const loadBefore = loadAverage();
  const range = await startSilentRange({ prefixLength: 16, hosts: HOSTS, listening: LISTENING });
  try {
    const addresses = 65_534;
    const ours = await serviceSweep(range);
    console.log(`service: ${ours.seconds.toFixed(1)} s, ${ours.found} found`);
    const nmap = await nmapSweep(range);
    console.log(`nmap -sn: ${nmap.seconds.toFixed(1)} s, ${nmap.found} found`);
    const row = (what: string, s: Sweep) => `| ${what} | ${s.seconds.toFixed(1)} | ${int(addresses / s.seconds)} | ${int(s.probes)} (${int(s.probes / s.seconds)}/s) | ${s.found} / ${HOSTS} | ${s.cpu.toFixed(1)} |`;
    const nmapVersion = /Nmap version (\S+)/.exec(execFileSync('nmap', ['--version'], { encoding: 'utf8' }))?.[1] ?? '';
    writeSection('host-discovery', `
## Host discovery of a mostly silent /16

${machine()} · 1-minute load average ${loadBefore} at the start, ${loadAverage()} at the end. Other engineers' builds and tests may share the machine (the load average says how busy it was): single runs, so the figures move by tens of percent from run to run.

The silent range lab (\`startSilentRange()\`, src/tools/lab/silent-range-lab.ts): ${range.cidr} (${int(addresses)} addresses) routed into a network namespace through a veth pair; ${HOSTS} addresses there answer (ICMP echo, and a refusal or, at ${LISTENING} of them, an accept on port 22), every other address is dropped without an answer (forwarding off). Probes are what reached the namespace (its nftables counters: TCP SYNs and ICMP echo requests).

- **SWEEP**: the whole service (one process, every role, as root) scanning a SWEEP-only target over the /16 through the API, at the service's defaults: \`service.discovery.probe-rate\` ${int(config.discoveryProbeRate)}, \`concurrency\` ${config.discoveryConcurrency}, \`chunk-size\` ${config.discoveryChunkSize}, \`connect-timeout-ms\` ${config.discoveryConnectTimeoutMs}, \`sweep-min-timeout-ms\` ${config.discoverySweepMinTimeoutMs}, ${config.discoverySweepPorts.length} \`sweep-ports\` and an ICMP echo per address (in nmap batches). Time is the run's own, from its start to its finish (the load included); CPU is the service process's and its ended children's (the nmap batches), the stores' left out. The worker counted ${int(ours.reported.tcp)} TCP and ${int(ours.reported.icmp)} ICMP probes in /metrics (\`discovery_sweep_probes_total\`).
- **nmap -sn**: nmap ${nmapVersion} from Debian, \`nmap -sn -n ${range.cidr}\`, default timing (T3), as root (ICMP echo, TCP SYN to 443, TCP ACK to 80, ICMP timestamp), in the same run, after the service's sweep.

| | Time (s) | Addresses per second | Probes | Hosts found / present | CPU (s) |
|---|---|---|---|---|---|
${row('SWEEP through the service', ours)}
${row('`nmap -sn` (default timing)', nmap)}

SWEEP sends ${config.discoverySweepPorts.length + 1} probes to every silent address (a raw SYN to each sweep port and an echo, one try each: a host that drops pings but answers on one port is found), so its rate of addresses is bounded by \`probe-rate\` ÷ ${config.discoverySweepPorts.length + 1} (${int(config.discoveryProbeRate / (config.discoverySweepPorts.length + 1))}/s at the default), and by the addresses in flight ÷ the adaptive wait (${Math.min(config.discoveryConcurrency, (config.jobsWorkerConcurrency - 1) * config.discoveryChunkSize)} in flight: \`concurrency\`, at most a chunk for each of the \`service.jobs.worker-concurrency\` − 1 chunk jobs) (${config.discoverySweepMinTimeoutMs} ms at least once answers were seen), plus each nmap batch's start and end; nmap -sn sends 4 probes, retransmits to silent addresses, and paces itself by its own round-trip estimates.
`);
  } finally {
    await range.stop();
  }
}
