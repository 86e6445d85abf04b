// Whether a credential's match pattern covers an address: a CIDR or an IP against the address,
// a host name pattern (* and ? wildcards, case-insensitive) against its host name. And whether a
// pattern is broad: a credential is offered to every address its patterns cover that answers, a
// rogue host too, so a pattern wider than the broad-match settings, or a host name pattern that
// leaves the domain open, is taken only from a credential with allowBroadMatch.
import net from 'node:net';

/** The widest CIDRs a credential may match without allowBroadMatch (service.credentials.broad-match-ipv4-prefix, -ipv6-prefix). */
export interface BroadMatchLimits {
  ipv4Prefix: number;
  ipv6Prefix: number;
}

const WILDCARD = /[*?]/;

/** Why a valid match pattern is broad, or undefined when it is not. */
export function broadMatch(pattern: string, limits: BroadMatchLimits): string | undefined {
  const slash = pattern.indexOf('/');
  if (slash >= 0) {
    const family = net.isIP(pattern.slice(0, slash)) === 6 ? 6 : 4;
    const bits = Number(pattern.slice(slash + 1));
    const widest = family === 6 ? limits.ipv6Prefix : limits.ipv4Prefix;
    if (bits >= widest) return undefined;
    return `${pattern} covers ${2n ** BigInt((family === 6 ? 128 : 32) - bits)} addresses, wider than a /${widest} (service.credentials.broad-match-ipv${family}-prefix)`;
  }
  if (net.isIP(pattern) || !WILDCARD.test(pattern)) return undefined;
  const labels = pattern.split('.');
  if (labels.length >= 3 && !labels.slice(-2).some((l) => WILDCARD.test(l))) return undefined;
  return `${pattern} leaves the domain open (a host name pattern with * or ? must end in two labels without them, as *.lab.example.com does)`;
}

function wildcard(pattern: string): RegExp {
  const body = pattern.toLowerCase().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^.]*').replace(/\?/g, '[^.]');
  return new RegExp(`^${body}$`);
}

export function patternCovers(pattern: string, ip: string | undefined, hostname: string | undefined): boolean {
  const family = ip ? net.isIP(ip) : 0;
  const slash = pattern.indexOf('/');
  const base = slash >= 0 ? pattern.slice(0, slash) : pattern;
  const baseFamily = net.isIP(base);
  if (slash >= 0 || baseFamily) {
    if (!ip || baseFamily !== family) return false;
    const list = new net.BlockList();
    const type = family === 6 ? 'ipv6' : 'ipv4';
    // An IP is compared as an address, not as text: "2001:db8::1" is also "2001:db8:0:0::1".
    if (slash >= 0) list.addSubnet(base, Number(pattern.slice(slash + 1)), type);
    else list.addAddress(base, type);
    return list.check(ip, type);
  }
  return hostname !== undefined && wildcard(pattern).test(hostname.toLowerCase());
}
