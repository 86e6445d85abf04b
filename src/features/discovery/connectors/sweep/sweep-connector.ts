// SWEEP: is anything at this address? A TCP probe to each port of a list: an accepted (SYN-ACK) or
// a refused (RST) one both prove a live host; silence proves nothing. An ICMP echo reply proves one
// too. How the probes go (sweep-engine.ts): raw, in nmap batches, where the worker holds
// CAP_NET_RAW; else a kernel connect per port and, where none answered, one ping(8). Every probe
// waits for its turn under the worker's probe rate, and a silent address costs the engine's
// adaptive time-out, not the whole connect time-out, once answers have been seen. The name comes
// from the system resolver (getnameinfo: hosts file, then DNS). Endpoints of the service's own
// stores are never probed.
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
    let ended = false;
    const done = (state: PortState) => {
      if (ended) return;
      ended = true;
      socket.destroy();
      if (state !== 'silent') engine.answered(Date.now() - started);
      resolve(state);
    };
    // After this turn's I/O: an event loop that was busy past the time-out runs timers before the
    // answers that came meanwhile, which must win.
    socket.setTimeout(timeoutMs, () => setImmediate(() => done('silent')));
    socket.once('connect', () => done('open'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'closed' : 'silent'));
  });
}

/** A connect to each port, then (where none answered) one ping. */
async function connectSweep(ip: string, probed: number[], icmp: boolean, timeoutMs: number, engine: SweepEngine): Promise<{ responding: boolean; openPorts: number[] }> {
  const wait = engine.timeoutMs(timeoutMs);
  await engine.pacer.take(probed.length);
  engine.counted('tcp', probed.length);
  const states = await Promise.all(probed.map((port) => probe(ip, port, wait, engine)));
  const openPorts = probed.filter((_, i) => states[i] === 'open');
  const responding = states.some((s) => s !== 'silent') || (icmp && (await engine.ping(ip, wait)));
  return { responding, openPorts };
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
  const raw = engine.rawFor(ip) && probed.length === ports.length ? await engine.rawSweep(ip, probed, icmp) : undefined;
  const { responding, openPorts } = raw ?? (await connectSweep(ip, probed, icmp, timeoutMs, engine));
  let hostname: string | undefined;
  if (responding) {
    const name = await withTimeout(dns.lookupService(ip, 0).then((r) => r.hostname).catch(() => undefined), timeoutMs);
    if (name && !net.isIP(name)) hostname = name.toLowerCase();
  }
  return { address, ip, responding, openPorts, hostname };
}
