// What the Azure connector read of one tenant as an estate, as pure functions, with the spec's types
// and parent rules: each subscription (CLOUD_ACCOUNT, a root) CONTAINS its locations (CLOUD_REGION)
// and its resource groups and deployments (CLOUD_STACK: they span locations); a location CONTAINS
// the storage accounts and blob containers (CLOUD_STORAGE; the containers read from each account's
// blob service, a part of their own), SQL servers and databases
// (CLOUD_DATABASE), load balancers (CLOUD_LOAD_BALANCER), virtual machines (VM) and virtual
// networks (NETWORK) in it, or their subscription where the locations were not read. A virtual
// network CONTAINS its subnets (NETWORK) and a subnet the VMs with an interface in it; a storage
// account CONTAINS its containers and a SQL server its databases; a load balancer COMMUNICATES_WITH
// the VMs whose interfaces are in its backend pools; a resource group CONTAINS every asset of the
// read in it, a deployment the resources it created (outputResources). Under the spec's rules the
// CLOUD types get their location or subscription as parent; a VM's rule (HOSTS_VM from a
// HYPERVISOR) and a NETWORK's (CONTAINS from a HOST) find none in a cloud, so those have no parent
// and reach their location through the CONTAINS edges, as AWS's instances do. Every asset carries
// `instanceId`, its Azure resource id in lower case (ARM ids are case-insensitive), so that it is
// the same asset at every read; a VM also its interfaces' MACs. Private addresses repeat across
// virtual networks and computer names across VMs made from one template, so they are attributes,
// never identity.
import type { Location, Subscription } from '@azure/arm-resources-subscriptions';
import type { VirtualMachine } from '@azure/arm-compute';
import type { LoadBalancer, NetworkInterface, VirtualNetwork } from '@azure/arm-network';
import type { ResourceGroup } from '@azure/arm-resources';
import type { Database, Server } from '@azure/arm-sql';
import type { StorageAccount } from '@azure/arm-storage';
import type { ContainerItem } from '@azure/storage-blob';
import type { RelationshipType } from '../../../inventory/relationship-types.js';
import type { EstateAsset, EstateObservation } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import type { PartRead } from '../parted-read.js';

/** What was read of one subscription (each list as far as its read went). */
export interface SubscriptionResources {
  locations: Location[];
  virtualMachines: VirtualMachine[];
  virtualNetworks: VirtualNetwork[];
  networkInterfaces: NetworkInterface[];
  loadBalancers: LoadBalancer[];
  storageAccounts: StorageAccount[];
  /** Each storage account's blob containers (its blob service's List Containers), by the account's id in lower case. */
  blobContainers: Map<string, BlobContainer[]>;
  sqlServers: Server[];
  /** Each SQL server's databases, by the server's id in lower case. */
  sqlDatabases: Map<string, Database[]>;
  resourceGroups: ResourceGroup[];
  /** Each resource group's deployments, by the group's id in lower case. */
  deployments: Map<string, Deployment[]>;
}

/** A blob container as the blob service lists it. */
export type BlobContainer = ContainerItem;

/** A deployment as Deployments_ListByResourceGroup gives it (the fields read). */
export interface Deployment {
  id?: string;
  name?: string;
  properties?: { provisioningState?: string; timestamp?: string; mode?: string; outputResources?: { id?: string }[] };
}

export interface TenantRead {
  tenantId: string;
  subscriptions: Subscription[];
  /** The part the subscriptions were read in (subscriptionsPart). */
  subscriptionsPart: string;
  bySubscription: Map<string, SubscriptionResources>;
  parts: PartRead[];
}

export const emptySubscription = (): SubscriptionResources => ({
  locations: [], virtualMachines: [], virtualNetworks: [], networkInterfaces: [], loadBalancers: [], storageAccounts: [],
  blobContainers: new Map(), sqlServers: [], sqlDatabases: new Map(), resourceGroups: [], deployments: new Map(),
});

/**
 * The part names: one for the subscriptions (one of its own for each set a target names, so that a
 * target that reads some never retires the others), and one per service and subscription.
 */
export const subscriptionsPart = (named: string[] | undefined) => (named ? `subscriptions:${named.map((s) => s.toLowerCase()).sort().join(',')}` : 'subscriptions');
export const SUBSCRIPTION_SERVICES = ['locations', 'compute', 'network', 'storage', 'sql', 'resources'] as const;
export type SubscriptionService = (typeof SUBSCRIPTION_SERVICES)[number];
export const subscriptionPart = (service: SubscriptionService, subscriptionId: string) => `${service}:${subscriptionId.toLowerCase()}`;
/** The part of a storage account's blob containers (read from its blob service), by the account's id. */
export const blobPart = (accountId: string) => `blobs:${accountId.toLowerCase()}`;

