// The asset taxonomy (docs/interface.md §2.3, 2.4, 2.7), in one table: categories and their Neo4j labels, fine
// types, the parent rule of each type, and the schema entries built from them. The synthesized types
// are those of the sub-record kinds, which declare their entries (sub-record-kinds.ts).
import type { components } from '../../platform/http/api-types.js';
import { CATEGORIES, isListedCategory, type Category, type ListedCategory } from './asset-categories.js';
import { field, ON_HOST, type ParentRule, type TypeDefinition, type TypeField } from './asset-type-definition.js';
import { SUB_RECORD_KINDS } from './sub-record-kinds.js';

const STORAGE_PARENT: ParentRule = { via: ['USES_DATASTORE', 'CONTAINS'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] };
const NETWORK_PARENT: ParentRule = { via: ['CONTAINS', 'HAS_INTERFACE'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] };
const CLOUD_PARENT: ParentRule = { via: ['CONTAINS'], direction: 'IN', parentKinds: ['CLOUD_ACCOUNT', 'CLOUD_REGION'] };

const HOST_FIELDS = [
  field('osName', 'string?', 'Operating system name'),
  field('osVersion', 'string?', 'Operating system version'),
  field('kernel', 'string?', 'Kernel release'),
  field('cpuCount', 'integer?', 'Logical CPUs'),
  field('memoryMb', 'integer?', 'Memory in MiB'),
];

const GRAPH_TYPE_DEFINITIONS = {
  PHYSICAL_HOST: { category: 'HOST', label: 'Physical Host', childTypes: ['CONTAINER', 'SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE', 'DATASTORE'], fields: HOST_FIELDS },
  HYPERVISOR: {
    category: 'HOST',
    label: 'Hypervisor',
    parent: { via: ['MANAGED_BY'], direction: 'OUT', parentKinds: ['VIRTUALIZATION_MANAGER'] },
    childTypes: ['VM', 'CONTAINER', 'DATASTORE', 'VSWITCH', 'PORT_GROUP'],
    fields: [...HOST_FIELDS, field('hypervisorProduct', 'string?', 'ESXi, KVM, Hyper-V, ...'), field('vmCount', 'integer?', 'VMs hosted')],
  },
  VM: {
    category: 'HOST',
    label: 'Virtual Machine',
    parent: { via: ['HOSTS_VM'], direction: 'IN', parentKinds: ['HYPERVISOR'] },
    childTypes: ['CONTAINER', 'SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE'],
    fields: [...HOST_FIELDS, field('powerState', 'string?', 'poweredOn, poweredOff, suspended'), field('instanceUuid', 'string?', 'Hypervisor instance UUID')],
  },
  CONTAINER: {
    category: 'HOST',
    label: 'Container',
    parent: { via: ['HOSTS_CONTAINER'], direction: 'IN', parentKinds: ['HOST'] },
    childTypes: ['SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE'],
    fields: [field('image', 'string?', 'Image reference'), field('runtime', 'string?', 'docker, containerd, podman'), field('state', 'string?', 'running, exited')],
  },
  SERVER: { category: 'HOST', label: 'Server', childTypes: ['SOFTWARE', 'SERVICE', 'SOFTWARE_PACKAGE', 'INTERFACE'], fields: HOST_FIELDS },
  NETWORK_DEVICE: {
    category: 'NETWORK_DEVICE',
    label: 'Network Device',
    childTypes: ['INTERFACE', 'VSWITCH'],
    fields: [field('sysObjectId', 'string?', 'SNMP sysObjectID'), field('sysDescr', 'string?', 'SNMP sysDescr'), field('firmware', 'string?', 'Firmware version')],
  },
  PRINTER: { category: 'PRINTER', label: 'Printer', fields: [field('sysDescr', 'string?', 'SNMP sysDescr')] },
  IOT_DEVICE: { category: 'IOT_DEVICE', label: 'IoT Device', fields: [field('firmware', 'string?', 'Firmware version')] },
  VIRTUALIZATION_MANAGER: { category: 'VIRTUALIZATION_MANAGER', label: 'Virtualization Manager', childTypes: ['HYPERVISOR', 'CLUSTER'], fields: [field('product', 'string?', 'vCenter, SCVMM, ...'), field('apiVersion', 'string?', 'API version')] },
  CLUSTER: { category: 'CLUSTER', label: 'Cluster', childTypes: ['HYPERVISOR'], fields: [field('haEnabled', 'boolean?', 'High availability'), field('drsEnabled', 'boolean?', 'Load balancing')] },
  DATASTORE: { category: 'STORAGE', label: 'Datastore', parent: STORAGE_PARENT, fields: [field('capacityGb', 'number?', 'Capacity in GB'), field('freeGb', 'number?', 'Free space in GB'), field('fsType', 'string?', 'VMFS, NFS, ...')] },
  STORAGE_POOL: { category: 'STORAGE', label: 'Storage Pool', parent: STORAGE_PARENT, fields: [field('capacityGb', 'number?', 'Capacity in GB'), field('freeGb', 'number?', 'Free space in GB')] },
  NETWORK: { category: 'NETWORK', label: 'Network', parent: NETWORK_PARENT, fields: [field('cidr', 'string?', 'Address range'), field('vlanId', 'integer?', 'VLAN')] },
  VSWITCH: { category: 'NETWORK', label: 'Virtual Switch', parent: NETWORK_PARENT, childTypes: ['PORT_GROUP'], fields: [field('mtu', 'integer?', 'MTU')] },
  PORT_GROUP: { category: 'NETWORK', label: 'Port Group', parent: NETWORK_PARENT, fields: [field('vlanId', 'integer?', 'VLAN')] },
  SOFTWARE: { category: 'SOFTWARE', label: 'Software', parent: ON_HOST, fields: [field('version', 'string?', 'Version'), field('edition', 'string?', 'Edition')] },
  SERVICE: { category: 'SOFTWARE', label: 'Service', parent: ON_HOST, fields: [field('listenPorts', 'string?', 'Ports it listens on')] },
  CLOUD_ACCOUNT: { category: 'CLOUD', label: 'Cloud Account', childTypes: ['CLOUD_REGION'], fields: [field('provider', 'string?', 'AWS, AZURE, GCP'), field('accountId', 'string?', 'Account or subscription id')] },
  CLOUD_REGION: { category: 'CLOUD', label: 'Cloud Region', parent: CLOUD_PARENT, childTypes: ['CLOUD_DATABASE', 'CLOUD_STORAGE', 'CLOUD_LOAD_BALANCER', 'CLOUD_STACK', 'VM'], fields: [field('region', 'string?', 'Region code')] },
  CLOUD_DATABASE: { category: 'CLOUD', label: 'Cloud Database', parent: CLOUD_PARENT, fields: [field('engine', 'string?', 'postgres, mysql, ...'), field('instanceClass', 'string?', 'Size')] },
  CLOUD_STORAGE: { category: 'CLOUD', label: 'Cloud Storage', parent: CLOUD_PARENT, fields: [field('storageClass', 'string?', 'Tier')] },
  CLOUD_LOAD_BALANCER: { category: 'CLOUD', label: 'Cloud Load Balancer', parent: CLOUD_PARENT, fields: [field('scheme', 'string?', 'internet-facing or internal')] },
  CLOUD_STACK: { category: 'CLOUD', label: 'Cloud Stack', parent: CLOUD_PARENT, fields: [field('stackStatus', 'string?', 'Deployment state')] },
  FLOW_EXPORTER: { category: 'FLOW_EXPORTER', label: 'Flow Exporter', fields: [field('protocol', 'string?', 'NetFlow, sFlow, IPFIX')] },
  UNKNOWN_ENDPOINT: { category: 'ENDPOINT', label: 'Unknown Endpoint', fields: [field('openPorts', 'string?', 'Open TCP ports seen')] },
} satisfies Record<string, TypeDefinition>;

