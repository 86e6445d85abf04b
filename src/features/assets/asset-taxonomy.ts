// The asset taxonomy (docs/interface.md §2.3, 2.4, 2.7), in one table: categories and their Neo4j labels, fine
// types, the parent rule of each type, and the schema entries built from them. The synthesized types
// are those of the sub-record kinds (subrecords/sub-record-kinds.ts).
import { SUB_RECORD_KINDS } from '../subrecords/sub-record-kinds.js';

export const CATEGORIES = {
  HOST: { label: 'Host', nodeLabel: 'Host' },
  NETWORK_DEVICE: { label: 'Network Device', nodeLabel: 'NetworkDevice' },
  PRINTER: { label: 'Printer', nodeLabel: 'Printer' },
  IOT_DEVICE: { label: 'IoT Device', nodeLabel: 'IotDevice' },
  VIRTUALIZATION_MANAGER: { label: 'Virtualization Manager', nodeLabel: 'VirtualizationManager' },
  CLUSTER: { label: 'Cluster', nodeLabel: 'Cluster' },
  STORAGE: { label: 'Storage', nodeLabel: 'Storage' },
  NETWORK: { label: 'Network', nodeLabel: 'Network' },
  SOFTWARE: { label: 'Software', nodeLabel: 'Software' },
  CLOUD: { label: 'Cloud', nodeLabel: 'Cloud' },
  FLOW_EXPORTER: { label: 'Flow Exporter', nodeLabel: 'FlowExporter' },
  ENDPOINT: { label: 'Endpoint', nodeLabel: 'Endpoint' },
  // Synthesized from PostgreSQL rows (docs/interface.md §2.3: "their own category").
  PROCESS: { label: 'Process', nodeLabel: null },
  SERVICE: { label: 'Service', nodeLabel: null },
} as const;

export type Category = keyof typeof CATEGORIES;
/** The categories of docs/interface.md §2.3, which the category filter and the schema accept. */
export const LISTED_CATEGORIES = Object.keys(CATEGORIES).filter((c) => c !== 'PROCESS' && c !== 'SERVICE') as Category[];

export const RELATIONSHIP_TYPES = ['RUNS_ON', 'HOSTS_VM', 'HOSTS_CONTAINER', 'MANAGED_BY', 'CONTAINS', 'USES_DATASTORE', 'HAS_INTERFACE', 'COMMUNICATES_WITH'] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];

export interface ParentRule {
  /** Edge types in order of preference; the first is the documented `via`. */
  via: RelationshipType[];
  /** IN: the parent points at the asset; OUT: the asset points at its parent. */
  direction: 'IN' | 'OUT';
  /** Types or categories a parent may have. */
  parentKinds: string[];
}

export interface TypeField {
  name: string;
  type: string;
  description: string;
}

interface TypeDefinition {
  category: Category;
  label: string;
  parent?: ParentRule;
  childTypes?: string[];
  fields?: TypeField[];
}

const f = (name: string, type: string, description: string): TypeField => ({ name, type, description });

const ON_HOST: ParentRule = { via: ['RUNS_ON'], direction: 'OUT', parentKinds: ['HOST'] };
const STORAGE_PARENT: ParentRule = { via: ['USES_DATASTORE', 'CONTAINS'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] };
const NETWORK_PARENT: ParentRule = { via: ['CONTAINS', 'HAS_INTERFACE'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] };
const CLOUD_PARENT: ParentRule = { via: ['CONTAINS'], direction: 'IN', parentKinds: ['CLOUD_ACCOUNT', 'CLOUD_REGION'] };

const HOST_FIELDS = [
  f('osName', 'string?', 'Operating system name'),
  f('osVersion', 'string?', 'Operating system version'),
  f('kernel', 'string?', 'Kernel release'),
  f('cpuCount', 'integer?', 'Logical CPUs'),
  f('memoryMb', 'integer?', 'Memory in MiB'),
];