const str = (value: string | undefined | null): string | undefined => (value ? cleanText(value) : undefined);
const iso = (date: Date | undefined) => (date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined);
const key = (id: string | undefined) => id?.toLowerCase();
/** The NIC an IP configuration id belongs to (…/networkInterfaces/<nic>/ipConfigurations/<name>). */
const nicOf = (ipConfigurationId: string) => ipConfigurationId.toLowerCase().replace(/\/ipconfigurations\/[^/]+$/, '');
/** The resource group an id lies in, as its id. */
const groupOf = (id: string) => /^(\/subscriptions\/[^/]+\/resourcegroups\/[^/]+)\//.exec(id.toLowerCase())?.[1];
/** Azure writes MACs as 00-0D-3A-1B-C7-21. */
const mac = (value: string | undefined) => (value && /^([0-9A-Fa-f]{2}[-:]){5}[0-9A-Fa-f]{2}$/.test(value) ? value.replace(/-/g, ':').toLowerCase() : undefined);

/** The estate of one tenant; `scope` names it (AZURE:<tenant id>), and each part is a scope below it. */
export function toEstate(read: TenantRead): EstateObservation & { parts: { name: string; keys: string[]; complete: boolean }[] } {
  const assets = new Map<string, EstateAsset>();
  const partOf = new Map<string, string>();
  const relationships: EstateObservation['relationships'] = [];
  const relate = (type: RelationshipType, source: string | undefined, target: string | undefined) => {
    if (source && target) relationships.push({ type, source, target });
  };
  type Draft = Pick<EstateAsset, 'key' | 'assetType' | 'displayName'> & Partial<Pick<EstateAsset, 'macAddresses' | 'model'>> & { attributes: Record<string, string | number | boolean | undefined> };
  const asset = (part: string, subscriptionId: string, { attributes, ...a }: Draft) => {
    const defined = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
    assets.set(a.key, { macAddresses: [], ipAddresses: [], vendor: 'Microsoft Azure', ...a, attributes: { provider: 'AZURE', tenantId: read.tenantId, accountId: subscriptionId, instanceId: a.key, ...defined } });
    partOf.set(a.key, part);
  };

  for (const s of read.subscriptions) {
    const id = s.subscriptionId as string;
    asset(read.subscriptionsPart, id, { key: `/subscriptions/${id.toLowerCase()}`, assetType: 'CLOUD_ACCOUNT', displayName: str(s.displayName) ?? id, attributes: { subscriptionId: id, state: str(s.state) } });
  }

  for (const [subscriptionId, res] of read.bySubscription) {
    const account = `/subscriptions/${subscriptionId.toLowerCase()}`;
    const part = (service: SubscriptionService) => subscriptionPart(service, subscriptionId);
    const locationKey = (name: string | undefined) => (name ? `${account}/locations/${name.toLowerCase()}` : undefined);
    const readLocations = new Set(res.locations.flatMap((l) => l.name?.toLowerCase() ?? []));
    // A resource's location CONTAINS it where the locations were read, else its subscription.
    const home = (location: string | undefined) => (location && readLocations.has(location.toLowerCase()) ? locationKey(location) : account);
    const place = (k: string, location: string | undefined) => {
      relate('CONTAINS', home(location), k);
      relate('CONTAINS', groupOf(k), k);
    };

    for (const l of res.locations) {
      const k = locationKey(l.name) as string;
      asset(part('locations'), subscriptionId, { key: k, assetType: 'CLOUD_REGION', displayName: l.name as string, attributes: { region: str(l.name), regionDisplayName: str(l.displayName), geography: str(l.metadata?.geographyGroup), physicalLocation: str(l.metadata?.physicalLocation) } });
      relate('CONTAINS', account, k);
    }

    // The interfaces, by id: a VM's MACs and subnets, and the backend pools its IP configurations are in.
    const nics = new Map(res.networkInterfaces.flatMap((n) => (n.id ? [[n.id.toLowerCase(), n] as const] : [])));
    for (const v of res.virtualNetworks) {
      const k = key(v.id);
      if (!k) continue;
      asset(part('network'), subscriptionId, { key: k, assetType: 'NETWORK', displayName: str(v.name) ?? k, attributes: { service: 'network', kind: 'virtualNetwork', region: str(v.location), cidr: str(v.addressSpace?.addressPrefixes?.join(', ')), state: str(v.provisioningState) } });
      place(k, v.location);
      for (const s of v.subnets ?? []) {
        const sk = key(s.id);
        if (!sk) continue;
        asset(part('network'), subscriptionId, { key: sk, assetType: 'NETWORK', displayName: `${str(v.name) ?? ''}/${str(s.name) ?? ''}`, attributes: { service: 'network', kind: 'subnet', region: str(v.location), cidr: str(s.addressPrefix ?? s.addressPrefixes?.join(', ')), state: str(s.provisioningState) } });
        relate('CONTAINS', k, sk);
      }
    }
    // The VM of each interface, by interface id (the interface names its VM; a VM names its interfaces).
    const vmOfNic = new Map<string, string>();
    for (const n of res.networkInterfaces) if (n.id && n.virtualMachine?.id) vmOfNic.set(n.id.toLowerCase(), n.virtualMachine.id.toLowerCase());
    for (const vm of res.virtualMachines) {
      const k = key(vm.id);
      if (!k) continue;
      for (const ref of vm.networkProfile?.networkInterfaces ?? []) if (ref.id) vmOfNic.set(ref.id.toLowerCase(), k);
    }
    for (const vm of res.virtualMachines) {
      const k = key(vm.id);
      if (!k) continue;
      const own = [...vmOfNic].filter(([, v]) => v === k).flatMap(([n]) => nics.get(n) ?? []);
      const configs = own.flatMap((n) => n.ipConfigurations ?? []);
      const image = vm.storageProfile?.imageReference;
      asset(part('compute'), subscriptionId, {
        key: k, assetType: 'VM', displayName: str(vm.name) ?? k, model: str(vm.hardwareProfile?.vmSize),
        macAddresses: [...new Set(own.flatMap((n) => mac(n.macAddress) ?? []))],
        attributes: {
          service: 'compute', region: str(vm.location), vmId: str(vm.vmId), vmSize: str(vm.hardwareProfile?.vmSize), osType: str(vm.storageProfile?.osDisk?.osType),
          image: image ? str([image.publisher, image.offer, image.sku, image.version].filter(Boolean).join(':')) : undefined, computerName: str(vm.osProfile?.computerName),
          provisioningState: str(vm.provisioningState), privateIpAddress: str(configs.flatMap((c) => c.privateIPAddress ?? []).join(', ')), zones: str(vm.zones?.join(', ')),
        },
      });
      place(k, vm.location);
      for (const c of configs) relate('CONTAINS', key(c.subnet?.id), k);
    }
    for (const lb of res.loadBalancers) {
      const k = key(lb.id);
      if (!k) continue;
      asset(part('network'), subscriptionId, {
        key: k, assetType: 'CLOUD_LOAD_BALANCER', displayName: str(lb.name) ?? k,
        attributes: { service: 'network', region: str(lb.location), sku: str(lb.sku?.name), frontendPrivateIp: str(lb.frontendIPConfigurations?.flatMap((f) => f.privateIPAddress ?? []).join(', ')), state: str(lb.provisioningState) },
      });
      place(k, lb.location);
      // The backends: the pools' IP configurations (the load balancer's answer), and the interfaces that name one of its pools (theirs).
      const pools = new Set((lb.backendAddressPools ?? []).flatMap((p) => key(p.id) ?? []));
      for (const p of lb.backendAddressPools ?? []) for (const c of p.backendIPConfigurations ?? []) if (c.id) relate('COMMUNICATES_WITH', k, vmOfNic.get(nicOf(c.id)));
      for (const n of res.networkInterfaces) {
        if (n.ipConfigurations?.some((c) => c.loadBalancerBackendAddressPools?.some((p) => pools.has(key(p.id) ?? '')))) relate('COMMUNICATES_WITH', k, vmOfNic.get(key(n.id) ?? ''));
      }
    }
    for (const sa of res.storageAccounts) {
      const k = key(sa.id);
      if (!k) continue;
      asset(part('storage'), subscriptionId, {
        key: k, assetType: 'CLOUD_STORAGE', displayName: str(sa.name) ?? k,
        attributes: { service: 'storage', kind: str(sa.kind), region: str(sa.location), sku: str(sa.sku?.name), blobEndpoint: str(sa.primaryEndpoints?.blob), createdAt: iso(sa.creationTime), state: str(sa.provisioningState) },
      });
      place(k, sa.location);
      for (const c of res.blobContainers.get(k) ?? []) {
        if (!c.name) continue;
        // The container's resource id, as Resource Manager names it (container names are lower case).
        const ck = `${k}/blobservices/default/containers/${c.name.toLowerCase()}`;
        asset(blobPart(k), subscriptionId, {
          key: ck, assetType: 'CLOUD_STORAGE', displayName: `${str(sa.name) ?? ''}/${str(c.name) ?? ''}`,
          attributes: { service: 'storage', kind: 'blobContainer', region: str(sa.location), publicAccess: str(c.properties.publicAccess) ?? 'none', lastModifiedAt: iso(c.properties.lastModified) },
        });
        relate('CONTAINS', home(sa.location), ck);
        relate('CONTAINS', k, ck);
      }
    }
    for (const s of res.sqlServers) {
      const k = key(s.id);
      if (!k) continue;
      asset(part('sql'), subscriptionId, { key: k, assetType: 'CLOUD_DATABASE', displayName: str(s.name) ?? k, attributes: { service: 'sql', kind: 'server', region: str(s.location), engine: 'sqlserver', version: str(s.version), endpoint: str(s.fullyQualifiedDomainName), state: str(s.state) } });
      place(k, s.location);
      for (const d of res.sqlDatabases.get(k) ?? []) {
        const dk = key(d.id);
        if (!dk) continue;
        asset(part('sql'), subscriptionId, {
          key: dk, assetType: 'CLOUD_DATABASE', displayName: `${str(s.name) ?? ''}/${str(d.name) ?? ''}`,
          attributes: { service: 'sql', kind: 'database', region: str(d.location), engine: 'sqlserver', sku: str(d.sku?.name), tier: str(d.sku?.tier), status: str(d.status), databaseId: str(d.databaseId), maxSizeBytes: d.maxSizeBytes, createdAt: iso(d.creationDate) },
        });
        relate('CONTAINS', home(d.location), dk);
        relate('CONTAINS', k, dk);
      }
    }
    for (const g of res.resourceGroups) {
      const k = key(g.id);
      if (!k) continue;
      asset(part('resources'), subscriptionId, { key: k, assetType: 'CLOUD_STACK', displayName: str(g.name) ?? k, attributes: { service: 'resources', kind: 'resourceGroup', region: str(g.location), state: str(g.properties?.provisioningState) } });
      relate('CONTAINS', account, k);
      for (const d of res.deployments.get(k) ?? []) {
        const dk = key(d.id);
        if (!dk) continue;
        asset(part('resources'), subscriptionId, {
          key: dk, assetType: 'CLOUD_STACK', displayName: `${str(g.name) ?? ''}/${str(d.name) ?? ''}`,
          attributes: { service: 'resources', kind: 'deployment', state: str(d.properties?.provisioningState), deployedAt: str(d.properties?.timestamp), mode: str(d.properties?.mode) },
        });
        relate('CONTAINS', account, dk);
        relate('CONTAINS', k, dk);
        for (const r of d.properties?.outputResources ?? []) relate('CONTAINS', dk, key(r.id));
      }
    }
  }

  // A partial read may name what it did not read (a VM of a failed part): such edges are left out.
  // Sorted, so that the first edge that makes a parent is the same at every read.
  const edges = [...new Map(relationships.filter((r) => r.source !== r.target && assets.has(r.source) && assets.has(r.target)).map((r) => [`${r.type}|${r.source}|${r.target}`, r])).values()];
  edges.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.source.localeCompare(b.source) || a.target.localeCompare(b.target)));
  const keys = [...assets.keys()].sort();
  const parts = read.parts.map((p) => ({ ...p, keys: keys.filter((k) => partOf.get(k) === p.name) }));
  return {
    method: 'AZURE',
    scope: `AZURE:${read.tenantId.toLowerCase()}`,
    // The address stands for the tenant; its first subscription (by id) is the asset recorded there.
    root: keys.find((k) => assets.get(k)?.assetType === 'CLOUD_ACCOUNT') as string,
    assets: keys.map((k) => assets.get(k) as EstateAsset),
    relationships: edges,
    relationshipTypes: ['CONTAINS', 'COMMUNICATES_WITH'],
    parts,
    complete: read.parts.every((p) => p.complete),
  };
}
