// SWEEP: is anything at this address? A TCP connect to each port of a list: an accepted or a
// refused connection both prove a live host; silence proves nothing. An ICMP echo goes out at the
// same time (sweep-engine.ts: in nmap batches where the process holds CAP_NET_RAW; otherwise
// through ping(8), and only where no port answered). Every probe waits for its turn under the
// worker's probe rate, and a silent address costs the engine's adaptive time-out, not the whole
// connect time-out, once answers have been seen. The name comes from the system resolver
// (getnameinfo: hosts file, then DNS). Endpoints of the service's own stores are never probed.
import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { RunError } from '../../run-record.js';
import type { SweepEngine } from './sweep-engine.js';

export interface SweepOptions {
  ports: number[];
  /** The longest wait for an answer (the connect time-out); the engine's adaptive one is shorter once it has seen answers. */
  timeoutMs: number;
  /** host:port pairs never to connect to. */
  excluded: Set<string>;
  /** Send an ICMP echo too. */
  icmp: boolean;
  /** The worker's pace, time-out and ICMP batches. */
  engine: SweepEngine;
}

export interface SweepResult {
  address: string;
  ip?: string;
  responding: boolean;
  openPorts: number[];
  hostname?: string;
  error?: RunError;
}

type PortState = 'open' | 'closed' | 'silent';

function probe(ip: string, port: number, timeoutMs: number, engine: SweepEngine): Promise<PortState> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: ip, port });
    const done = (state: PortState) => {
      socket.destroy();
      if (state !== 'silent') engine.answered(Date.now() - started);
      resolve(state);
    };
    socket.setTimeout(timeoutMs, () => done('silent'));
    socket.once('connect', () => done('open'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'closed' : 'silent'));
  });
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export async function sweep(address: string, { ports, timeoutMs, excluded, icmp, engine }: SweepOptions): Promise<SweepResult> {
  let ip = address;
  if (!net.isIP(address)) {
    const found = await withTimeout(dns.lookup(address).catch(() => undefined), timeoutMs);
    if (!found) {
      return { address, responding: false, openPorts: [], error: { address, method: 'SWEEP', stage: 'resolve', code: 'DNS_FAILURE', message: `${address} does not resolve to an address` } };
    }
    ip = found.address;
  }
  const probed = ports.filter((port) => !excluded.has(`${ip}:${port}`));
  const wait = engine.timeoutMs(timeoutMs);
  // The echo in parallel where it is cheap (a batch); else only where no port answered, as it costs a process and a second.
  const echoed = icmp && engine.rawIcmp ? engine.echo(ip, wait) : undefined;
  await engine.pacer.take(probed.length);
  engine.counted('tcp', probed.length);
  const states = await Promise.all(probed.map((port) => probe(ip, port, wait, engine)));
  const openPorts = probed.filter((_, i) => states[i] === 'open');
  const answered = states.some((s) => s !== 'silent');
  const responding = (await echoed) || answered || (icmp && !echoed && (await engine.echo(ip, wait)));
  let hostname: string | undefined;
  if (responding) {
    const name = await withTimeout(dns.lookupService(ip, 0).then((r) => r.hostname).catch(() => undefined), timeoutMs);
    if (name && !net.isIP(name)) hostname = name.toLowerCase();
  }
  return { address, ip, responding, openPorts, hostname };
}
