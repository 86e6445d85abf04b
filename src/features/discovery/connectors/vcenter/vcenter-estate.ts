// What the vCenter connector reads (the PropertyCollector's objects) as an estate of assets and
// relationships, with the spec's parent rules: HYPERVISOR MANAGED_BY the manager, VM from its host
// (HOSTS_VM), DATASTORE from the hosts that mount it (USES_DATASTORE), VSWITCH, PORT_GROUP and
// NETWORK from the hosts they span (CONTAINS); a CLUSTER (a root) MANAGED_BY the manager and
// CONTAINS its hosts; a distributed switch CONTAINS its port groups. Datacenters are no asset type:
// each asset carries its datacenter's name.
import net from 'node:net';
import type { RelationshipType } from '../../../inventory/relationship-types.js';
import { cleanText } from '../../untrusted-text.js';
import type { EstateAsset, EstateObservation } from '../../host-observation.js';
import { asRef, text, type ManagedObjectReference, type ObjectContent } from './vim25-session.js';

/** The properties read per managed object type (a subtype also answers its supertype's). */
export const PROPERTY_SPECS: Record<string, string[]> = {
  Folder: ['name', 'parent'],
  Datacenter: ['name', 'parent'],
  ComputeResource: ['name', 'parent'],
  HostSystem: ['name', 'parent', 'summary.hardware', 'summary.config.product', 'datastore', 'network', 'config.network.vswitch'],
  VirtualMachine: [
    'name', 'parent', 'runtime.host', 'runtime.powerState', 'config.uuid', 'config.instanceUuid', 'config.guestFullName', 'config.template',
    'config.hardware.numCPU', 'config.hardware.memoryMB', 'guest.net', 'guest.hostName', 'datastore', 'network',
  ],
  Datastore: ['name', 'parent', 'summary.type', 'summary.capacity', 'summary.freeSpace', 'summary.url'],
  Network: ['name', 'parent'],
  DistributedVirtualPortgroup: ['config.distributedVirtualSwitch'],
  DistributedVirtualSwitch: ['name', 'parent', 'uuid', 'summary.hostMember'],
};

