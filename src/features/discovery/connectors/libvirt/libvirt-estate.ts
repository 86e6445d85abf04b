// What `virsh` printed on a libvirt host (libvirt-commands.ts) as an estate: the host itself (its
// root, loaded as the host the address stands for) a HYPERVISOR; each domain a VM (HOSTS_VM); each
// storage pool a STORAGE_POOL (USES_DATASTORE from the host, as a vCenter's datastores); each
// virtual network a NETWORK (CONTAINS). A domain's networks, bridges and pools are attributes: an
// edge from a VM would compete with the host for the parent of a pool or network.
import { XMLParser } from 'fast-xml-parser';
import type { EstateAsset, EstateObservation } from '../../host-observation.js';
import { sections } from '../ssh/linux-parsers.js';
import { cleanText } from '../../untrusted-text.js';
import { LIBVIRT_READS, type LibvirtKind } from './libvirt-commands.js';

export const HOST_KEY = 'host';
// Lower case only, as virsh prints them (UUID_PATTERN takes either case).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Section names: "uri", "domain:<uuid>:dumpxml", "pools-inactive", "end", ...
export const SECTION_NAMES = /^[a-z-]+(:[0-9a-f-]{36}:[a-z-]+)?$/;
const ARRAYS = new Set(['disk', 'interface', 'ip', 'entry', 'system']);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => ARRAYS.has(name) });
const MIB_PER_KIB = 1024;
const GIB = 1024 ** 3;

type Node = Record<string, unknown>;
const node = (value: unknown): Node => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : {});
const list = (value: unknown): Node[] => (Array.isArray(value) ? value.map(node) : value === undefined ? [] : [node(value)]);
const textOf = (value: unknown): string | undefined => cleanText(typeof value === 'object' && value !== null ? (value as Node)['#text'] : value);
const num = (value: unknown): number | undefined => {
  const n = Number(textOf(value));
  return textOf(value) !== undefined && Number.isFinite(n) ? n : undefined;
};

function parseXml(xml: string | undefined): Node {
  if (!xml?.trim().startsWith('<')) return {};
  try {
    return node(parser.parse(xml));
  } catch {
    return {};
  }
}

/** A size element in bytes, whatever its unit (libvirt writes KiB for memory, bytes for pools). */
function bytes(value: unknown): number | undefined {
  const n = num(value);
  if (n === undefined) return undefined;
  const unit = String(node(value)['@unit'] ?? 'KiB').toLowerCase();
  const scale: Record<string, number> = { b: 1, bytes: 1, k: 1024, kib: 1024, kb: 1000, m: 1024 ** 2, mib: 1024 ** 2, mb: 1e6, g: GIB, gib: GIB, gb: 1e9, t: 1024 ** 4, tib: 1024 ** 4, tb: 1e12 };
  return scale[unit] === undefined ? undefined : n * (scale[unit] as number);
}

/** The power state as a vCenter names it (the VM type's field), from virsh domstate. */
const POWER_STATES: Record<string, string> = {
  running: 'poweredOn', idle: 'poweredOn', blocked: 'poweredOn', 'in shutdown': 'poweredOn', paused: 'suspended', pmsuspended: 'suspended', 'shut off': 'poweredOff', crashed: 'poweredOff', dying: 'poweredOff',
};

