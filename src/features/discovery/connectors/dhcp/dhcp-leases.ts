// The leases of a Kea DHCPv4 server as facts, as pure functions. Each lease is checked field by
// field (an IPv4 address, a 6-octet MAC, a host name that is a DNS name, times in range): a lease
// that fails is left out and counted, never the page. The leases are then grouped by client (its
// MAC): a client with an active lease (state default, not yet expired) is an asset at the address
// of its latest one, with its MAC, its active addresses and the name it gave, and one fact per
// lease it holds (dhcpLease:<address>: the MAC-to-address history). An expired, reclaimed or
// released lease is history only: it adds its fact to a client that is active in the same read,
// but it never makes an asset, an address or a seen-time (it is no evidence that a host is alive
// now). A declined lease (an address a client found in use) names no client and is left out.
import net from 'node:net';
import { normaliseFqdn, normaliseIp, normaliseMac } from '../../../inventory/asset-identity.js';
import type { AddressFacts } from '../../host-observation.js';

/** Kea's lease states (src/lib/dhcpsrv/lease.h). */
const STATE_DEFAULT = 0;
const STATE_DECLINED = 1;
/** A valid-lft of 0xffffffff: a lease that never expires. */
const INFINITE = 0xffffffff;
const MAX_U32 = 0xffffffff;
/** The lease facts kept per client in one read, its latest first. */
export const MAX_LEASES_PER_CLIENT = 16;
/** The evidence fact of a lease, by its address. */
export const LEASE_FACT_PREFIX = 'dhcpLease:';

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

export interface Lease {
  address: string;
  mac: string;
  /** The name the client gave (option 12 or 81), in lower case without a final dot; none if it gave none. */
  name?: string;
  /** Client last transaction time (epoch seconds). */
  cltt: number;
  validLifetime: number;
  state: number;
}

/** A lease, a declined address, or why the lease is not valid (and its address, when that is an IPv4 address). */
export type ParsedLease = { lease: Lease } | { declined: true } | { invalid: string; address?: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const u32 = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_U32;

/** A name that is a DNS name: labels of letters, digits, hyphens and underscores, 253 characters at most. */
export function cleanName(value: string): string | undefined {
  const name = value.toLowerCase().replace(/\.$/, '');
  return name.length > 0 && name.length <= 253 && name.split('.').every((l) => LABEL.test(l)) ? name : undefined;
}

/** One lease of lease4-get-page, checked field by field; `invalid` says which field failed (without the value). */
export function parseLease(raw: unknown): ParsedLease {
  if (!isObject(raw)) return { invalid: 'a lease that is not an object' };
  const address = raw['ip-address'];
  if (typeof address !== 'string' || !net.isIPv4(address) || !normaliseIp(address)) return { invalid: 'a lease without a usable IPv4 address' };
  const state = raw.state ?? STATE_DEFAULT;
  const invalid = (why: string) => ({ invalid: `the lease of ${address} ${why}`, address });
  if (!u32(state)) return invalid('has a state that is not a number');
  if (state === STATE_DECLINED) return { declined: true };
  const hw = raw['hw-address'];
  const mac = typeof hw === 'string' && MAC.test(hw) ? normaliseMac(hw) : undefined;
  if (!mac) return invalid('has no 6-octet MAC address');
  const { cltt, 'valid-lft': validLifetime, hostname } = raw;
  if (!u32(cltt) || !u32(validLifetime)) return invalid('has times out of range');
  if (hostname !== undefined && typeof hostname !== 'string') return invalid('has a host name that is not text');
  const name = hostname ? cleanName(hostname) : undefined;
  if (hostname && !name) return invalid('has a host name that is no DNS name');
  return { lease: { address, mac, ...(name ? { name } : {}), cltt, validLifetime, state } };
}

/** The end of a lease (epoch seconds), or undefined for one that never expires. */
const endOf = (lease: Lease) => (lease.validLifetime === INFINITE ? undefined : lease.cltt + lease.validLifetime);

/** Held by its client now: in the default state, and not expired at `now` (epoch seconds). */
export function isActive(lease: Lease, now: number): boolean {
  const end = endOf(lease);
  return lease.state === STATE_DEFAULT && (end === undefined || end > now);
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The evidence fact of a lease: its MAC, the name given, when it began (last transaction) and ends (null: never). */
export function leaseFact(lease: Lease): Record<string, unknown> {
  const end = endOf(lease);
  return { macAddress: lease.mac, ...(lease.name ? { hostname: lease.name } : {}), start: iso(lease.cltt), end: end === undefined ? null : iso(end) };
}

const byLatest = (a: Lease, b: Lease) => b.cltt - a.cltt || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

/** Each client with an active lease, as the facts of the address of its latest one. */
export function clientFacts(leases: Lease[], now: number): AddressFacts['addresses'] {
  const byMac = new Map<string, Lease[]>();
  for (const lease of leases) byMac.set(lease.mac, [...(byMac.get(lease.mac) ?? []), lease]);
  const entries: AddressFacts['addresses'] = [];
  for (const [mac, own] of byMac) {
    const active = own.filter((l) => isActive(l, now)).sort(byLatest);
    const latest = active[0];
    if (!latest) continue;
    const name = active.find((l) => l.name)?.name;
    const fqdn = name?.includes('.') ? normaliseFqdn(name) : undefined;
    const kept = [...active, ...own.filter((l) => !isActive(l, now)).sort(byLatest)].slice(0, MAX_LEASES_PER_CLIENT);
    entries.push({
      address: latest.address,
      ipAddresses: active.slice(0, MAX_LEASES_PER_CLIENT).map((l) => l.address).sort(),
      macAddresses: [mac],
      ...(name ? { hostname: name.split('.')[0] as string } : {}),
      ...(fqdn ? { fqdn } : {}),
      attributes: {},
      evidence: Object.fromEntries(kept.map((l) => [`${LEASE_FACT_PREFIX}${l.address}`, leaseFact(l)])),
    });
  }
  return entries.sort((a, b) => (a.address < b.address ? -1 : 1));
}