export const ASSET_TYPES = {
  PHYSICAL_HOST: { category: 'HOST', label: 'Physical Host', childTypes: ['CONTAINER', 'SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE', 'DATASTORE'], fields: HOST_FIELDS },
  HYPERVISOR: {
    category: 'HOST',
    label: 'Hypervisor',
    parent: { via: ['MANAGED_BY'], direction: 'OUT', parentKinds: ['VIRTUALIZATION_MANAGER'] },
    childTypes: ['VM', 'CONTAINER', 'DATASTORE', 'VSWITCH', 'PORT_GROUP'],
    fields: [...HOST_FIELDS, f('hypervisorProduct', 'string?', 'ESXi, KVM, Hyper-V, ...'), f('vmCount', 'integer?', 'VMs hosted')],
  },
  VM: {
    category: 'HOST',
    label: 'Virtual Machine',
    parent: { via: ['HOSTS_VM'], direction: 'IN', parentKinds: ['HYPERVISOR'] },
    childTypes: ['CONTAINER', 'SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE'],
    fields: [...HOST_FIELDS, f('powerState', 'string?', 'poweredOn, poweredOff, suspended'), f('instanceUuid', 'string?', 'Hypervisor instance UUID')],
  },
  CONTAINER: {
    category: 'HOST',
    label: 'Container',
    parent: { via: ['HOSTS_CONTAINER'], direction: 'IN', parentKinds: ['HOST'] },
    childTypes: ['SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE'],
    fields: [f('image', 'string?', 'Image reference'), f('runtime', 'string?', 'docker, containerd, podman'), f('state', 'string?', 'running, exited')],
  },
  SERVER: { category: 'HOST', label: 'Server', childTypes: ['SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE'], fields: HOST_FIELDS },
  NETWORK_DEVICE: {
    category: 'NETWORK_DEVICE',
    label: 'Network Device',
    childTypes: ['INTERFACE', 'VSWITCH'],
    fields: [f('sysObjectId', 'string?', 'SNMP sysObjectID'), f('sysDescr', 'string?', 'SNMP sysDescr'), f('firmware', 'string?', 'Firmware version')],
  },
  PRINTER: { category: 'PRINTER', label: 'Printer', fields: [f('sysDescr', 'string?', 'SNMP sysDescr')] },
  IOT_DEVICE: { category: 'IOT_DEVICE', label: 'IoT Device', fields: [f('firmware', 'string?', 'Firmware version')] },
  VIRTUALIZATION_MANAGER: { category: 'VIRTUALIZATION_MANAGER', label: 'Virtualization Manager', childTypes: ['HYPERVISOR', 'CLUSTER'], fields: [f('product', 'string?', 'vCenter, SCVMM, ...'), f('apiVersion', 'string?', 'API version')] },
  CLUSTER: { category: 'CLUSTER', label: 'Cluster', childTypes: ['HYPERVISOR'], fields: [f('haEnabled', 'boolean?', 'High availability'), f('drsEnabled', 'boolean?', 'Load balancing')] },
  DATASTORE: { category: 'STORAGE', label: 'Datastore', parent: STORAGE_PARENT, fields: [f('capacityGb', 'number?', 'Capacity in GB'), f('freeGb', 'number?', 'Free space in GB'), f('fsType', 'string?', 'VMFS, NFS, ...')] },
  STORAGE_POOL: { category: 'STORAGE', label: 'Storage Pool', parent: STORAGE_PARENT, fields: [f('capacityGb', 'number?', 'Capacity in GB'), f('freeGb', 'number?', 'Free space in GB')] },
  NETWORK: { category: 'NETWORK', label: 'Network', parent: NETWORK_PARENT, fields: [f('cidr', 'string?', 'Address range'), f('vlanId', 'integer?', 'VLAN')] },
  VSWITCH: { category: 'NETWORK', label: 'Virtual Switch', parent: NETWORK_PARENT, childTypes: ['PORT_GROUP'], fields: [f('mtu', 'integer?', 'MTU')] },
  PORT_GROUP: { category: 'NETWORK', label: 'Port Group', parent: NETWORK_PARENT, fields: [f('vlanId', 'integer?', 'VLAN')] },
  INTERFACE: {
    category: 'NETWORK',
    label: 'Interface',
    parent: { via: ['HAS_INTERFACE', 'CONTAINS'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] },
    fields: [f('ifIndex', 'integer?', 'Interface index'), f('macAddress', 'string?', 'MAC'), f('speedMbps', 'integer?', 'Speed'), f('operStatus', 'string?', 'up, down')],
  },
  SOFTWARE: { category: 'SOFTWARE', label: 'Software', parent: ON_HOST, fields: [f('version', 'string?', 'Version'), f('edition', 'string?', 'Edition')] },
  SERVICE: { category: 'SOFTWARE', label: 'Service', parent: ON_HOST, fields: [f('listenPorts', 'string?', 'Ports it listens on')] },
  SOFTWARE_PACKAGE: {
    category: 'SOFTWARE',
    label: 'Software Package',
    parent: ON_HOST,
    fields: [f('install_date', 'date?', 'Install date'), f('package_manager', 'string?', 'dpkg, rpm, ...')],
  },
  RUNNING_PROCESS: { category: 'PROCESS', label: 'Running Process', parent: ON_HOST, fields: [f('pid', 'integer', 'Process id'), f('command_line', 'string?', 'Command line')] },
  DISCOVERED_SERVICE: { category: 'SERVICE', label: 'Discovered Service', parent: ON_HOST, fields: [f('listen_ports', 'array?', 'Protocol and port pairs')] },
  CLOUD_ACCOUNT: { category: 'CLOUD', label: 'Cloud Account', childTypes: ['CLOUD_REGION'], fields: [f('provider', 'string?', 'AWS, AZURE, GCP'), f('accountId', 'string?', 'Account or subscription id')] },
  CLOUD_REGION: { category: 'CLOUD', label: 'Cloud Region', parent: CLOUD_PARENT, childTypes: ['CLOUD_DATABASE', 'CLOUD_STORAGE', 'CLOUD_LOAD_BALANCER', 'CLOUD_STACK', 'VM'], fields: [f('region', 'string?', 'Region code')] },
  CLOUD_DATABASE: { category: 'CLOUD', label: 'Cloud Database', parent: CLOUD_PARENT, fields: [f('engine', 'string?', 'postgres, mysql, ...'), f('instanceClass', 'string?', 'Size')] },
  CLOUD_STORAGE: { category: 'CLOUD', label: 'Cloud Storage', parent: CLOUD_PARENT, fields: [f('storageClass', 'string?', 'Tier')] },
  CLOUD_LOAD_BALANCER: { category: 'CLOUD', label: 'Cloud Load Balancer', parent: CLOUD_PARENT, fields: [f('scheme', 'string?', 'internet-facing or internal')] },
  CLOUD_STACK: { category: 'CLOUD', label: 'Cloud Stack', parent: CLOUD_PARENT, fields: [f('stackStatus', 'string?', 'Deployment state')] },
  FLOW_EXPORTER: { category: 'FLOW_EXPORTER', label: 'Flow Exporter', fields: [f('protocol', 'string?', 'NetFlow, sFlow, IPFIX')] },
  UNKNOWN_ENDPOINT: { category: 'ENDPOINT', label: 'Unknown Endpoint', fields: [f('openPorts', 'string?', 'Open TCP ports seen')] },
} satisfies Record<string, TypeDefinition>;

