// The addresses of a discovery target: IPs, CIDRs, ranges and host names, as pure functions.
// CIDRs and ranges are expanded lazily, and cut into a run's chunks without expanding them; the
// count is known without expanding them. An address is
// written canonically: a numeric form that resolvers read as another address (0x7f.1, 2130706433,
// 127.1 and 0177.0.0.1 are all 127.0.0.1 to inet_aton, and so to ssh or ping) is refused with the
// address it stands for, so that no target hides what it reaches; 0.0.0.0/8 and :: are refused too,
// as a connection to them reaches the service's own host.
import net from 'node:net';

export type AddressKind = 'IP' | 'CIDR' | 'RANGE' | 'HOSTNAME';

export interface ParsedAddress {
  text: string;
  kind: AddressKind;
  /** How many addresses it stands for (a host name counts one). */
  count: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

// A host name's last label is never a number (RFC 1123 2.1, RFC 3696 2): such a name is numeric.
const NUMERIC_LABEL = /^(\d+|0x[0-9a-f]*)$/i;
const SELF = 'reaches the service\'s own host (0.0.0.0/8 and :: mean "this host"): write 127.0.0.1 or ::1 if that is meant';
const NOT_NUMERIC = 'not an IPv4 address (four parts of 0 to 255 without leading zeros) nor a host name (its last label is a number)';
const FIRST_OUTSIDE_THIS_NETWORK = 2 ** 24;

/** The address inet_aton reads in a numeric host: 1 to 4 parts, decimal, octal (0...) or hexadecimal (0x...), the last filling the bytes left. */
function inetAton(text: string): number | undefined {
  const values: number[] = [];
  for (const part of text.split('.')) {
    if (/^0x[0-9a-f]*$/i.test(part)) values.push(part.length === 2 ? 0 : parseInt(part.slice(2), 16));
    else if (/^0[0-7]*$/.test(part)) values.push(parseInt(part, 8));
    else if (/^[1-9]\d*$/.test(part)) values.push(Number(part));
    else return undefined;
  }
  const last = values.pop() as number;
  if (values.length > 3 || values.some((v) => v > 255) || last >= 2 ** (8 * (4 - values.length))) return undefined;
  return values.reduce((n, v, i) => n + v * 2 ** (8 * (3 - i)), 0) + last;
}

/** An IPv6 address as RFC 5952 writes it (lower case, the longest run of zeros as ::), an IPv4-mapped one with its dotted quad. */
function canonicalIpv6(value: string): string {
  if (value.includes('%')) return value.toLowerCase();
  const canonical = new URL(`http://[${value}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  return mapped ? `::ffff:${intToIpv4(parseInt(mapped[1] as string, 16) * 65_536 + parseInt(mapped[2] as string, 16))}` : canonical;
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** First and last address of an IPv4 CIDR or range; network and broadcast excluded below /31. */
function ipv4Bounds(text: string): [number, number] | undefined {
  const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(0|[1-9]\d?)$/.exec(text);
  if (cidr && net.isIPv4(cidr[1] as string) && Number(cidr[2]) <= 32) {
    const bits = Number(cidr[2]);
    const size = 2 ** (32 - bits);
    const base = Math.floor(ipv4ToInt(cidr[1] as string) / size) * size;
    return bits >= 31 ? [base, base + size - 1] : [base + 1, base + size - 2];
  }
  const range = /^(\d{1,3}(?:\.\d{1,3}){3})-(\d{1,3}(?:\.\d{1,3}){3}|0|[1-9]\d{0,2})$/.exec(text);
  if (range && net.isIPv4(range[1] as string)) {
    const first = ipv4ToInt(range[1] as string);
    const end = range[2] as string;
    const last = end.includes('.') ? (net.isIPv4(end) ? ipv4ToInt(end) : NaN) : Math.floor(first / 256) * 256 + Number(end);
    return Number.isFinite(last) && last >= first && (end.includes('.') || Number(end) <= 255) ? [first, last] : undefined;
  }
  return undefined;
}

/** What an address entry is and how many addresses it holds; why it is none, when it is none. */
export function parseAddress(text: string): ParsedAddress | string {
  const value = text.trim();
  const family = net.isIP(value);
  if (family === 4) return ipv4ToInt(value) < FIRST_OUTSIDE_THIS_NETWORK ? SELF : { text: value, kind: 'IP', count: 1 };
  if (family === 6) {
    const canonical = canonicalIpv6(value);
    return canonical === '::' ? SELF : { text: canonical, kind: 'IP', count: 1 };
  }
  const bounds = ipv4Bounds(value);
  if (bounds) return bounds[0] < FIRST_OUTSIDE_THIS_NETWORK ? SELF : { text: value, kind: value.includes('/') ? 'CIDR' : 'RANGE', count: bounds[1] - bounds[0] + 1 };
  if (value.includes('/') || (value.includes('-') && /^[\d.]+-/.test(value))) return 'not a valid IPv4 CIDR or range (IPv6 is taken as single addresses)';
  if (NUMERIC_LABEL.test(value.split('.').at(-1) as string)) {
    const read = inetAton(value);
    return read === undefined ? NOT_NUMERIC : `a numeric form that is no canonical address: resolvers read it as ${intToIpv4(read)}; write ${intToIpv4(read)}`;
  }
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

/** A run's slice of a target: its entries (an IPv4 slice written as a range), its size, and its first and last address to name it. */
export interface AddressChunk {
  entries: string[];
  size: number;
  first: string;
  last: string;
}

/** The entries cut into chunks of at most `size` addresses, in order, without expanding a range. */
export function* chunkAddresses(entries: ParsedAddress[], size: number): Generator<AddressChunk> {
  let chunk: AddressChunk | undefined;
  for (const entry of entries) {
    const [from, to] = entry.kind === 'IP' || entry.kind === 'HOSTNAME' ? [undefined, undefined] : (ipv4Bounds(entry.text) as [number, number]);
    for (let next = from; next === undefined || next <= (to as number); ) {
      chunk ??= { entries: [], size: 0, first: '', last: '' };
      let text = entry.text;
      let count = 1;
      let [first, last] = [text, text];
      if (next !== undefined) {
        const end = Math.min(to as number, next + size - chunk.size - 1);
        [first, last] = [intToIpv4(next), intToIpv4(end)];
        [text, count] = [`${first}-${last}`, end - next + 1];
        next = end + 1;
      }
      chunk.entries.push(text);
      if (chunk.size === 0) chunk.first = first;
      chunk.last = last;
      chunk.size += count;
      if (chunk.size === size) {
        yield chunk;
        chunk = undefined;
      }
      if (next === undefined) break;
    }
  }
  if (chunk) yield chunk;
}
