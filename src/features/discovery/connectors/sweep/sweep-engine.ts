// One worker's host discovery engine, shared by every chunk it runs: the pace of its probes (a
// token bucket of service.discovery.probe-rate probes per second, which every probe waits for), the
// time-out that a silent address costs (adaptive: the smoothed round-trip time of the answers seen
// so far plus four deviations, as TCP and nmap time their retransmissions, between
// service.discovery.sweep-min-timeout-ms and the connect time-out), and the probes themselves.
//
// Where the process holds CAP_NET_RAW (root, or the capability granted), the probes are raw and
// sent by nmap in batches of the addresses the worker has in flight: a TCP SYN to each sweep port
// (`-sS -Pn`, one try) and, beside it, an ICMP echo (`-sn -PE`, one try), each nmap at its share
// of the probe rate with the adaptive time-out as its round-trip bounds. A batch starts as soon as
// the probe rate allows, while the earlier ones still wait for their answers. A SYN-ACK is an open
// port, a RST a closed one (a live host either way), an echo reply a live host. Raw probes cost no
// socket, no connection state and no process per address, and what is counted is what is sent
// (no kernel retransmission). Without the capability (and for loopback and IPv6 addresses, and an
// address with an excluded endpoint) each port gets a kernel connect and, where none answered,
// one ping(8): correct, but a socket per probe and a process and a second per silent address.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Counter, Gauge } from 'prom-client';
import type { Logger } from '../../../../platform/logger.js';

export interface SweepEngineSettings {
  /** Probes (TCP connects, ICMP echoes) per second over the whole worker. */
  probeRate: number;
  /** The shortest wait for an answer, however fast the answers seen so far. */
  minTimeoutMs: number;
  /** The longest (the connect time-out): the wait before any answer was seen. */
  maxTimeoutMs: number;
  nmapPath: string;
}

export interface SweepMetrics {
  probes: Counter<'kind'>;
  timeout: Gauge;
}

/** The most addresses in one nmap batch. */
const MAX_BATCH = 4096;
/** A burst of 100 ms worth of probes may go out at once; the rate holds over any longer span. */
const BURST_SECONDS = 0.1;
/** CAP_NET_RAW's bit in /proc/self/status CapEff. */
const CAP_NET_RAW = 13n;

/** Whether this process may open raw sockets (root, or the capability granted to it). */
export function holdsNetRaw(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return hex !== undefined && ((BigInt(`0x${hex}`) >> CAP_NET_RAW) & 1n) === 1n;
  } catch {
    return false;
  }
}

/**
 * Probes paced at a steady rate (GCRA): each reservation moves a theoretical arrival time on by
 * its probes' share of a second and waits until that time is within the burst. So the probes sent
 * from any instant t0 to any t1 number at most rate × (t1 − t0) + the burst (+ one batch).
 */
export class ProbePacer {
  private arrival = 0;

  constructor(private readonly rate: number) {}

