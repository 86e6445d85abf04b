// The names the transferred zones give each address, as pure functions: the owners of its A and
// AAAA records, the aliases (CNAME, followed up to MAX_ALIAS_HOPS within the zones read) that lead
// to them, and its PTR names. Each address's FQDN is its PTR name, else its one forward name that
// names no other address (a name on several addresses is a service's, not a host's); all its
// names are `dnsNames`. Wildcards and addresses that name no host (loopback, link-local,
// unspecified) are left out.
import { normaliseIp } from '../../../inventory/asset-identity.js';
import type { DnsRecord } from './dns-message.js';

const MAX_ALIAS_HOPS = 8;
/** Names listed per address in dnsNames; the count of the rest follows. */
const MAX_NAMES_LISTED = 20;

export interface NamedAddress {
  address: string;
  /** Owners of its A/AAAA records. */
  forward: string[];
  /** Names that lead to it through CNAMEs. */
  aliases: string[];
}

/** Each address the zones' A and AAAA records name, with the names that lead to it, in address order. */
export function namedAddresses(records: DnsRecord[]): NamedAddress[] {
  const byName = new Map<string, Set<string>>();
  const byAddress = new Map<string, { forward: Set<string>; aliases: Set<string> }>();
  const cnames = new Map<string, string>();
  for (const record of records) {
    if (record.name.startsWith('*')) continue;
    if (record.data.type === 'CNAME') cnames.set(record.name, record.data.target);
    if (record.data.type !== 'A' && record.data.type !== 'AAAA') continue;
    const address = normaliseIp(record.data.address);
    if (!address) continue;
    byName.set(record.name, (byName.get(record.name) ?? new Set()).add(address));
    const entry = byAddress.get(address) ?? { forward: new Set<string>(), aliases: new Set<string>() };
    entry.forward.add(record.name);
    byAddress.set(address, entry);
  }
  for (const alias of cnames.keys()) {
    let name = alias;
    for (let hop = 0; hop < MAX_ALIAS_HOPS && cnames.has(name); hop++) name = cnames.get(name) as string;
    for (const address of byName.get(name) ?? []) byAddress.get(address)?.aliases.add(alias);
  }
  return [...byAddress]
    .map(([address, { forward, aliases }]) => ({ address, forward: [...forward].sort(), aliases: [...aliases].filter((a) => !forward.has(a)).sort() }))
    .sort((a, b) => compareAddresses(a.address, b.address));
}

/** IPv4 before IPv6, each in numeric order. */
function compareAddresses(a: string, b: string): number {
  const key = (ip: string) => (ip.includes(':') ? `6${ip.split(':').map((g) => g.padStart(4, '0')).join('')}` : `4${ip.split('.').map((o) => o.padStart(3, '0')).join('')}`);
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/** The names on more than one address (round-robin, service names). */
export function sharedNames(addresses: NamedAddress[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const { forward } of addresses) for (const name of forward) (seen.has(name) ? shared : seen).add(name);
  return shared;
}

/** The facts of an address: its FQDN (its PTR name, else its one forward name of its own) and all its names. */
export function addressNameFacts(named: NamedAddress, ptrNames: string[], shared: Set<string>): { fqdn?: string; attributes: Record<string, string> } {
  const own = named.forward.filter((n) => !shared.has(n));
  const fqdn = [...ptrNames].sort()[0] ?? (own.length === 1 ? own[0] : undefined);
  const names = [...new Set([...ptrNames, ...named.forward, ...named.aliases])].sort();
  const listed = names.slice(0, MAX_NAMES_LISTED).join(',') + (names.length > MAX_NAMES_LISTED ? ` (+${names.length - MAX_NAMES_LISTED})` : '');
  return { ...(fqdn ? { fqdn } : {}), attributes: { dnsNames: listed } };
}

/** The name of an address in the reverse tree (in-addr.arpa or ip6.arpa). */
export function reverseName(address: string): string {
  if (!address.includes(':')) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  const groups = address.split('::');
  const head = (groups[0] ?? '').split(':').filter(Boolean);
  const tail = (groups[1] ?? '').split(':').filter(Boolean);
  const full = [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail].map((g: string) => g.padStart(4, '0')).join('');
  return `${full.split('').reverse().join('.')}.ip6.arpa`;
}

/** The PTR records of the zones read, by their name in the reverse tree (reverseName). */
export function ptrNamesByReverseName(records: DnsRecord[]): Map<string, string[]> {
  const byReverse = new Map<string, string[]>();
  for (const record of records) if (record.data.type === 'PTR') byReverse.set(record.name, [...(byReverse.get(record.name) ?? []), record.data.target]);
  return byReverse;
}