export type AssetType = keyof typeof ASSET_TYPES;
const DEFINITIONS: Record<string, TypeDefinition> = ASSET_TYPES;
export const ALL_TYPES = Object.keys(ASSET_TYPES) as AssetType[];
/** Types built from PostgreSQL rows, in the paging order of docs/interface.md, decision 5 (each needs its entry above). */
export const SYNTHESIZED_TYPES = SUB_RECORD_KINDS.map((k) => k.assetType) satisfies AssetType[];
const SYNTHESIZED = new Set<string>(SYNTHESIZED_TYPES);
/** Types that live in Neo4j. */
export const GRAPH_TYPES = ALL_TYPES.filter((t) => !SYNTHESIZED.has(t));

// The root types of docs/interface.md §2.4: never children.
const ROOT_TYPES = new Set(['PHYSICAL_HOST', 'NETWORK_DEVICE', 'PRINTER', 'CLOUD_ACCOUNT', 'VIRTUALIZATION_MANAGER', 'CLUSTER', 'FLOW_EXPORTER', 'UNKNOWN_ENDPOINT']);
const PHYSICAL = new Set(['PHYSICAL_HOST', 'HYPERVISOR', 'SERVER']);
const VIRTUAL = new Set(['VM', 'CONTAINER']);

export function isAssetType(value: string): value is AssetType {
  return Object.hasOwn(ASSET_TYPES, value);
}

