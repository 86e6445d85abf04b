// The silent range lab: an address range of up to a /16 where a few hundred hosts answer and the
// rest are silent (dropped, not refused), for SWEEP's host discovery tests and benchmark. One
// network namespace reached from this machine through a veth pair (LINK_SUBNET), with a route for
// the range via the namespace's end. The hosts that exist are addresses on the namespace's
// loopback (its kernel answers ICMP echoes, and refuses connections to closed ports); some also
// accept connections on LISTEN_PORT (a small listener in the namespace). IP forwarding is off
// there, so every other address of the range is dropped without an answer. nftables counters in
// the namespace count what arrives from this machine: TCP SYNs and ICMP echo requests, the probes.
// Needs root. Keyed by LAB_INDEX like the other labs: 10.<200 + index - 1>.0.0/16, link
// 10.199.<index - 1>.0/30.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LAB_INDEX, sh, takeLock } from './lab-network.js';

/** Connections to this port are accepted at the listening hosts (SSH's, so that SWEEP's default list probes it). */
export const LISTEN_PORT = 22;
const NAMESPACE = `invsilent${LAB_INDEX}`;
const LINK = `invsilent${LAB_INDEX}`;
const LINK_SUBNET = `10.199.${LAB_INDEX - 1}`;
const LOCK = path.join(os.tmpdir(), `inventory-silent-range-${LAB_INDEX}.lock`);

export interface SilentRangeOptions {
  /** The range's prefix length: 16 (65,534 addresses) down to 24. */
  prefixLength?: number;
  /** How many addresses answer, spread evenly over the range. */
  hosts?: number;
  /** How many of those also accept connections on LISTEN_PORT. */
  listening?: number;
}

export interface SilentRange {
  /** The range in CIDR notation. */
  cidr: string;
  /** The addresses that answer (every one: ICMP echo, and a refusal or an accept on any port). */
  present: string[];
  /** The present addresses that accept connections on LISTEN_PORT. */
  listening: string[];
  /** The probes that reached the range so far: TCP SYNs and ICMP echo requests. */
  probes(): Promise<{ tcp: number; icmp: number }>;
  stop(): Promise<void>;
}

function ipv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

async function cleanUp(): Promise<void> {
  await sh(`ip netns pids ${NAMESPACE} 2>/dev/null | xargs -r kill -9; ip netns del ${NAMESPACE} 2>/dev/null; ip link del ${LINK} 2>/dev/null; true`);
}

export async function startSilentRange({ prefixLength = 16, hosts = 300, listening = 10 }: SilentRangeOptions = {}): Promise<SilentRange> {
  if (!Number.isInteger(prefixLength) || prefixLength < 16 || prefixLength > 24) throw new RangeError('prefixLength must be 16 to 24');
  const size = 2 ** (32 - prefixLength);
  if (!Number.isInteger(hosts) || hosts < 1 || hosts > size / 4) throw new RangeError(`hosts must be 1 to ${size / 4}`);
  if (!Number.isInteger(listening) || listening < 0 || listening > hosts) throw new RangeError('listening must be 0 to hosts');
  const base = ((10 << 24) | ((200 + LAB_INDEX - 1) << 16)) >>> 0;
  // Evenly spread, none the range's first or last address (network, broadcast).
  const present = Array.from({ length: hosts }, (_, i) => ipv4(base + 1 + Math.floor((i * (size - 2)) / hosts) + (i % 3)));
  const listeners = present.filter((_, i) => i % Math.floor(hosts / Math.max(1, listening)) === 0).slice(0, listening);

  await takeLock(LOCK, `the silent range lab ${LAB_INDEX}`);
  await cleanUp();
  let listener: ChildProcess | undefined;
  const stop = async () => {
    if (listener?.pid) process.kill(listener.pid, 'SIGKILL');
    await cleanUp();
    await rm(LOCK, { force: true });
  };
  try {
    await sh([
      `ip netns add ${NAMESPACE}`,
      `ip netns exec ${NAMESPACE} sysctl -qw net.ipv4.ip_forward=0`,
      `ip -n ${NAMESPACE} link set lo up`,
      `ip link add ${LINK} type veth peer name eth0 netns ${NAMESPACE}`,
      `ip addr add ${LINK_SUBNET}.1/30 dev ${LINK}`,
      `ip link set ${LINK} up`,
      `ip -n ${NAMESPACE} addr add ${LINK_SUBNET}.2/30 dev eth0`,
      `ip -n ${NAMESPACE} link set eth0 up`,
      `ip route replace ${ipv4(base)}/${prefixLength} via ${LINK_SUBNET}.2`,
    ].join(' && '));
    const batch = path.join(os.tmpdir(), `${NAMESPACE}-addresses`);
    await writeFile(batch, present.map((a) => `addr add ${a}/32 dev lo\n`).join(''));
    await sh(`ip -n ${NAMESPACE} -batch ${batch} && rm -f ${batch}`);
    await sh(`ip netns exec ${NAMESPACE} nft -f - <<'EOF'
table inet probes {
  chain arriving {
    type filter hook prerouting priority -300; policy accept;
    iifname "eth0" tcp flags & (syn | ack) == syn counter
    iifname "eth0" icmp type echo-request counter
  }
}
EOF`);
    if (listeners.length) {
      const script = `const net = require('node:net'); for (const host of ${JSON.stringify(listeners)}) net.createServer((s) => s.destroy()).listen(${LISTEN_PORT}, host);`;
      listener = spawn('ip', ['netns', 'exec', NAMESPACE, process.execPath, '-e', script], { stdio: 'ignore' });
      for (const end = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
        const listening = (await sh(`ip netns exec ${NAMESPACE} ss -Hltn sport = :${LISTEN_PORT}`)).split('\n').filter(Boolean).length;
        if (listening === listeners.length) break;
        if (Date.now() > end) throw new Error(`the silent range's listeners did not start (${listening} of ${listeners.length})`);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    cidr: `${ipv4(base)}/${prefixLength}`,
    present,
    listening: listeners,
    probes: async () => {
      const [tcp = 0, icmp = 0] = [...(await sh(`ip netns exec ${NAMESPACE} nft list table inet probes`)).matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
      return { tcp, icmp };
    },
    stop,
  };
}
