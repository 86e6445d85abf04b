// One worker's host discovery engine, shared by every chunk it runs: the pace of its probes (a
// token bucket of service.discovery.probe-rate probes per second, which every TCP connect and ICMP
// echo waits for), the time-out that a silent address costs
// (adaptive: the smoothed round-trip time of the answers seen so far plus four deviations, as TCP
// and nmap time their retransmissions, between service.discovery.sweep-min-timeout-ms and the
// connect time-out), and its ICMP echoes. Where the process holds CAP_NET_RAW, echoes go out in
// batches through nmap's host discovery (`-sn -PE`, raw ICMP, one nmap per batch of the addresses
// in flight, in parallel with their TCP connects); without it, one ping(8) per address where no
// port answered, as before (slow: a second each). Why not raw TCP SYN probes too: the kernel's
// connect sends exactly one SYN within a time-out under a second, costs no helper process, works
// without privileges, and tells open from refused from silent on its own.
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
  nmapPath: string;
}

export interface SweepMetrics {
  probes: Counter<'kind'>;
  timeout: Gauge;
}

/** The most addresses in one nmap batch. */
const MAX_ICMP_BATCH = 4096;
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

export class SweepEngine {
  readonly pacer: ProbePacer;
  readonly rawIcmp: boolean;
  private srtt: number | undefined;
  private rttvar = 0;
  private pending: { ip: string; timeoutMs: number; resolve: (up: boolean) => void }[] = [];
  private batching = false;

  constructor(private readonly settings: SweepEngineSettings, private readonly metrics: SweepMetrics, private readonly logger: Logger, rawIcmp = holdsNetRaw()) {
    this.pacer = new ProbePacer(settings.probeRate);
    this.rawIcmp = rawIcmp;
  }

  /** How long a probe waits for its answer now: srtt + 4 × rttvar, within the floor and the connect time-out (the whole of it before any answer). */
  timeoutMs(maxMs: number): number {
    if (this.srtt === undefined) return maxMs;
    return Math.round(Math.min(maxMs, Math.max(this.settings.minTimeoutMs, this.srtt + 4 * this.rttvar)));
  }

  /** A round trip measured (a connect accepted or refused). */
  answered(ms: number): void {
    if (this.srtt === undefined) {
      this.srtt = ms;
      this.rttvar = ms / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
      this.srtt = 0.875 * this.srtt + 0.125 * ms;
    }
    this.metrics.timeout.set(this.timeoutMs(Number.MAX_SAFE_INTEGER) / 1000);
  }

  counted(kind: 'tcp' | 'icmp', probes = 1): void {
    this.metrics.probes.inc({ kind }, probes);
  }

  /** One ICMP echo: in the next nmap batch where raw sockets are allowed (IPv4), else through ping(8). */
  echo(ip: string, timeoutMs: number): Promise<boolean> {
    if (!this.rawIcmp || !net.isIPv4(ip)) return this.ping(ip, timeoutMs);
    return new Promise((resolve) => {
      this.pending.push({ ip, timeoutMs, resolve });
      if (!this.batching) {
        this.batching = true;
        // The addresses that the other chunk scanners ask for in this turn of the event loop join the batch.
        setImmediate(() => void this.nextBatch());
      }
    });
  }

  private async ping(ip: string, timeoutMs: number): Promise<boolean> {
    await this.pacer.take(1);
    this.counted('icmp');
    const args = ['-n', '-q', '-c', '1', '-W', String(echoWaitMs(timeoutMs) / 1000), ip];
    return new Promise((resolve) => {
      execFile('ping', args, { timeout: echoWaitMs(timeoutMs) + 1000 }, (error) => resolve(!error));
    });
  }

  /** Batches one after another, each of what waited (IPv4 only: nmap -sn takes one family per run). */
  private async nextBatch(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0, MAX_ICMP_BATCH);
      await this.pacer.take(batch.length);
      this.counted('icmp', batch.length);
      const up = await this.nmap(batch.map((b) => b.ip), Math.max(...batch.map((b) => b.timeoutMs)));
      for (const { ip, resolve } of batch) resolve(up.has(ip));
    }
    this.batching = false;
  }

  /** nmap's ICMP echo host discovery of the addresses, one echo each (no retry), at most probeRate per second: the addresses that answered. */
  private nmap(ips: string[], timeoutMs: number): Promise<Set<string>> {
    const args = [
      '-sn', '-n', '-PE', '--disable-arp-ping', '--max-retries', '0',
      '--initial-rtt-timeout', `${timeoutMs}ms`, '--max-rtt-timeout', `${timeoutMs}ms`, '--min-rtt-timeout', `${Math.min(timeoutMs, this.settings.minTimeoutMs)}ms`,
      '--min-hostgroup', String(ips.length), '--min-parallelism', String(Math.min(ips.length, 1024)), '--max-rate', String(this.settings.probeRate),
      ...(process.getuid?.() === 0 ? [] : ['--privileged']), '-oX', '-', '-iL', '-',
    ];
    return new Promise((resolve) => {
      const child = spawn(this.settings.nmapPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000 + (ips.length * 1000) / this.settings.probeRate + timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', (error) => this.logger.warn('nmap could not run for the ICMP sweep; its addresses count as silent to ICMP', { error }));
      child.on('close', (code) => {
        clearTimeout(killer);
        if (code !== 0) this.logger.warn('nmap ended badly in the ICMP sweep; its addresses count as silent to ICMP', { code });
        const up = new Set<string>();
        for (const host of out.split('<host>').slice(1)) {
          const addr = /<address addr="([^"]+)" addrtype="ipv4"/.exec(host)?.[1];
          if (addr && host.includes('<status state="up"')) up.add(addr);
        }
        resolve(up);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(`${ips.join('\n')}\n`);
    });
  }
}

/** How long an unanswered ICMP echo waits through ping(8), which counts in whole seconds. */
export function echoWaitMs(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000)) * 1000;
}
