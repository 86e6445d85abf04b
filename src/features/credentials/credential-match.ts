// Whether a credential's match pattern covers an address: a CIDR or an IP against the address,
// a host name pattern (* and ? wildcards, case-insensitive) against its host name.
import net from 'node:net';

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
