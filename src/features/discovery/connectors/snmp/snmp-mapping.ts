// SNMP answers → a host observation, as pure functions over the varbinds read (OID → value). Every
// device string goes through cleanText: it is untrusted data.
import net from 'node:net';
import { emptyObservation, type HostObservation, type ObservedFdbEntry, type ObservedInterface, type ObservedNeighbor, type ObservedScope, type ObservedType } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import { COLUMNS, SYSTEM, type Column } from './snmp-mibs.js';

/** An OctetString arrives as bytes (or, from a fixture, as text); the other types as numbers or OID strings. */
export type SnmpValue = string | number | Buffer;
/** OIDs (numeric, no leading dot) → values; only what the agent answered, no exceptions (noSuchObject...). */
export type Varbinds = ReadonlyMap<string, SnmpValue>;

const OPER_STATUS = ['up', 'down', 'testing', 'unknown', 'dormant', 'notPresent', 'lowerLayerDown'];
const SOFTWARE_LOOPBACK = 24;
const ENT_CLASS_CHASSIS = 3;
const FDB_LEARNED = 3;
const IP_ADDRESS_BROADCAST = 3; // ipAddressType: unicast(1), anycast(2), broadcast(3)
const HR_DEVICE_PRINTER = '1.3.6.1.2.1.25.3.1.5';
// IEEE 802.1AB subtypes: which ids are MAC addresses, and which name a port the way ifName does.
const LLDP_CHASSIS_MAC = 4;
const LLDP_PORT_MAC = 3;
const LLDP_PORT_NAMES = new Set([5, 7]); // interfaceName, local
// sysServices bits (RFC 3418): layer n is 2^(n-1).
const LAYERS_2_3 = 0b0000110;
const LAYERS_4_UP = 0b1111000;
// The bounds of the import path's fields.
const MAX_INTERFACE_IPS = 64;
const MAX_ASSET_IPS = 256;

/** One column of a table: row index (the OID suffix) → value. */
function column(varbinds: Varbinds, name: Column): Map<string, SnmpValue> {
  const prefix = `${COLUMNS[name]}.`;
  const rows = new Map<string, SnmpValue>();
  for (const [oid, value] of varbinds) if (oid.startsWith(prefix)) rows.set(oid.slice(prefix.length), value);
  return rows;
}

function columns<C extends Column>(varbinds: Varbinds, names: readonly C[]): Record<C, Map<string, SnmpValue>> {
  return Object.fromEntries(names.map((name) => [name, column(varbinds, name)])) as Record<C, Map<string, SnmpValue>>;
}