export function categoryOf(type: AssetType): Category {
  return (DEFINITIONS[type] as TypeDefinition).category;
}

export function typeLabel(type: AssetType): string {
  return (DEFINITIONS[type] as TypeDefinition).label;
}

export function parentRule(type: AssetType): ParentRule | undefined {
  return ROOT_TYPES.has(type) ? undefined : DEFINITIONS[type]?.parent;
}

/** true for VM and CONTAINER, false for physical hosts, null outside the HOST category. */
export function isVirtual(type: AssetType): boolean | null {
  return VIRTUAL.has(type) ? true : PHYSICAL.has(type) ? false : null;
}

export const COMMON_FIELDS: TypeField[] = [
  f('id', 'string', 'Asset id (UUID)'),
  f('displayName', 'string', 'Human-friendly label'),
  f('assetType', 'string', 'Fine-grained type'),
  f('assetCategory', 'string', 'Coarse category'),
  f('status', 'string', 'ACTIVE, STALE, INACTIVE or DECOMMISSIONED'),
  f('vendor', 'string?', 'Vendor or publisher'),
  f('model', 'string?', 'Model (the version, for a software package)'),
  f('hostname', 'string?', 'Host name'),
  f('fqdn', 'string?', 'Fully qualified domain name'),
  f('site', 'string?', 'Site'),
  f('environment', 'string?', 'Environment (production, staging, ...)'),
  f('serialNumber', 'string?', 'Serial number'),
  f('macAddresses', 'string[]?', 'MAC addresses'),
  f('ipAddresses', 'string[]?', 'IP addresses'),
  f('customAttributes', 'string', 'JSON object of type-specific values'),
  f('lastScanOutcome', 'string?', 'SUCCESS, FAILED or PARTIAL'),
  f('lastScanAt', 'timestamp?', 'When the latest run that targeted it completed'),
  f('consecutiveScanFailures', 'integer', 'Failed runs in a row'),
  f('firstSeenAt', 'timestamp', 'First observation'),
  f('lastSeenAt', 'timestamp', 'Latest observation'),
];

export interface SchemaEntry {
  type: AssetType;
  category: Category;
  label: string;
  categoryLabel: string;
  isRoot: boolean;
  virtual: boolean | null;
  cloud: boolean;
  synthesized: boolean;
  parent: { via: string; viaAlternatives: string[]; direction: 'IN' | 'OUT'; parentCategory: string; parentCategories: Category[]; parentTypes: AssetType[] } | null;
  typeFields: TypeField[];
  childTypes: string[];
}

/**
 * A parent rule's kinds as arrays for clients: the categories named whole, and every type that
 * qualifies (the types of those categories and the types named alone), in taxonomy order.
 */
function qualifyingParents(rule: ParentRule): { parentCategories: Category[]; parentTypes: AssetType[] } {
  const parentCategories = rule.parentKinds.filter((k): k is Category => Object.hasOwn(CATEGORIES, k));
  const parentTypes = (Object.keys(ASSET_TYPES) as AssetType[]).filter((t) => rule.parentKinds.includes(t) || parentCategories.includes(categoryOf(t)));
  return { parentCategories, parentTypes };
}

export function schemaEntry(type: AssetType): SchemaEntry {
  const def = DEFINITIONS[type] as TypeDefinition;
  const rule = parentRule(type);
  return {
    type,
    category: def.category,
    label: def.label,
    categoryLabel: CATEGORIES[def.category].label,
    isRoot: ROOT_TYPES.has(type),
    virtual: isVirtual(type),
    cloud: def.category === 'CLOUD',
    synthesized: SYNTHESIZED.has(type),
    parent: rule
      ? { via: rule.via[0] as string, viaAlternatives: rule.via.slice(1), direction: rule.direction, parentCategory: rule.parentKinds.join(' or '), ...qualifyingParents(rule) }
      : null,
    typeFields: [...COMMON_FIELDS, ...(def.fields ?? [])],
    childTypes: def.childTypes ?? [],
  };
}
