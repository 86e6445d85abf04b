// Our own classification of what answers at an address, from nmap's report (nmap-report.ts), as
// pure functions. Each rule that fires is evidence for one device class with a weight (how often
// that sign alone names the class); a class's confidence is 1 - Π(1 - weight) over its evidence,
// and the class with the highest confidence wins (ties in CLASSES order). A Linux server that
// shares a printer over IPP and answers SSH stays a HOST: its SSH banner and OS outweigh one
// printer port. The rules, with their weights, are listed in docs/discovery.md.
import type { ObservedService, ObservedType } from '../../host-observation.js';
import type { NmapHost, NmapService } from './nmap-report.js';

export const DEVICE_CLASSES = ['PRINTER', 'NETWORK_DEVICE', 'IOT_DEVICE', 'HOST'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/**
 * The asset type of each class. The network cannot tell a physical host from a virtual one, so a
 * HOST is a SERVER until a credentialed source (SSH, ranked higher) says PHYSICAL_HOST, VM or CONTAINER.
 */
export const ASSET_TYPE_OF: Record<DeviceClass, ObservedType> = { PRINTER: 'PRINTER', NETWORK_DEVICE: 'NETWORK_DEVICE', IOT_DEVICE: 'IOT_DEVICE', HOST: 'SERVER' };

export interface Evidence {
  rule: string;
  deviceClass: DeviceClass;
  weight: number;
  /** What fired it: a port and what answered there, or an OS class. */
  detail: string;
}

export interface Classification {
  deviceClass?: DeviceClass;
  confidence?: number;
  /** The evidence for the class chosen, strongest first. */
  evidence: Evidence[];
  /** Evidence for the other classes (it lost). */
  against: Evidence[];
  osFamily?: string;
  /** The distribution a banner names (OpenSSH's "Debian"). */
  osName?: string;
  osEvidence?: string;
}

// nmap's device types (its -sV matches' d// and -O's osclass type) by the class they name.
const DEVICE_TYPES: Record<string, DeviceClass> = {
  printer: 'PRINTER',
  switch: 'NETWORK_DEVICE', router: 'NETWORK_DEVICE', 'broadband router': 'NETWORK_DEVICE', firewall: 'NETWORK_DEVICE', WAP: 'NETWORK_DEVICE', 'load balancer': 'NETWORK_DEVICE', bridge: 'NETWORK_DEVICE', hub: 'NETWORK_DEVICE',
  webcam: 'IOT_DEVICE', 'media device': 'IOT_DEVICE', 'power-device': 'IOT_DEVICE', phone: 'IOT_DEVICE', 'security-misc': 'IOT_DEVICE', 'specialized': 'IOT_DEVICE', 'game console': 'IOT_DEVICE',
  'general purpose': 'HOST',
};
// A sysDescr that a network device gives (vendors' operating systems and the words they use).
const NETWORK_SYSDESCR = /\b(switch|router|routing|firewall|access point|catalyst|ios|nx-os|junos|routeros|eos|procurve|aruba|fortigate|fortios|pan-os|edgeos|vyos|openwrt|cumulus|sonic)\b/i;
const DISTRIBUTIONS = /\b(Debian|Ubuntu|Raspbian|CentOS|Red ?Hat|Fedora|SUSE|Alpine|FreeBSD|OpenBSD|NetBSD)\b/i;
// Services that a general-purpose server runs, seldom an appliance.
const SERVER_SERVICES = new Set(['postgresql', 'mysql', 'ms-sql-s', 'oracle-tns', 'mongodb', 'microsoft-ds', 'netbios-ssn', 'ms-wbt-server', 'ldap', 'kerberos-sec', 'nfs', 'rpcbind']);

const describe = (s: NmapService) => `${s.protocol}/${s.port} ${s.name ?? 'unknown'}${s.product ? ` (${[s.product, s.version].filter(Boolean).join(' ')})` : ''}`;

function portEvidence(s: NmapService, onlySnmp: boolean): Evidence[] {
  const out: Evidence[] = [];
  const add = (rule: string, deviceClass: DeviceClass, weight: number, detail = describe(s)) => out.push({ rule, deviceClass, weight, detail });
  const name = s.name ?? '';
  if (s.protocol === 'tcp') {
    if (name === 'ipp' || (s.port === 631 && !name)) add('IPP service', 'PRINTER', 0.7);
    if (name === 'jetdirect' || s.port === 9100) add('JetDirect (raw printing) port', 'PRINTER', 0.7);
    if (name === 'printer' || s.port === 515) add('LPD service', 'PRINTER', 0.5);
    if (/mqtt|mosquitto/i.test(name) || s.port === 1883 || s.port === 8883) add('MQTT service', 'IOT_DEVICE', 0.7);
    if (name === 'ssh' && (s.ostype || DISTRIBUTIONS.test(`${s.version ?? ''} ${s.extrainfo ?? ''}`))) add('SSH banner names an OS', 'HOST', 0.6);
    if (SERVER_SERVICES.has(name)) add('server service', 'HOST', 0.4);
  } else {
    if (name === 'coap' || s.port === 5683 || s.port === 5684) add('CoAP service', 'IOT_DEVICE', 0.7);
    const sysDescr = s.scripts['snmp-sysdescr']?.split(/\s+System uptime:/)[0]?.trim();
    if (sysDescr && NETWORK_SYSDESCR.test(sysDescr)) add('SNMP sysDescr of a network device', 'NETWORK_DEVICE', 0.8, `${describe(s)}: sysDescr "${sysDescr.slice(0, 200)}"`);
    if (onlySnmp && (name === 'snmp' || s.port === 161)) add('SNMP is all that answers', 'NETWORK_DEVICE', 0.5);
  }
  const byType = s.devicetype ? DEVICE_TYPES[s.devicetype] : undefined;
  if (byType && byType !== 'HOST') add(`service match's device type ${s.devicetype}`, byType, 0.9);
  return out;
}

const confidenceOf = (evidence: Evidence[]) => Math.round((1 - evidence.reduce((left, e) => left * (1 - e.weight), 1)) * 100) / 100;

/** The device class of a host nmap reported, its confidence and evidence, and its OS family. */
export function classify(host: NmapHost): Classification {
  const onlySnmp = host.ports.length > 0 && host.ports.every((s) => s.protocol === 'udp' && (s.name === 'snmp' || s.port === 161));
  const evidence = host.ports.flatMap((s) => portEvidence(s, onlySnmp));
  // The best OS class alone: the others are its near misses, not more evidence.
  const os = [...host.osClasses].sort((a, b) => b.accuracy - a.accuracy)[0];
  const osClass = os?.type ? DEVICE_TYPES[os.type] : undefined;
  if (os && osClass) {
    const weight = Math.round((osClass === 'HOST' ? 0.5 : 0.9) * (os.accuracy / 100) * 100) / 100;
    evidence.push({ rule: `OS detection's device type ${os.type}`, deviceClass: osClass, weight, detail: `${[os.vendor, os.osfamily, os.osgen].filter(Boolean).join(' ')} (${os.accuracy}%)` });
  }
  const scored = DEVICE_CLASSES.map((deviceClass) => ({ deviceClass, confidence: confidenceOf(evidence.filter((e) => e.deviceClass === deviceClass)) }));
  const best = scored.reduce((a, b) => (b.confidence > a.confidence ? b : a));
  const strongestFirst = (list: Evidence[]) => [...list].sort((a, b) => b.weight - a.weight);
  const ssh = host.ports.find((s) => s.name === 'ssh' && (s.ostype || DISTRIBUTIONS.test(`${s.version ?? ''} ${s.extrainfo ?? ''}`)));
  const distribution = ssh ? DISTRIBUTIONS.exec(`${ssh.version ?? ''} ${ssh.extrainfo ?? ''}`)?.[1] : undefined;
  const osFamily = os?.osfamily ?? ssh?.ostype ?? host.ports.find((s) => s.ostype)?.ostype;
  return {
    ...(best.confidence > 0 ? { deviceClass: best.deviceClass, confidence: best.confidence } : {}),
    evidence: best.confidence > 0 ? strongestFirst(evidence.filter((e) => e.deviceClass === best.deviceClass)) : [],
    against: strongestFirst(evidence.filter((e) => best.confidence === 0 || e.deviceClass !== best.deviceClass)),
    ...(osFamily ? { osFamily } : {}),
    ...(distribution ? { osName: distribution } : {}),
    ...(osFamily || distribution ? { osEvidence: distribution && ssh ? describe(ssh) : os?.osfamily ? `OS detection: ${[os.vendor, os.osfamily, os.osgen].filter(Boolean).join(' ')} (${os.accuracy}%)` : 'the OS a service banner names' } : {}),
  };
}

// The mqtt-subscribe script (run by -sV) puts the broker's $SYS/broker/version ("mosquitto version 2.0.11") in the service name.
const PRODUCT_IN_NAME = /^(\S+) version (\S+)$/;
const TOKEN = /^[A-Za-z0-9._+-]{1,64}$/;

/**
 * The DISCOVERED_SERVICE rows of the open ports: named `<service>:<port>` (`/udp` added for UDP),
 * the service being nmap's name for it, or its table's name for the port where nmap's is no name.
 */
export function servicesOf(host: NmapHost, tableName: (protocol: string, port: number) => string | undefined): ObservedService[] {
  return host.ports.map((s) => {
    const embedded = s.name && !TOKEN.test(s.name) ? PRODUCT_IN_NAME.exec(s.name) : undefined;
    const name = s.name && TOKEN.test(s.name) ? s.name : (tableName(s.protocol, s.port) ?? 'unknown');
    const product = s.product ?? embedded?.[1];
    const version = s.version ?? embedded?.[2];
    const display = [product, version].filter(Boolean).join(' ') || (s.name !== name ? s.name : undefined);
    return {
      serviceName: `${name}:${s.port}${s.protocol === 'udp' ? '/udp' : ''}`,
      ...(display ? { displayName: display } : {}),
      state: 'open',
      listenPorts: [{ protocol: s.protocol, port: s.port }],
      sourceConnector: 'FINGERPRINT',
      ...(product ? { product } : {}),
      ...(version ? { version } : {}),
    };
  });
}
