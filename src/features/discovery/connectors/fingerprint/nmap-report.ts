// nmap's XML report (-oX) of one address, as a pure function: whether the host was up or timed
// out, its MAC where it is on our link, each open port with the service -sV named (product,
// version, device type, the scripts' output), and the OS classes -O matched. The report is
// untrusted text: every string is cleaned and capped (untrusted-text.ts), and at most MAX_PORTS open
// ports and MAX_OS_CLASSES OS classes are kept (more is `truncated`).
import { XMLParser } from 'fast-xml-parser';
import { cleanText } from '../../untrusted-text.js';

export const MAX_PORTS = 256;
const MAX_OS_CLASSES = 32;
const MAX_SCRIPT_OUTPUT = 1024;

export interface NmapService {
  protocol: 'tcp' | 'udp';
  port: number;
  /** nmap's service name (its table's when -sV found none). */
  name?: string;
  product?: string;
  version?: string;
  extrainfo?: string;
  /** The OS -sV read from the banner (OpenSSH's "Debian"), and the device type of its match (printer, switch, ...). */
  ostype?: string;
  devicetype?: string;
  /** probed: a probe's answer matched; table: only the port's usual service. */
  method?: string;
  /** Script id → output (snmp-sysdescr). */
  scripts: Record<string, string>;
}

export interface NmapOsClass {
  type?: string;
  vendor?: string;
  osfamily?: string;
  osgen?: string;
  accuracy: number;
}

export interface NmapHost {
  state: 'up' | 'down' | 'missing';
  /** nmap's host time-out ended the scan: the report is partial. */
  timedOut: boolean;
  mac?: string;
  macVendor?: string;
  ports: NmapService[];
  osClasses: NmapOsClass[];
  /** More open ports (or OS classes) than kept. */
  truncated: boolean;
}

const ARRAY_TAGS = new Set(['host', 'address', 'port', 'script', 'osmatch', 'osclass', 'elem', 'table', 'cpe']);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, processEntities: true, htmlEntities: true, isArray: (name) => ARRAY_TAGS.has(name) });

type Node = Record<string, unknown>;
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? value.filter((v): v is Node => typeof v === 'object' && v !== null) : []);
const child = (value: unknown): Node | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Node) : undefined);
const attr = (node: Node | undefined, name: string, max?: number) => cleanText(node?.[`@${name}`], max);

/** The report of a scan of one address; undefined when it is not nmap's XML. */
export function parseNmapReport(xml: string): NmapHost | undefined {
  let document: Node;
  try {
    document = parser.parse(xml) as Node;
  } catch {
    return undefined;
  }
  const run = child(document.nmaprun);
  if (!run) return undefined;
  const host = nodes(run.host)[0];
  if (!host) return { state: 'missing', timedOut: false, ports: [], osClasses: [], truncated: false };
  const status = attr(child(host.status), 'state');
  const mac = nodes(host.address).find((a) => attr(a, 'addrtype') === 'mac');
  const open = nodes(child(host.ports)?.port).filter((p) => attr(child(p.state), 'state') === 'open');
  const ports = open.slice(0, MAX_PORTS).flatMap((p): NmapService[] => {
    const protocol = attr(p, 'protocol');
    const port = Number(attr(p, 'portid'));
    if ((protocol !== 'tcp' && protocol !== 'udp') || !Number.isInteger(port) || port < 1 || port > 65535) return [];
    const service = child(p.service);
    const scripts = Object.fromEntries(nodes(p.script).flatMap((s) => {
      const id = attr(s, 'id', 64);
      const output = attr(s, 'output', MAX_SCRIPT_OUTPUT);
      return id && output ? [[id, output]] : [];
    }));
    const fields = { name: attr(service, 'name', 128), product: attr(service, 'product', 128), version: attr(service, 'version', 128), extrainfo: attr(service, 'extrainfo', 256), ostype: attr(service, 'ostype', 64), devicetype: attr(service, 'devicetype', 64), method: attr(service, 'method', 16) };
    return [{ protocol, port, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), scripts }];
  });
  const classes = nodes(child(host.os)?.osmatch).flatMap((m) => nodes(m.osclass));
  const osClasses = classes.slice(0, MAX_OS_CLASSES).map((c): NmapOsClass => {
    const fields = { type: attr(c, 'type', 64), vendor: attr(c, 'vendor', 64), osfamily: attr(c, 'osfamily', 64), osgen: attr(c, 'osgen', 32) };
    return { ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), accuracy: Math.min(100, Math.max(0, Number(attr(c, 'accuracy')) || 0)) };
  });
  return {
    state: status === 'up' ? 'up' : 'down',
    timedOut: attr(host, 'timedout') === 'true',
    ...(mac ? { mac: attr(mac, 'addr', 64), ...(attr(mac, 'vendor') ? { macVendor: attr(mac, 'vendor', 128) } : {}) } : {}),
    ports,
    osClasses,
    truncated: open.length > MAX_PORTS || classes.length > MAX_OS_CLASSES,
  };
}
