// What the kernel dropped on a UDP socket before the collector read it (receive buffer full): the
// `drops` column of /proc/net/udp (udp6 for IPv6 sockets), the socket's own count since it was
// opened. Read when /metrics is scraped; undefined where there is no such file (not Linux).
import { readFileSync } from 'node:fs';

export function udpSocketDrops(port: number, ipv6: boolean): number | undefined {
  let table: string;
  try {
    table = readFileSync(ipv6 ? '/proc/net/udp6' : '/proc/net/udp', 'utf8');
  } catch {
    return undefined;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of table.split('\n').slice(1)) {
    // sl, local_address (ADDRESS:PORT in hex), rem_address, st, ..., inode, ref, pointer, drops.
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 13 && fields[1]?.endsWith(`:${hexPort}`)) return Number(fields[fields.length - 1]);
  }
  return undefined;
}
