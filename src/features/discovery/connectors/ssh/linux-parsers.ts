// Pure parsers of the output of linux-commands.ts: text in, observation parts out. Every string
// taken from the host goes through cleanText (untrusted), and a line that does not parse is
// skipped rather than guessed at.
import type { ObservedConnection, ObservedInterface, ObservedNeighbor, ObservedPackage, ObservedProcess, ObservedService, ObservedType } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import { SECTION } from './linux-commands.js';

/** The "@@name" sections of a command's output, by name (another marker and name pattern for the connectors that mark their output with a nonce). */
export function sections(output: string, mark: string = SECTION, names = /^[a-z0-9-]+$/): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    if (name !== undefined) out.set(name, lines.join('\n').trim());
  };
  for (const line of output.split('\n')) {
    if (line.startsWith(mark) && names.test(line.trim().slice(mark.length))) {
      flush();
      name = line.trim().slice(mark.length);
      lines = [];
    } else lines.push(line);
  }
  flush();
  return out;
}

const lines = (text: string | undefined) => (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);

function keyValues(text: string | undefined, separator = '='): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines(text)) {
    const at = line.indexOf(separator);
    if (at > 0) out.set(line.slice(0, at).trim(), line.slice(at + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

export interface HostFacts {
  hostname?: string;
  fqdn?: string;
  assetType: ObservedType;
  vendor?: string;
  model?: string;
  serialNumber?: string;
  attributes: Record<string, string | number>;
}

// Values that firmware writes where it has no real serial number: worthless as identity.
const PLACEHOLDER_SERIALS = /^(|0+|none|n\/a|not specified|to be filled by o\.e\.m\.|default string|system serial number|0123456789|123456789)$/i;
const VM_PRODUCTS = /kvm|qemu|vmware|virtualbox|hvm domu|virtual machine|bochs|openstack|google compute engine|amazon ec2|firecracker/i;

/** Host name, OS, kernel, size, hardware identity and the physical/VM/container classification. */
export function parseFacts(output: string): HostFacts {
  const s = sections(output);
  const os = keyValues(s.get('os-release'));
  const dmi = keyValues(s.get('dmi'));
  const hostname = cleanText(lines(s.get('hostname'))[0], 255);
  const fqdnLine = cleanText(lines(s.get('fqdn'))[0], 255);
  const [kernelName, kernel, machine] = (lines(s.get('uname'))[0] ?? '').split(/\s+/);
  const cpus = Number(lines(s.get('cpus'))[0]);
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(s.get('meminfo') ?? '')?.[1]);
  const virt = lines(s.get('virt')).filter((v) => v !== 'none');
  const markers = lines(s.get('container-markers'));
  const product = cleanText(dmi.get('product_name'), 200);
  const serial = cleanText(dmi.get('product_serial'), 200);
  const hypervisorFlag = Number(lines(s.get('hypervisor-flag'))[0]) > 0;

  // systemd-detect-virt prints the container first; without it, the marker files tell.
  const CONTAINERS = /^(docker|podman|lxc|lxc-libvirt|systemd-nspawn|openvz|rkt|wsl|proot|pouch|container-other)$/;
  const container = virt.find((v) => CONTAINERS.test(v)) ?? markers[0];
  const vm = virt.find((v) => !CONTAINERS.test(v)) ?? (product && VM_PRODUCTS.test(product) ? product : hypervisorFlag ? 'hypervisor' : undefined);
  const assetType: ObservedType = container ? 'CONTAINER' : vm ? 'VM' : 'PHYSICAL_HOST';

  const attributes: Record<string, string | number> = {};
  const put = (key: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '' && !(typeof value === 'number' && !Number.isFinite(value))) attributes[key] = value;
  };
  put('osName', cleanText(os.get('NAME') ?? kernelName, 200));
  put('osVersion', cleanText(os.get('VERSION') ?? os.get('VERSION_ID'), 200));
  put('osId', cleanText(os.get('ID'), 64));
  put('kernel', cleanText(kernel, 200));
  put('architecture', cleanText(machine, 64));
  put('cpuCount', cpus > 0 ? cpus : undefined);
  put('memoryMb', memKb > 0 ? Math.round(memKb / 1024) : undefined);
  put('virtualization', cleanText(container ?? vm, 64));
  const fqdn = fqdnLine && fqdnLine.includes('.') ? fqdnLine.toLowerCase() : undefined;
  return {
    ...(hostname ? { hostname } : {}),
    ...(fqdn ? { fqdn } : {}),
    assetType,
    ...(cleanText(dmi.get('sys_vendor'), 200) ? { vendor: cleanText(dmi.get('sys_vendor'), 200) } : {}),
    ...(product ? { model: product } : {}),
    ...(serial && !PLACEHOLDER_SERIALS.test(serial) ? { serialNumber: serial } : {}),
    attributes,
  };
}

const publisherOf = (maintainer: string | undefined) => cleanText(maintainer?.replace(/\s*<[^>]*>\s*/g, ' '), 512);

/** Installed packages from dpkg-query, rpm or apk; undefined when no package manager answered. */
export function parsePackages(output: string): ObservedPackage[] | undefined {
  const s = sections(output);
  const dpkg = s.get('dpkg');
  if (dpkg !== undefined) {
    return lines(dpkg).flatMap((line) => {
      const [status, name, version, maintainer] = line.split('\t');
      // "ii" is installed; "rc" (removed, config left) and the others are not.
      if (!status?.startsWith('ii') || !name) return [];
      const packageName = cleanText(name, 512);
      return packageName ? [{ packageName, version: cleanText(version, 256) ?? null, publisher: publisherOf(maintainer) ?? null, packageManager: 'dpkg' }] : [];
    });
  }
  const rpm = s.get('rpm');
  if (rpm !== undefined) {
    return lines(rpm).flatMap((line) => {
      const [name, version, vendor, installed] = line.split('\t');
      const packageName = cleanText(name, 512);
      const seconds = Number(installed);
      const installDate = Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString().slice(0, 10) : null;
      return packageName && packageName !== 'gpg-pubkey'
        ? [{ packageName, version: cleanText(version, 256) ?? null, publisher: vendor && vendor !== '(none)' ? (cleanText(vendor, 512) ?? null) : null, installDate, packageManager: 'rpm' }]
        : [];
    });
  }
  const apk = s.get('apk');
  if (apk !== undefined) {
    // "musl-1.2.4-r2 x86_64 {musl} (MIT) [installed]": the version starts at the last "-" followed by a digit
    // (greedy: names hold "-<digit>" too, as "font-adobe-100dpi-1.0.4-r2").
    return lines(apk).flatMap((line) => {
      const match = /^(\S+)-(\d\S*)\s/.exec(line);
      const packageName = cleanText(match?.[1], 512);
      return packageName ? [{ packageName, version: cleanText(match?.[2], 256) ?? null, publisher: null, packageManager: 'apk' }] : [];
    });
  }
  return undefined;
}

export interface ProcessLine extends ObservedProcess {
  unit?: string;
}

// Session processes of sshd ("sshd: scan@notty", "sshd: scan [priv]"; "sshd-session:" since OpenSSH 9.8): our
// own connection. Not the listener above them, "sshd: /usr/sbin/sshd [listener] 0 of 10-100 startups" when run without options.
const SSH_SESSION = /^sshd(-session)?: \S+(@|\s\[priv\])/;

/**
 * Processes from `ps`, names from the second `ps` (comm may hold spaces, so it has a line of its
 * own), leaving out the connector's own ps and the sshd session processes above it.
 */
export function parseProcesses(psOutput: string, commOutput: string): ProcessLine[] {
  const s = sections(psOutput);
  const self = Number(lines(s.get('self'))[0]);
  const names = new Map<number, string>();
  for (const line of lines(sections(commOutput).get('comm'))) {
    const m = /^(\d+)\s+(.+)$/.exec(line);
    if (m) names.set(Number(m[1]), m[2] as string);
  }
  const all: ProcessLine[] = [];
  for (const line of lines(s.get('ps'))) {
    const m = /^(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    const args = cleanText(m[8], 65536);
    const processName = cleanText(names.get(pid), 512) ?? cleanText(args?.split(' ')[0]?.split('/').pop(), 512);
    if (!processName) continue;
    all.push({
      pid,
      ppid: Number(m[2]),
      processName,
      commandLine: args ?? null,
      username: cleanText(m[3], 256) ?? null,
      state: cleanText(m[4], 32) ?? null,
      memoryKb: Number(m[5]),
      cpuPercent: Number(m[6]),
      ...(m[7] !== '-' ? { unit: cleanText(m[7], 256) } : {}),
    });
  }
  const byPid = new Map(all.map((p) => [p.pid, p]));
  const own = new Set<number>([self]);
  for (let p = byPid.get(byPid.get(self)?.ppid ?? -1); p && SSH_SESSION.test(p.commandLine ?? ''); p = byPid.get(p.ppid ?? -1)) own.add(p.pid);
  return all.filter((p) => !own.has(p.pid));
}

export interface Socket {
  protocol: 'tcp' | 'udp' | 'tcp6' | 'udp6';
  localAddress: string;
  localPort: number;
  remoteAddress?: string;
  remotePort?: number;
  pid?: number;
  processName?: string;
}

/** "[::ffff:10.0.0.1]:22", "10.0.0.1:22", "*:161", "0.0.0.0%lo:53" → address and port. */
function endpoint(token: string): { address: string; port: number } | undefined {
  const m = /^\[?(.*?)\]?(?:%[^:\]]+)?:(\d+|\*)$/.exec(token);
  if (!m || m[2] === '*') return undefined;
  const address = (m[1] as string).replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1').replace(/%.*$/, '');
  return { address: address === '*' ? '0.0.0.0' : address, port: Number(m[2]) };
}

function socketProcess(rest: string): { pid?: number; processName?: string } {
  // ss prints the name as it is, quotes included ("my "q",pid=...): the name ends at the first '",pid='.
  const m = /users:\(\("(.*?)",pid=(\d+)/.exec(rest);
  return m ? { processName: cleanText(m[1], 512), pid: Number(m[2]) } : {};
}

/** Listening TCP and bound UDP sockets (ss -Hlntup). */
export function parseListening(output: string): Socket[] {
  return lines(sections(output).get('listening')).flatMap((line): Socket[] => {
    const parts = line.split(/\s+/);
    const [netid, , , , local] = parts;
    const at = local ? endpoint(local) : undefined;
    if (!at || (netid !== 'tcp' && netid !== 'udp')) return [];
    const v6 = at.address.includes(':');
    return [{ protocol: `${netid}${v6 ? '6' : ''}` as Socket['protocol'], localAddress: at.address, localPort: at.port, ...socketProcess(parts.slice(6).join(' ')) }];
  });
}

/** Established TCP connections (ss -Htnp state established): the first two endpoints are local and peer. */
export function parseEstablished(output: string): ObservedConnection[] {
  return lines(sections(output).get('established')).flatMap((line) => {
    const tokens = line.split(/\s+/);
    const ends = tokens.map(endpoint);
    const first = ends.findIndex(Boolean);
    const local = ends[first];
    const peer = ends[first + 1];
    if (first < 0 || !local || !peer) return [];
    const { processName } = socketProcess(tokens.slice(first + 2).join(' '));
    return [{ localAddress: local.address, localPort: local.port, remoteAddress: peer.address, remotePort: peer.port, ...(processName ? { processName } : {}) }];
  });
}

interface IpAddrEntry {
  ifindex?: number;
  ifname?: string;
  address?: string;
  operstate?: string;
  mtu?: number;
  link_type?: string;
  addr_info?: { family?: string; local?: string; scope?: string }[];
}

/** Interfaces from `ip -j addr show` and /sys/class/net/x/speed; loopback left out. */
export function parseInterfaces(output: string): ObservedInterface[] | undefined {
  const s = sections(output);
  let entries: IpAddrEntry[];
  try {
    entries = JSON.parse(s.get('ip') ?? '') as IpAddrEntry[];
  } catch {
    return undefined;
  }
  if (!Array.isArray(entries)) return undefined;
  const speeds = new Map(lines(s.get('speed')).map((l) => l.split('\t') as [string, string]));
  return entries.flatMap((e): ObservedInterface[] => {
    const name = cleanText(e.ifname, 256);
    if (!name || e.link_type === 'loopback') return [];
    const speed = Number(speeds.get(e.ifname ?? ''));
    const mac = e.address && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(e.address) && e.address !== '00:00:00:00:00:00' ? e.address.toLowerCase() : null;
    return [{
      name,
      ifIndex: Number.isInteger(e.ifindex) ? (e.ifindex as number) : null,
      macAddress: mac,
      ipAddresses: (e.addr_info ?? []).flatMap((a) => (a.local && a.scope !== 'link' ? [a.local] : [])),
      speedMbps: speed > 0 ? speed : null,
      operStatus: cleanText(e.operstate?.toLowerCase(), 16) ?? null,
      mtu: Number.isInteger(e.mtu) ? (e.mtu as number) : null,
    }];
  });
}

type Valued = { value?: string; type?: string }[];
interface LldpInterface {
  name?: string;
  via?: string;
  chassis?: { id?: Valued; name?: Valued }[];
  port?: { id?: Valued; descr?: Valued }[];
}

/** Why lldpd could not be read, when the lldp command found it running without a readable socket. */
export function lldpUnreadable(output: string): string | undefined {
  const text = sections(output).get('lldp-unreadable');
  return text === undefined ? undefined : cleanText(text.trim(), 200) || 'lldpd runs but could not be read';
}

/**
 * LLDP neighbours from `lldpctl -f json0`. The remote port is its interface name: the port id when
 * it is one, otherwise (lldpd sends the MAC as port id by default) the port description.
 */
export function parseLldp(output: string): ObservedNeighbor[] | undefined {
  const text = sections(output).get('lldp');
  if (text === undefined) return undefined;
  let doc: { lldp?: { interface?: LldpInterface[] }[] };
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  return (doc.lldp ?? []).flatMap((l) => l.interface ?? []).flatMap((i): ObservedNeighbor[] => {
    const chassis = i.chassis?.[0];
    const port = i.port?.[0];
    const portId = port?.id?.[0];
    const remotePort = cleanText(portId?.type === 'ifname' || portId?.type === 'local' ? portId.value : (port?.descr?.[0]?.value ?? portId?.value), 256);
    const localPort = cleanText(i.name, 256);
    if (!localPort || !remotePort) return [];
    const chassisId = chassis?.id?.[0];
    const systemName = cleanText(chassis?.name?.[0]?.value, 255);
    return [{
      localPort,
      protocol: i.via === 'CDPv1' || i.via === 'CDPv2' ? 'CDP' : 'LLDP',
      remotePort,
      ...(chassisId?.type === 'mac' && chassisId.value ? { remoteChassisId: chassisId.value.toLowerCase() } : {}),
      ...(systemName ? { remoteSystemName: systemName } : {}),
    }];
  });
}

export interface SystemdUnit {
  id: string;
  description?: string;
  activeState?: string;
  subState?: string;
  unitFileState?: string;
  mainPid?: number;
}

/** Service units from `systemctl show` (blocks of Key=Value separated by blank lines); undefined without systemd. */
export function parseSystemd(output: string): SystemdUnit[] | undefined {
  const text = sections(output).get('systemd');
  if (text === undefined) return undefined;
  return text.split(/\n\s*\n/).flatMap((block) => {
    const kv = keyValues(block);
    const id = cleanText(kv.get('Id'), 512);
    if (!id?.endsWith('.service')) return [];
    const pid = Number(kv.get('MainPID'));
    return [{
      id,
      description: cleanText(kv.get('Description'), 512),
      activeState: cleanText(kv.get('ActiveState'), 32),
      subState: cleanText(kv.get('SubState'), 32),
      unitFileState: cleanText(kv.get('UnitFileState'), 32),
      ...(pid > 0 ? { mainPid: pid } : {}),
    }];
  });
}

type Port = { protocol: Socket['protocol']; port: number };

function portsOf(sockets: Socket[]): Port[] {
  const unique = new Map(sockets.map((s) => [`${s.protocol}/${s.localPort}`, { protocol: s.protocol, port: s.localPort }]));
  return [...unique.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
}

/**
 * Services with their listen ports. With systemd: every service unit, its ports found through the
 * unit of each listening process. Without: one service per listening program (what a container
 * runs), named after the program.
 */
export function buildServices(units: SystemdUnit[] | undefined, processes: ProcessLine[], sockets: Socket[]): ObservedService[] {
  const unitOfPid = new Map(processes.flatMap((p) => (p.unit ? [[p.pid, p.unit] as const] : [])));
  if (units) {
    const ports = new Map<string, Socket[]>();
    for (const s of sockets) {
      const unit = s.pid !== undefined ? unitOfPid.get(s.pid) : undefined;
      if (unit) ports.set(unit, [...(ports.get(unit) ?? []), s]);
    }
    return units.map((u) => ({
      serviceName: u.id,
      displayName: u.description ?? null,
      state: u.subState === 'running' ? 'running' : (u.activeState ?? null),
      startMode: u.unitFileState ?? null,
      listenPorts: portsOf(ports.get(u.id) ?? []),
      sourceConnector: 'SSH',
    }));
  }
  const byProgram = new Map<string, Socket[]>();
  for (const s of sockets) if (s.processName) byProgram.set(s.processName, [...(byProgram.get(s.processName) ?? []), s]);
  return [...byProgram].map(([program, own]) => ({
    serviceName: program,
    displayName: null,
    state: 'running',
    startMode: null,
    listenPorts: portsOf(own),
    sourceConnector: 'SSH',
  })).sort((a, b) => a.serviceName.localeCompare(b.serviceName));
}