type SubRecordKindOf = (typeof SUB_RECORD_KINDS)[number];
/** Every type: those that live in the graph, then the synthesized ones, whose entries their sub-record kinds declare. */
export const ASSET_TYPES = {
  ...GRAPH_TYPE_DEFINITIONS,
  ...(Object.fromEntries(SUB_RECORD_KINDS.map((k) => [k.assetType, k.type])) as { [K in SubRecordKindOf as K['assetType']]: TypeDefinition }),
};

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
  field('id', 'string', 'Asset id (UUID)'),
  field('displayName', 'string', 'Human-friendly label'),
  field('assetType', 'string', 'Fine-grained type'),
  field('assetCategory', 'string', 'Coarse category'),
  field('status', 'string', 'ACTIVE, STALE, INACTIVE or DECOMMISSIONED'),
  field('vendor', 'string?', 'Vendor or publisher'),
  field('model', 'string?', 'Model (the version, for a software package)'),
  field('hostname', 'string?', 'Host name'),
  field('fqdn', 'string?', 'Fully qualified domain name'),
  field('site', 'string?', 'Site'),
  field('environment', 'string?', 'Environment (production, staging, ...)'),
  field('serialNumber', 'string?', 'Serial number'),
  field('macAddresses', 'string[]?', 'MAC addresses'),
  field('ipAddresses', 'string[]?', 'IP addresses'),
  field('customAttributes', 'string', 'JSON object of type-specific values'),
  field('lastScanOutcome', 'string?', 'SUCCESS, FAILED or PARTIAL'),
  field('lastScanAt', 'timestamp?', 'When the latest run that targeted it completed'),
  field('consecutiveScanFailures', 'integer', 'Failed runs in a row'),
  field('firstSeenAt', 'timestamp', 'First observation'),
  field('lastSeenAt', 'timestamp', 'Latest observation'),
];

/** A type's entry as api.yaml gives it, but for what the schema adds from the data and the kinds (its keys, its export); its type and category the taxonomy's. */
export type SchemaEntry = Omit<components['schemas']['SchemaEntry'], 'type' | 'category' | 'customAttributeKeys' | 'export'> & { type: AssetType; category: Category };

/**
 * A parent rule's kinds as arrays for clients: the categories named whole, and every type that
 * qualifies (the types of those categories and the types named alone), in taxonomy order.
 */
function qualifyingParents(rule: ParentRule): { parentCategories: ListedCategory[]; parentTypes: AssetType[] } {
  // Parents are graph assets: their categories are the listed ones.
  const parentCategories = rule.parentKinds.filter(isListedCategory);
  const parentTypes = ALL_TYPES.filter((t) => rule.parentKinds.includes(t) || rule.parentKinds.includes(categoryOf(t)));
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
      ? { via: rule.via[0], viaAlternatives: rule.via.slice(1), direction: rule.direction, parentCategory: rule.parentKinds.join(' or '), ...qualifyingParents(rule) }
      : null,
    typeFields: [...COMMON_FIELDS, ...(def.fields ?? [])],
    childTypes: def.childTypes ?? [],
  };
}