  async take(probes: number): Promise<void> {
    const now = Date.now();
    this.arrival = Math.max(this.arrival, now) + (probes * 1000) / this.rate;
    const wait = this.arrival - now - BURST_SECONDS * 1000;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** What the raw probes of one address found. */
export interface RawAnswer {
  responding: boolean;
  openPorts: number[];
}

interface Waiting {
  ip: string;
  key: string;
  resolve: (answer: RawAnswer | undefined) => void;
}

const isLoopback = (ip: string) => ip.startsWith('127.');

export class SweepEngine {
  readonly pacer: ProbePacer;
  private raw: boolean;
  private srtt: number | undefined;
  private rttvar = 0;
  private waiting: Waiting[] = [];
  private pumping = false;

  constructor(private readonly settings: SweepEngineSettings, private readonly metrics: SweepMetrics, private readonly logger: Logger, raw = holdsNetRaw()) {
    this.pacer = new ProbePacer(settings.probeRate);
    this.raw = raw;
  }

  /** Whether this address's probes can be raw (nmap batches). */
  rawFor(ip: string): boolean {
    return this.raw && net.isIPv4(ip) && !isLoopback(ip);
  }

  /** How long a probe waits for its answer now: srtt + 4 × rttvar, within the floor and the connect time-out (the whole of it before any answer). */
  timeoutMs(maxMs = this.settings.maxTimeoutMs): number {
    if (this.srtt === undefined) return maxMs;
    return Math.round(Math.min(maxMs, Math.max(this.settings.minTimeoutMs, this.srtt + 4 * this.rttvar)));
  }

  /** A round trip measured (a connect accepted or refused, or nmap's smoothed figure for a host that answered). */
  answered(ms: number): void {
    if (this.srtt === undefined) {
      this.srtt = ms;
      this.rttvar = ms / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
      this.srtt = 0.875 * this.srtt + 0.125 * ms;
    }
    this.metrics.timeout.set(this.timeoutMs() / 1000);
  }

  counted(kind: 'tcp' | 'icmp', probes = 1): void {
    if (probes > 0) this.metrics.probes.inc({ kind }, probes);
  }

  /** One ICMP echo through ping(8), after its turn. */
  async ping(ip: string, timeoutMs: number): Promise<boolean> {
    await this.pacer.take(1);
    this.counted('icmp');
    const args = ['-n', '-q', '-c', '1', '-W', String(echoWaitMs(timeoutMs) / 1000), ip];
    return new Promise((resolve) => {
      execFile('ping', args, { timeout: echoWaitMs(timeoutMs) + 1000 }, (error) => resolve(!error));
    });
  }

  /** Raw probes of the address in the next batch: undefined where nmap could not run them (the caller connects instead). */
  rawSweep(ip: string, ports: number[], icmp: boolean): Promise<RawAnswer | undefined> {
    return new Promise((resolve) => {
      this.waiting.push({ ip, key: `${ports.join(',')}|${icmp}`, resolve });
      if (!this.pumping) {
        this.pumping = true;
        // The addresses that the other chunk scanners ask for in this turn of the event loop join the batch.
        setImmediate(() => void this.pump());
      }
    });
  }

  /** Batches one after another as the probe rate allows, each of what waited with the same ports. */
  private async pump(): Promise<void> {
    while (this.waiting.length) {
      const key = (this.waiting[0] as Waiting).key;
      const batch = this.waiting.filter((w) => w.key === key).slice(0, MAX_BATCH);
      this.waiting = this.waiting.filter((w) => !batch.includes(w));
      const [portList = '', icmp] = key.split('|');
      const ports = portList ? portList.split(',').map(Number) : [];
      await this.pacer.take(batch.length * (ports.length + (icmp === 'true' ? 1 : 0)));
      // Not awaited: the next batch sends while this one waits for its answers.
      void this.runBatch(batch, ports, icmp === 'true');
    }
    this.pumping = false;
  }

  private async runBatch(batch: Waiting[], ports: number[], icmp: boolean): Promise<void> {
    const ips = batch.map((w) => w.ip);
    const timeoutMs = this.timeoutMs();
    const perAddress = ports.length + (icmp ? 1 : 0);
    const share = (probes: number) => String(Math.max(1, Math.floor((this.settings.probeRate * probes) / perAddress)));
    this.counted('tcp', ips.length * ports.length);
    this.counted('icmp', icmp ? ips.length : 0);
    const [tcp, echo] = await Promise.all([
      ports.length ? this.nmap(['-sS', '-Pn', '-p', ports.join(','), '--min-rate', share(ports.length), '--max-rate', share(ports.length)], ips, timeoutMs) : '',
      icmp ? this.nmap(['-sn', '-PE', '--disable-arp-ping', '--min-rate', share(1), '--max-rate', share(1)], ips, timeoutMs) : '',
    ]);
    if (tcp === undefined || echo === undefined) {
      for (const w of batch) w.resolve(undefined);
      return;
    }
    const answers = new Map<string, RawAnswer>();
    for (const [xml, kind] of [[tcp, 'tcp'], [echo, 'icmp']] as const) {
      for (const host of xml.split(/<host[\s>]/).slice(1)) {
        const ip = /<address addr="([^"]+)" addrtype="ipv4"/.exec(host)?.[1];
        if (!ip) continue;
        const answer = answers.get(ip) ?? { responding: false, openPorts: [] };
        const open = [...host.matchAll(/<port protocol="tcp" portid="(\d+)"><state state="open"/g)].map((m) => Number(m[1]));
        const alive = kind === 'tcp' ? open.length > 0 || /state="closed"/.test(host) : /<status state="up"/.test(host);
        if (!alive) continue;
        answers.set(ip, { responding: true, openPorts: [...answer.openPorts, ...open] });
        const srtt = /<times srtt="(\d+)"/.exec(host)?.[1];
        if (srtt) this.answered(Number(srtt) / 1000);
      }
    }
    for (const w of batch) w.resolve(answers.get(w.ip) ?? { responding: false, openPorts: [] });
  }

  /** One nmap over the addresses (one try per probe, the time-out as its round-trip bounds): its XML report, or undefined where it could not run. */
  private nmap(scan: string[], ips: string[], timeoutMs: number): Promise<string | undefined> {
    const args = [
      ...scan, '-n', '--max-retries', '0',
      '--initial-rtt-timeout', `${timeoutMs}ms`, '--max-rtt-timeout', `${timeoutMs}ms`, '--min-rtt-timeout', `${Math.min(timeoutMs, this.settings.minTimeoutMs)}ms`,
      '--min-hostgroup', String(ips.length), '--min-parallelism', String(Math.min(ips.length * 10, 4096)),
      ...(process.getuid?.() === 0 ? [] : ['--privileged']), '-oX', '-', '-iL', '-',
    ];
    return new Promise((resolve) => {
      const child = spawn(this.settings.nmapPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000 + (ips.length * 1000) / this.settings.probeRate + timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', (error) => {
        // Missing or not allowed: this worker connects from now on.
        this.raw = false;
        this.logger.warn('nmap could not run for SWEEP\'s raw probes; the worker connects instead', { error });
      });
      child.on('close', (code) => {
        clearTimeout(killer);
        if (code !== 0) this.logger.warn('nmap ended badly in SWEEP\'s raw probes; its addresses are connected to instead', { code });
        resolve(code === 0 ? out : undefined);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(`${ips.join('\n')}\n`);
    });
  }
}

/** How long an unanswered ICMP echo waits through ping(8), which counts in whole seconds. */
function echoWaitMs(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000)) * 1000;
}
