// The addresses of a discovery target: IPs, CIDRs, ranges and host names, as pure functions.
// CIDRs and ranges are expanded lazily; the count is known without expanding them.
import net from 'node:net';

export type AddressKind = 'IP' | 'CIDR' | 'RANGE' | 'HOSTNAME';

export interface ParsedAddress {
  text: string;
  kind: AddressKind;
  /** How many addresses it stands for (a host name counts one). */
  count: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** First and last address of an IPv4 CIDR or range; network and broadcast excluded below /31. */
function ipv4Bounds(text: string): [number, number] | undefined {
  const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text);
  if (cidr && net.isIPv4(cidr[1] as string) && Number(cidr[2]) <= 32) {
    const bits = Number(cidr[2]);
    const size = 2 ** (32 - bits);
    const base = Math.floor(ipv4ToInt(cidr[1] as string) / size) * size;
    return bits >= 31 ? [base, base + size - 1] : [base + 1, base + size - 2];
  }
  const range = /^(\d{1,3}(?:\.\d{1,3}){3})-(\d{1,3}(?:\.\d{1,3}){3}|\d{1,3})$/.exec(text);
  if (range && net.isIPv4(range[1] as string)) {
    const first = ipv4ToInt(range[1] as string);
    const end = range[2] as string;
    const last = end.includes('.') ? (net.isIPv4(end) ? ipv4ToInt(end) : NaN) : Math.floor(first / 256) * 256 + Number(end);
    return Number.isFinite(last) && last >= first && (end.includes('.') || Number(end) <= 255) ? [first, last] : undefined;
  }
  return undefined;
}

/** What an address entry is and how many addresses it holds; an error message when it is neither. */
export function parseAddress(text: string): ParsedAddress | string {
  const value = text.trim();
  if (net.isIP(value)) return { text: value, kind: 'IP', count: 1 };
  const bounds = ipv4Bounds(value);
  if (bounds) return { text: value, kind: value.includes('/') ? 'CIDR' : 'RANGE', count: bounds[1] - bounds[0] + 1 };
  if (value.includes('/') || (value.includes('-') && /^[\d.]+-/.test(value))) return 'not a valid IPv4 CIDR or range (IPv6 is taken as single addresses)';
  if (HOSTNAME.test(value)) return { text: value.toLowerCase(), kind: 'HOSTNAME', count: 1 };
  return 'not an IP address, a CIDR, a range or a host name';
}

/** Every address of the entries, in order, without building the whole list. */
export function* expandAddresses(entries: ParsedAddress[]): Generator<string> {
  for (const entry of entries) {
    if (entry.kind === 'IP' || entry.kind === 'HOSTNAME') {
      yield entry.text;
      continue;
    }
    const [first, last] = ipv4Bounds(entry.text) as [number, number];
    for (let n = first; n <= last; n++) yield intToIpv4(n);
  }
}
