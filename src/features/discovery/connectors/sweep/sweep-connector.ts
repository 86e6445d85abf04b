// SWEEP: is anything at this address? A TCP connect to each port of a list: an accepted or a
// refused connection both prove a live host; silence proves nothing. Where no port answered, an
// ICMP echo (the system's ping, where it is installed and allowed) may still prove it. The name
// comes from the system resolver (getnameinfo: hosts file, then DNS). Endpoints of the service's
// own stores are never probed.
import { execFile } from 'node:child_process';
import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { RunError } from '../../run-record.js';

export interface SweepOptions {
  ports: number[];
  timeoutMs: number;
  /** host:port pairs never to connect to. */
  excluded: Set<string>;
  /** Send an ICMP echo where no port answered. */
  icmp: boolean;
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

function probe(ip: string, port: number, timeoutMs: number): Promise<PortState> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: ip, port });
    const done = (state: PortState) => {
      socket.destroy();
      resolve(state);
    };
    socket.setTimeout(timeoutMs, () => done('silent'));
    socket.once('connect', () => done('open'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'closed' : 'silent'));
  });
}

/** How long an unanswered ICMP echo waits: ping(8) counts in whole seconds. */
export function echoWaitMs(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000)) * 1000;
}

/** One ICMP echo through ping(8); false when it gets no reply or ping is missing or not allowed. */
function echo(ip: string, timeoutMs: number): Promise<boolean> {
  const args = ['-n', '-q', '-c', '1', '-W', String(echoWaitMs(timeoutMs) / 1000), ip];
  return new Promise((resolve) => {
    execFile('ping', args, { timeout: timeoutMs + 1000 }, (error) => resolve(!error));
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

export async function sweep(address: string, { ports, timeoutMs, excluded, icmp }: SweepOptions): Promise<SweepResult> {
  let ip = address;
  if (!net.isIP(address)) {
    const found = await withTimeout(dns.lookup(address).catch(() => undefined), timeoutMs);
    if (!found) {
      return { address, responding: false, openPorts: [], error: { address, method: 'SWEEP', stage: 'resolve', code: 'DNS_FAILURE', message: `${address} does not resolve to an address` } };
    }
    ip = found.address;
  }
  const probed = ports.filter((port) => !excluded.has(`${ip}:${port}`));
  const states = await Promise.all(probed.map((port) => probe(ip, port, timeoutMs)));
  const openPorts = probed.filter((_, i) => states[i] === 'open');
  const responding = states.some((s) => s !== 'silent') || (icmp && (await echo(ip, timeoutMs)));
  let hostname: string | undefined;
  if (responding) {
    const name = await withTimeout(dns.lookupService(ip, 0).then((r) => r.hostname).catch(() => undefined), timeoutMs);
    if (name && !net.isIP(name)) hostname = name.toLowerCase();
  }
  return { address, ip, responding, openPorts, hostname };
}