/** "192.168.122.1" with netmask "255.255.255.0" (or prefix 24) as 192.168.122.0/24. */
function cidr(ip: Node): string | undefined {
  const address = textOf(ip['@address']);
  if (!address || !/^\d+\.\d+\.\d+\.\d+$/.test(address)) return undefined;
  const mask = textOf(ip['@netmask']);
  const prefix = num(ip['@prefix']) ?? (mask ? mask.split('.').reduce((bits, octet) => bits + (Number(octet) >>> 0).toString(2).replace(/0/g, '').length, 0) : undefined);
  if (prefix === undefined || prefix < 0 || prefix > 32) return undefined;
  const value = address.split('.').reduce((v, o) => (v << 8) + Number(o), 0) >>> 0;
  const network = prefix === 0 ? 0 : (value & (~0 << (32 - prefix))) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (network >>> s) & 255).join('.')}/${prefix}`;
}

/** Volume name → path of a pool, from `virsh vol-list POOL` (a header, dashes, then "name   path" rows). */
function volumes(table: string | undefined): { name: string; path: string }[] {
  const rows = (table ?? '').split('\n');
  const start = rows.findIndex((l) => /^-{5,}\s*$/.test(l.trim()));
  return rows.slice(start + 1).flatMap((line) => {
    const m = /^\s*(\S.*?)\s{2,}(\S.*?)\s*$/.exec(line);
    return m ? [{ name: m[1] as string, path: m[2] as string }] : [];
  });
}

const uuidLines = (text: string | undefined) => new Set((text ?? '').split('\n').map((l) => l.trim()).filter((l) => UUID.test(l)));

/**
 * The estate of one libvirt host from the marked output of the read; complete when every listing
 * answered and every object listed was read (only then is anything retired). Domains are known by their
 * UUID (instanceId), which a domain keeps when it moves to another host; networks and pools by the
 * host's SMBIOS UUID (or the scope) and theirs. MACs that several domains show identify nothing.
 */
export function toLibvirtEstate(output: string, mark: string, address: string, scope: string, uri: string): EstateObservation {
  const parts = sections(output, mark, SECTION_NAMES);
  // An object listed but not read (it went between the listing and the read, or the connection
  // broke) is left out, and the read is then incomplete.
  let unread = 0;
  const part = (kind: LibvirtKind, id: string, what: string) => parts.get(`${kind}:${id}:${what}`);
  const objects = (kind: LibvirtKind) => [...parts.keys()].flatMap((k) => {
    const [type, id, what] = k.split(':');
    if (type !== kind || what !== LIBVIRT_READS[kind][0] || !id) return [];
    if (!parts.get(k)?.startsWith('<')) {
      unread++;
      return [];
    }
    return [id];
  });

  const sysinfo = parseXml(parts.get('sysinfo')).sysinfo;
  const system = Object.fromEntries(list(node(list(node(sysinfo).system)[0]).entry).map((e) => [String(e['@name']), textOf(e)]));
  const hostUuid = system.uuid && UUID.test(system.uuid.toLowerCase()) ? system.uuid.toLowerCase() : undefined;
  const instanceId = (kind: string, id: string) => `${hostUuid ?? scope}/${kind}/${id}`;
  const version = parts.get('version') ?? '';
  const hypervisor = /Running hypervisor:\s*(.+)/.exec(version)?.[1];
  const library = /Using library:\s*libvirt\s+(\S+)/.exec(version)?.[1];
  const hostname = textOf(parts.get('hostname')?.split('\n')[0])?.toLowerCase();

  const assets: EstateAsset[] = [];
  const relationships: EstateObservation['relationships'] = [];
  const defined = (attributes: Record<string, string | number | boolean | undefined>) =>
    Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];

  // Pools first: a domain's disks name them by name, or by a volume's path.
  const inactivePools = uuidLines(parts.get('pools-inactive'));
  const poolOfPath = new Map<string, string>();
  const poolByName = new Map<string, string>();
  const poolTargets: [string, string][] = [];
  for (const id of objects('pool')) {
    const pool = node(parseXml(part('pool', id, 'pool-dumpxml')).pool);
    const name = textOf(pool.name) ?? id;
    const target = textOf(node(pool.target).path);
    const vols = volumes(part('pool', id, 'vol-list'));
    for (const v of vols) poolOfPath.set(v.path, id);
    poolByName.set(name, id);
    if (target) poolTargets.push([target.replace(/\/$/, ''), id]);
    const gb = (v: unknown) => {
      const b = bytes(v);
      return b === undefined ? undefined : Math.round(b / GIB);
    };
    assets.push({
      key: `pool/${id}`, assetType: 'STORAGE_POOL', displayName: name, macAddresses: [], ipAddresses: [],
      attributes: defined({ poolType: textOf(pool['@type']), capacityGb: gb(pool.capacity), freeGb: gb(pool.available), allocationGb: gb(pool.allocation), path: target, active: !inactivePools.has(id), volumeCount: vols.length, instanceId: instanceId('pool', id) }),
    });
    relationships.push({ type: 'USES_DATASTORE', source: HOST_KEY, target: `pool/${id}` });
  }
  const poolOf = (disk: Node): string | undefined => {
    const source = node(disk.source);
    const byName = textOf(source['@pool']);
    if (byName) return poolByName.get(byName);
    const path = textOf(source['@file']) ?? textOf(source['@dev']);
    if (!path) return undefined;
    return poolOfPath.get(path) ?? poolTargets.find(([dir]) => path.startsWith(`${dir}/`))?.[1];
  };

  const inactiveNetworks = uuidLines(parts.get('networks-inactive'));
  const networkNames = new Map<string, string>();
  for (const id of objects('network')) {
    const network = node(parseXml(part('network', id, 'net-dumpxml')).network);
    const name = textOf(network.name) ?? id;
    networkNames.set(name, id);
    assets.push({
      key: `network/${id}`, assetType: 'NETWORK', displayName: name, macAddresses: [], ipAddresses: [],
      attributes: defined({ cidr: list(network.ip).map(cidr).find(Boolean), forwardMode: textOf(node(network.forward)['@mode']) ?? 'isolated', bridge: textOf(node(network.bridge)['@name']), active: !inactiveNetworks.has(id), instanceId: instanceId('network', id) }),
    });
    relationships.push({ type: 'CONTAINS', source: HOST_KEY, target: `network/${id}` });
  }

  const domains = objects('domain').map((id) => ({ id, xml: node(parseXml(part('domain', id, 'dumpxml')).domain) }));
  const macsOf = (xml: Node) => [...new Set(list(node(xml.devices).interface).flatMap((i) => textOf(node(i.mac)['@address'])?.toLowerCase() ?? []))];
  const macCount = new Map<string, number>();
  for (const d of domains) for (const mac of macsOf(d.xml)) macCount.set(mac, (macCount.get(mac) ?? 0) + 1);
  for (const { id, xml } of domains) {
    const devices = node(xml.devices);
    const interfaces = list(devices.interface);
    const state = textOf(part('domain', id, 'domstate')?.split('\n')[0]);
    const memory = bytes(xml.currentMemory) ?? bytes(xml.memory);
    const names = (values: (string | undefined)[]) => [...new Set(values.filter(Boolean))].sort().join(',');
    assets.push({
      key: `domain/${id}`, assetType: 'VM', displayName: textOf(xml.name) ?? id, macAddresses: macsOf(xml).filter((m) => macCount.get(m) === 1), ipAddresses: [],
      attributes: defined({
        powerState: state ? (POWER_STATES[state] ?? state) : undefined, libvirtState: state, cpuCount: num(xml.vcpu), memoryMb: memory === undefined ? undefined : Math.round(memory / MIB_PER_KIB / 1024),
        domainType: textOf(xml['@type']), osType: textOf(node(xml.os).type), instanceUuid: id, instanceId: id,
        networks: names(interfaces.map((i) => textOf(node(i.source)['@network']))), bridges: names(interfaces.map((i) => textOf(node(i.source)['@bridge']))),
        storagePools: names(list(devices.disk).map(poolOf).map((p) => (p ? assets.find((a) => a.key === `pool/${p}`)?.displayName : undefined))),
      }),
    });
    relationships.push({ type: 'HOSTS_VM', source: HOST_KEY, target: `domain/${id}` });
  }

  assets.unshift({
    key: HOST_KEY, assetType: 'HYPERVISOR', displayName: hostname ?? address, ...(hostname ? { hostname: hostname.split('.')[0], ...(hostname.includes('.') ? { fqdn: hostname } : {}) } : {}),
    ...(system.manufacturer ? { vendor: system.manufacturer } : {}), ...(system.product ? { model: system.product } : {}), ...(system.serial ? { serialNumber: system.serial } : {}),
    macAddresses: [], ipAddresses: [address],
    attributes: defined({ hypervisorProduct: hypervisor ? `${hypervisor} (libvirt)` : undefined, libvirtVersion: library, libvirtUri: uri, vmCount: domains.length }),
  });
  const complete = parts.has('end') && !parts.has('failed') && unread === 0;
  assets.sort((a, b) => a.key.localeCompare(b.key));
  relationships.sort((a, b) => a.type.localeCompare(b.type) || a.target.localeCompare(b.target));
  return { method: 'LIBVIRT', scope, root: HOST_KEY, rootIsHost: true, assets, relationships, relationshipTypes: ['HOSTS_VM', 'CONTAINS', 'USES_DATASTORE'], complete };
}