const int = (value: SnmpValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

/** aa:bb:cc:dd:ee:ff from six octets (or from a MAC written as text); undefined for none or all zeros. */
export function macOf(value: SnmpValue | undefined): string | undefined {
  const hex = Buffer.isBuffer(value) ? (value.length === 6 ? value.toString('hex') : '') : typeof value === 'string' ? value.replace(/[:.\s-]/g, '').toLowerCase() : '';
  return /^[0-9a-f]{12}$/.test(hex) && !/^0+$/.test(hex) ? hex.match(/../g)?.join(':') : undefined;
}

/** An address from its octets: 4 (IPv4) or 16 (IPv6), in canonical text form. */
function ipOf(octets: number[]): string | undefined {
  if (octets.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) return undefined;
  if (octets.length === 4) return octets.join('.');
  if (octets.length !== 16) return undefined;
  const groups = Array.from({ length: 8 }, (_, i) => ((octets[2 * i] as number) * 256 + (octets[2 * i + 1] as number)).toString(16));
  return new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

const subIds = (index: string) => index.split('.').map(Number);

/** ifIndex → addresses, from ipAddrTable (index a.b.c.d) and ipAddressTable (index type.length.octets). */
function addressesByIfIndex(varbinds: Varbinds): Map<number, string[]> {
  const found: [number | undefined, string | undefined][] = [];
  for (const [index, ifIndex] of column(varbinds, 'ipAdEntIfIndex')) found.push([int(ifIndex), ipOf(subIds(index))]);
  const addressType = column(varbinds, 'ipAddressType');
  for (const [index, ifIndex] of column(varbinds, 'ipAddressIfIndex')) {
    if (int(addressType.get(index)) === IP_ADDRESS_BROADCAST) continue;
    const [type, length, ...octets] = subIds(index);
    // Types 3 and 4 (ipv4z, ipv6z) append a 4-octet zone index to the address.
    const size = type === 1 || type === 3 ? 4 : type === 2 || type === 4 ? 16 : 0;
    if (size && length === octets.length) found.push([int(ifIndex), ipOf(octets.slice(0, size))]);
  }
  const byIndex = new Map<number, string[]>();
  for (const [ifIndex, ip] of found) {
    if (ifIndex === undefined || !ip) continue;
    const list = byIndex.get(ifIndex) ?? [];
    if (!list.includes(ip)) list.push(ip);
    byIndex.set(ifIndex, list);
  }
  return byIndex;
}

function speedMbps(highSpeed: SnmpValue | undefined, speed: SnmpValue | undefined): number | null {
  const high = int(highSpeed);
  if (high) return high;
  const bps = int(speed);
  // ifSpeed saturates at 2^32-1 bps: only ifHighSpeed can tell a faster interface's speed.
  return bps && bps < 0xffffffff ? Math.round(bps / 1_000_000) : null;
}

export function interfacesOf(varbinds: Varbinds): ObservedInterface[] {
  const c = columns(varbinds, ['ifDescr', 'ifMtu', 'ifSpeed', 'ifPhysAddress', 'ifOperStatus', 'ifName', 'ifHighSpeed', 'ifAlias']);
  const addresses = addressesByIfIndex(varbinds);
  const indices = [...new Set([...c.ifDescr.keys(), ...c.ifName.keys()])].filter((i) => /^\d+$/.test(i)).sort((a, b) => Number(a) - Number(b));
  return indices.map((index): ObservedInterface => {
    const ifIndex = Number(index);
    const ifDescr = cleanText(c.ifDescr.get(index));
    const name = cleanText(c.ifName.get(index)) ?? ifDescr ?? `ifIndex ${ifIndex}`;
    const status = int(c.ifOperStatus.get(index));
    return {
      name,
      ifIndex,
      macAddress: macOf(c.ifPhysAddress.get(index)) ?? null,
      ipAddresses: (addresses.get(ifIndex) ?? []).slice(0, MAX_INTERFACE_IPS),
      speedMbps: speedMbps(c.ifHighSpeed.get(index), c.ifSpeed.get(index)),
      operStatus: status ? (OPER_STATUS[status - 1] ?? null) : null,
      mtu: int(c.ifMtu.get(index)) ?? null,
      description: cleanText(c.ifAlias.get(index)) ?? (ifDescr !== name ? ifDescr : undefined) ?? null,
    };
  });
}

interface Chassis {
  serialNumber?: string;
  model?: string;
  vendor?: string;
  firmware?: string;
}

/** The ENTITY-MIB chassis entry (the first of class chassis). */
function chassisOf(varbinds: Varbinds): Chassis {
  const index = [...column(varbinds, 'entPhysicalClass')]
    .filter(([, cls]) => int(cls) === ENT_CLASS_CHASSIS)
    .map(([i]) => i)
    .sort((a, b) => Number(a) - Number(b))[0];
  if (index === undefined) return {};
  const read = (name: Column) => cleanText(varbinds.get(`${COLUMNS[name]}.${index}`));
  return { serialNumber: read('entPhysicalSerialNum'), model: read('entPhysicalModelName'), vendor: read('entPhysicalMfgName'), firmware: read('entPhysicalSoftwareRev') };
}

/** A port id as a name: text for name subtypes, aa:bb:... for MAC subtypes. */
function portIdOf(subtype: SnmpValue | undefined, id: SnmpValue | undefined): string | undefined {
  return int(subtype) === LLDP_PORT_MAC ? (macOf(id) ?? cleanText(id)) : cleanText(id);
}

function neighborsOf(varbinds: Varbinds, interfaces: ObservedInterface[]): ObservedNeighbor[] {
  const known = new Set(interfaces.map((i) => i.name));
  const nameByIfIndex = new Map(interfaces.map((i) => [String(i.ifIndex), i.name]));
  const loc = columns(varbinds, ['lldpLocPortIdSubtype', 'lldpLocPortId', 'lldpLocPortDesc']);
  // Agents name local ports differently (Cisco: ifName as the port id; lldpd: the MAC as id, the
  // interface name as description and the ifIndex as port number): prefer a candidate that names
  // a known interface, so that the neighbour lands on the interface rows.
  const localPort = (num: string): string => {
    const subtype = loc.lldpLocPortIdSubtype.get(num);
    const candidates = [
      LLDP_PORT_NAMES.has(int(subtype) ?? 0) ? cleanText(loc.lldpLocPortId.get(num)) : undefined,
      nameByIfIndex.get(num),
      cleanText(loc.lldpLocPortDesc.get(num)),
      portIdOf(subtype, loc.lldpLocPortId.get(num)),
    ].filter((c): c is string => c !== undefined);
    return candidates.find((c) => known.has(c)) ?? candidates[0] ?? `port ${num}`;
  };
  const rem = columns(varbinds, ['lldpRemChassisIdSubtype', 'lldpRemChassisId', 'lldpRemPortIdSubtype', 'lldpRemPortId', 'lldpRemPortDesc', 'lldpRemSysName']);
  return [...new Set([...rem.lldpRemPortId.keys(), ...rem.lldpRemChassisId.keys()])].flatMap((index): ObservedNeighbor[] => {
    const localNum = index.split('.')[1];
    const subtype = int(rem.lldpRemPortIdSubtype.get(index));
    const portId = rem.lldpRemPortId.get(index);
    const remotePort = LLDP_PORT_NAMES.has(subtype ?? 0) ? cleanText(portId) : (cleanText(rem.lldpRemPortDesc.get(index)) ?? portIdOf(subtype, portId));
    if (localNum === undefined || !remotePort) return [];
    const chassis = rem.lldpRemChassisId.get(index);
    const chassisMac = int(rem.lldpRemChassisIdSubtype.get(index)) === LLDP_CHASSIS_MAC ? macOf(chassis) : undefined;
    return [{
      localPort: localPort(localNum),
      protocol: 'LLDP',
      remotePort,
      remoteChassisId: chassisMac ?? cleanText(chassis),
      remoteSystemName: cleanText(rem.lldpRemSysName.get(index)),
    }];
  });
}

/** Learned forwarding entries, with ports named as interfaces; Q-BRIDGE rows carry the VLAN. */
function fdbOf(varbinds: Varbinds, interfaces: ObservedInterface[]): ObservedFdbEntry[] {
  const nameByIfIndex = new Map(interfaces.map((i) => [i.ifIndex, i.name]));
  const ifIndexByPort = column(varbinds, 'dot1dBasePortIfIndex');
  // Bridge port 0 and ports without an interface are the bridge itself: not a port to name.
  const portName = (port: SnmpValue) => nameByIfIndex.get(int(ifIndexByPort.get(String(port))));
  const learned = (portCol: Column, statusCol: Column, parse: (index: number[]) => { mac?: string; vlan?: number }) => {
    const status = column(varbinds, statusCol);
    return [...column(varbinds, portCol)].flatMap(([index, port]): ObservedFdbEntry[] => {
      const { mac, vlan } = parse(subIds(index));
      const name = portName(port);
      return int(status.get(index)) === FDB_LEARNED && mac && name ? [{ port: name, macAddress: mac, ...(vlan === undefined ? {} : { vlan }) }] : [];
    });
  };
  const macAt = (ids: number[]) => (ids.length === 6 && ids.every((b) => b >= 0 && b <= 255) ? macOf(Buffer.from(ids)) : undefined);
  // dot1qTpFdbTable's first index is the filtering database id: the VLAN id on IVL switches (most).
  const q = learned('dot1qTpFdbPort', 'dot1qTpFdbStatus', ([fdbId, ...mac]) => ({ mac: macAt(mac), vlan: fdbId }));
  const seen = new Set(q.map((e) => `${e.port}|${e.macAddress}`));
  const d = learned('dot1dTpFdbPort', 'dot1dTpFdbStatus', (mac) => ({ mac: macAt(mac) })).filter((e) => !seen.has(`${e.port}|${e.macAddress}`));
  return [...q, ...d];
}

/** PRINTER if Printer-MIB or a printer in hrDeviceTable answers; NETWORK_DEVICE if a bridge or a router; else a host. */
export function classify(varbinds: Varbinds, interfaces: ObservedInterface[]): ObservedType {
  const printerDevice = [...column(varbinds, 'hrDeviceType').values()].some((type) => String(type).replace(/^\./, '') === HR_DEVICE_PRINTER);
  if (column(varbinds, 'prtGeneralPrinterName').size > 0 || printerDevice) return 'PRINTER';
  if (varbinds.has(SYSTEM.dot1dBaseNumPorts)) return 'NETWORK_DEVICE';
  const services = int(varbinds.get(SYSTEM.sysServices));
  if (services !== undefined) return services & LAYERS_2_3 && !(services & LAYERS_4_UP) ? 'NETWORK_DEVICE' : 'SERVER';
  // Without sysServices, forwarding between several interfaces is the sign of a router. (Linux
  // hosts forward too, docker and VPN hosts: that is why sysServices, when given, decides.)
  const physical = interfaces.filter((i) => int(varbinds.get(`${COLUMNS.ifType}.${i.ifIndex}`)) !== SOFTWARE_LOOPBACK);
  return int(varbinds.get(SYSTEM.ipForwarding)) === 1 && physical.length >= 2 ? 'NETWORK_DEVICE' : 'SERVER';
}

/** The observation of one agent; `complete` names the scopes whose tables were read in full. */
export function toObservation(address: string, varbinds: Varbinds, complete: Set<ObservedScope>): HostObservation {
  const interfaces = interfacesOf(varbinds);
  const observation = emptyObservation(address, 'SNMP', classify(varbinds, interfaces));
  const sysName = cleanText(varbinds.get(SYSTEM.sysName));
  const { firmware, ...chassis } = chassisOf(varbinds);
  const attributes = {
    sysDescr: cleanText(varbinds.get(SYSTEM.sysDescr)),
    sysObjectId: cleanText(varbinds.get(SYSTEM.sysObjectId))?.replace(/^\./, ''),
    sysLocation: cleanText(varbinds.get(SYSTEM.sysLocation)),
    sysContact: cleanText(varbinds.get(SYSTEM.sysContact)),
    firmware,
  };
  return {
    ...observation,
    ...definedOnly({ hostname: sysName, fqdn: sysName?.includes('.') && !net.isIP(sysName) ? sysName.toLowerCase() : undefined, ...chassis }),
    macAddresses: [...new Set(interfaces.flatMap((i) => (i.macAddress ? [i.macAddress] : [])))],
    ipAddresses: [...new Set(interfaces.flatMap((i) => i.ipAddresses ?? []))].slice(0, MAX_ASSET_IPS),
    attributes: definedOnly(attributes),
    interfaces,
    neighbors: neighborsOf(varbinds, interfaces),
    fdb: fdbOf(varbinds, interfaces),
    // The system group is read first, or the agent counts as not answering: its facts are always there.
    complete: new Set([...complete, 'facts']),
  };
}

function definedOnly<T extends Record<string, unknown>>(record: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