export interface AboutInfo {
  name?: string;
  fullName?: string;
  vendor?: string;
  version?: string;
  build?: string;
  apiVersion?: string;
  instanceUuid?: string;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
export const MANAGER_KEY = 'manager';

const str = (value: unknown): string | undefined => {
  const t = text(value);
  return t === undefined ? undefined : cleanText(t);
};
const num = (value: unknown): number | undefined => {
  const t = text(value);
  const n = t === undefined ? NaN : Number(t);
  return Number.isFinite(n) ? n : undefined;
};
const refs = (value: unknown): ManagedObjectReference[] =>
  (((value as Record<string, unknown> | undefined)?.ManagedObjectReference as unknown[] | undefined) ?? []).flatMap((r) => asRef(r) ?? []);
const field = (value: unknown, name: string): unknown => (value && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** The BIOS serial number a VMware VM shows its guest (dmidecode, /sys/class/dmi): "VMware-" and the BIOS UUID's bytes. */
export function vmwareBiosSerial(uuid: string | undefined): string | undefined {
  const hex = uuid?.replace(/-/g, '').toLowerCase();
  if (!hex || !/^[0-9a-f]{32}$/.test(hex)) return undefined;
  const pairs = hex.match(/../g) as string[];
  return `VMware-${pairs.slice(0, 8).join(' ')}-${pairs.slice(8).join(' ')}`;
}

/** Name fields from an ESXi host's or a guest's name: an address, an FQDN, or a short name. */
function names(name: string | undefined): Pick<EstateAsset, 'hostname' | 'fqdn'> & { ip?: string } {
  if (!name) return {};
  if (net.isIP(name)) return { ip: name };
  const lower = name.toLowerCase();
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(lower)) return {};
  return lower.includes('.') ? { hostname: lower.split('.')[0], fqdn: lower } : { hostname: lower };
}

/**
 * The estate of one vCenter. Keys are managed object ids (the manager's is `manager`); each asset
 * carries `instanceId` (the vCenter's instance UUID and the object id; a VM's own instance UUID), so
 * that it is the same asset at every read. Serial numbers and MACs that more than one object shows
 * (clones, simulators) identify nothing and are left out of the identity fields.
 */
export function toEstate(address: string, hostname: string | undefined, about: AboutInfo, objects: ObjectContent[], scope: string, complete: boolean): EstateObservation {
  const byId = new Map(objects.map((o) => [o.obj.value, o]));
  const nameOf = (ref: ManagedObjectReference | undefined) => (ref ? str(byId.get(ref.value)?.props.get('name')) : undefined);
  const of = (type: string) => objects.filter((o) => o.obj.type === type);
  const uuid = about.instanceUuid ?? scope;
  const instanceId = (id: string) => `${uuid}/${id}`;

  const datacenterOf = (ref: ManagedObjectReference | undefined): string | undefined => {
    for (let at = ref, hops = 0; at && hops < 64; hops++) {
      const o = byId.get(at.value);
      if (!o) return undefined;
      if (o.obj.type === 'Datacenter') return str(o.props.get('name'));
      at = asRef(o.props.get('parent'));
    }
    return undefined;
  };

  const assets: EstateAsset[] = [];
  const relationships: EstateObservation['relationships'] = [];
  const relate = (type: RelationshipType, source: string, target: string) => relationships.push({ type, source, target });
  // Fields and attributes left undefined are what the vCenter did not tell: left out.
  type Draft = Omit<EstateAsset, 'macAddresses' | 'ipAddresses' | 'attributes' | 'hostname' | 'fqdn' | 'vendor' | 'model' | 'serialNumber'> &
    Partial<Record<'hostname' | 'fqdn' | 'vendor' | 'model' | 'serialNumber', string | undefined>> &
    Partial<Pick<EstateAsset, 'macAddresses' | 'ipAddresses'>> & { attributes: Record<string, string | number | boolean | undefined> };
  const asset = ({ attributes, ...a }: Draft) => {
    const defined = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
    assets.push({ macAddresses: [], ipAddresses: [], ...Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)), attributes: defined } as unknown as EstateAsset);
  };

  const managerNames = names(hostname);
  asset({
    key: MANAGER_KEY, assetType: 'VIRTUALIZATION_MANAGER', displayName: hostname ?? address, ...(managerNames.hostname ? { hostname: managerNames.hostname } : {}), ...(managerNames.fqdn ? { fqdn: managerNames.fqdn } : {}),
    vendor: about.vendor, model: about.fullName, ipAddresses: net.isIP(address) ? [address] : [],
    attributes: { productName: about.name, version: about.version, build: about.build, apiVersion: about.apiVersion, instanceId: about.instanceUuid },
  });

  for (const c of of('ClusterComputeResource')) {
    asset({ key: c.obj.value, assetType: 'CLUSTER', displayName: nameOf(c.obj) ?? c.obj.value, attributes: { datacenter: datacenterOf(c.obj), instanceId: instanceId(c.obj.value) } });
    relate('MANAGED_BY', c.obj.value, MANAGER_KEY);
  }

  // Identifiers shown by more than one host or VM are no identifiers.
  const hosts = of('HostSystem');
  const vms = of('VirtualMachine');
  const hostSerial = (h: ObjectContent) => {
    const info = list(field(h.props.get('summary.hardware'), 'otherIdentifyingInfo'));
    const tag = info.find((i) => str(field(field(i, 'identifierType'), 'key')) === 'ServiceTag');
    return str(field(tag, 'identifierValue'))?.trim() || undefined;
  };
  const vmSerial = (v: ObjectContent) => vmwareBiosSerial(str(v.props.get('config.uuid')));
  const vmNics = (v: ObjectContent) => list(field(v.props.get('guest.net'), 'GuestNicInfo'));
  const vmMacs = (v: ObjectContent) => vmNics(v).flatMap((n) => str(field(n, 'macAddress'))?.toLowerCase() ?? []);
  const counts = new Map<string, number>();
  for (const value of [...hosts.map(hostSerial), ...vms.map(vmSerial), ...vms.flatMap((v) => [...new Set(vmMacs(v))])]) if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  const unique = (value: string | undefined) => (value && counts.get(value) === 1 ? value : undefined);

  const networkType = (ref: ManagedObjectReference) => (ref.type === 'DistributedVirtualPortgroup' ? 'PORT_GROUP' : 'NETWORK');
  for (const h of hosts) {
    const key = h.obj.value;
    const name = str(h.props.get('name'));
    const hardware = h.props.get('summary.hardware');
    const product = h.props.get('summary.config.product');
    const parent = asRef(h.props.get('parent'));
    const cluster = parent?.type === 'ClusterComputeResource' ? parent : undefined;
    const hostNames = names(name);
    const memory = num(field(hardware, 'memorySize'));
    asset({
      key, assetType: 'HYPERVISOR', displayName: name ?? key, hostname: hostNames.hostname, fqdn: hostNames.fqdn, ipAddresses: hostNames.ip ? [hostNames.ip] : [],
      vendor: str(field(hardware, 'vendor')), model: str(field(hardware, 'model')), serialNumber: unique(hostSerial(h)),
      attributes: {
        hypervisorProduct: str(field(product, 'fullName')), osName: str(field(product, 'name')), osVersion: str(field(product, 'version')),
        cpuCount: num(field(hardware, 'numCpuThreads')), memoryMb: memory === undefined ? undefined : Math.round(memory / MIB),
        hardwareUuid: str(field(hardware, 'uuid')), cluster: nameOf(cluster), datacenter: datacenterOf(h.obj), instanceId: instanceId(key),
      },
    });
    relate('MANAGED_BY', key, MANAGER_KEY);
    if (cluster) relate('CONTAINS', cluster.value, key);
    for (const ds of refs(h.props.get('datastore'))) relate('USES_DATASTORE', key, ds.value);
    for (const n of refs(h.props.get('network'))) relate('CONTAINS', key, n.value);
    for (const vswitch of list(field(h.props.get('config.network.vswitch'), 'HostVirtualSwitch'))) {
      const switchKey = `${key}/${str(field(vswitch, 'key')) ?? str(field(vswitch, 'name'))}`;
      asset({ key: switchKey, assetType: 'VSWITCH', displayName: str(field(vswitch, 'name')) ?? switchKey, attributes: { distributed: false, host: name, mtu: num(field(vswitch, 'mtu')), instanceId: instanceId(switchKey) } });
      relate('CONTAINS', key, switchKey);
    }
  }

  for (const v of vms) {
    const key = v.obj.value;
    const guestNames = names(str(v.props.get('guest.hostName')));
    const ips = vmNics(v).flatMap((n) => list(field(n, 'ipAddress')).flatMap((ip) => str(ip) ?? [])).filter((ip) => net.isIP(ip) && !ip.toLowerCase().startsWith('fe80'));
    asset({
      key, assetType: 'VM', displayName: str(v.props.get('name')) ?? key, hostname: guestNames.hostname, fqdn: guestNames.fqdn,
      serialNumber: unique(vmSerial(v)), macAddresses: [...new Set(vmMacs(v).filter((m) => unique(m)))], ipAddresses: [...new Set(ips)],
      attributes: {
        powerState: str(v.props.get('runtime.powerState')), guestOs: str(v.props.get('config.guestFullName')), cpuCount: num(v.props.get('config.hardware.numCPU')),
        memoryMb: num(v.props.get('config.hardware.memoryMB')), instanceUuid: str(v.props.get('config.instanceUuid')), biosUuid: str(v.props.get('config.uuid')),
        template: str(v.props.get('config.template')) === 'true' ? true : undefined,
        datastores: refs(v.props.get('datastore')).map(nameOf).filter(Boolean).join(','), networks: refs(v.props.get('network')).map(nameOf).filter(Boolean).join(','),
        datacenter: datacenterOf(v.obj), instanceId: str(v.props.get('config.instanceUuid')) ?? instanceId(key),
      },
    });
    const host = asRef(v.props.get('runtime.host'));
    if (host) relate('HOSTS_VM', host.value, key);
  }

  for (const d of of('Datastore')) {
    const capacity = num(d.props.get('summary.capacity'));
    const free = num(d.props.get('summary.freeSpace'));
    asset({
      key: d.obj.value, assetType: 'DATASTORE', displayName: str(d.props.get('name')) ?? d.obj.value,
      attributes: {
        storageType: str(d.props.get('summary.type')), capacityGb: capacity === undefined ? undefined : Math.round(capacity / GIB), freeGb: free === undefined ? undefined : Math.round(free / GIB),
        url: str(d.props.get('summary.url')), datacenter: datacenterOf(d.obj), instanceId: instanceId(d.obj.value),
      },
    });
  }
  for (const n of [...of('Network'), ...of('DistributedVirtualPortgroup'), ...of('OpaqueNetwork')]) {
    asset({ key: n.obj.value, assetType: networkType(n.obj), displayName: str(n.props.get('name')) ?? n.obj.value, attributes: { datacenter: datacenterOf(n.obj), instanceId: instanceId(n.obj.value) } });
    const dvs = asRef(n.props.get('config.distributedVirtualSwitch'));
    if (dvs) relate('CONTAINS', dvs.value, n.obj.value);
  }
  for (const s of objects.filter((o) => /DistributedVirtualSwitch$/.test(o.obj.type))) {
    asset({ key: s.obj.value, assetType: 'VSWITCH', displayName: str(s.props.get('name')) ?? s.obj.value, attributes: { distributed: true, switchUuid: str(s.props.get('uuid')), datacenter: datacenterOf(s.obj), instanceId: instanceId(s.obj.value) } });
    for (const h of refs(s.props.get('summary.hostMember'))) relate('CONTAINS', h.value, s.obj.value);
  }

  // A partial read may name objects it did not read: such edges are left out. Sorted, so that
  // the first edge that makes a parent is the same at every read.
  const keys = new Set(assets.map((a) => a.key));
  const edges = [...new Map(relationships.filter((r) => keys.has(r.source) && keys.has(r.target)).map((r) => [`${r.type}|${r.source}|${r.target}`, r])).values()];
  edges.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.source.localeCompare(b.source) || a.target.localeCompare(b.target)));
  assets.sort((a, b) => a.key.localeCompare(b.key));
  return { method: 'VCENTER', scope, root: MANAGER_KEY, assets, relationships: edges, relationshipTypes: ['MANAGED_BY', 'CONTAINS', 'HOSTS_VM', 'USES_DATASTORE'], complete };
}
