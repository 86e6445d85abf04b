// The translation of a run's observations into what the inventory writer takes, as pure
// functions: the observations of each address merged into one host (SSH and SNMP see one asset),
// the estates of managers (a vCenter's hosts, VMs, ...), the endpoints that only answered the
// sweep, the facts each method reported, the COMMUNICATES_WITH links of the connections a host
// showed, and the scopes read completely, whose data the writer retires where no longer shown.
import { CUSTOM_PREFIX, factValues, type FactSet } from '../inventory/asset-facts.js';
import { categoryOf } from '../inventory/asset-taxonomy.js';
import type { BundleAsset, BundleLink, BundleRelationship, CompleteReads, EstateScope, InventoryBundle, SubRecordScope } from '../inventory/inventory-bundle.js';
import { inventoryConnector } from './connectors/registry.js';
import type { AddressFacts, EstateObservation, HostObservation, ObservedScope, ScanMethod } from './host-observation.js';
import type { RunError } from './run-record.js';

/** What a run learnt of one address. */
export interface AddressResult {
  address: string;
  /** The address answered (a port, SSH or SNMP). */
  responding: boolean;
  hostname?: string;
  openPorts: number[];
  /** Methods asked to inventory it (SSH, SNMP): which ran, which got in. */
  attempted: ScanMethod[];
  observations: HostObservation[];
  /** What managers at this address reported (none when left out). */
  estates?: EstateObservation[];
  /** What connectors at this address read of other addresses (DNS names; none when left out). */
  addressFacts?: AddressFacts[];
  errors: RunError[];
}

/** JSON.stringify's replacer for results: the scopes an observation read completely, a Set, as a list. */
export const setsAsLists = (_key: string, value: unknown): unknown => (value instanceof Set ? [...value] : value);

/** An address's result as JSON, kept until its run loads it (or sent by a remote scanner). */
export function storedResult(result: AddressResult): string {
  return JSON.stringify(result, setsAsLists);
}

/** A result kept by storedResult, as the loader takes it. */
export function restoredResult(stored: AddressResult): AddressResult {
  return { ...stored, observations: stored.observations.map((o) => ({ ...o, complete: new Set(o.complete) })) };
}

const STRONGER_TYPES = new Set(['NETWORK_DEVICE', 'PRINTER']);

const rankOf = (method: string) => inventoryConnector(method)?.factRank ?? 0;

/** One host from the observations of one address: SSH's view of a host, SNMP's of a switch or printer. */
export function mergeObservations(observations: HostObservation[]): HostObservation {
  // The method whose facts rank highest gives the base; the others fill in.
  const ordered = [...observations].sort((a, b) => rankOf(b.method) - rankOf(a.method));
  const [first, ...rest] = ordered as [HostObservation, ...HostObservation[]];
  const merged: HostObservation = { ...first, attributes: { ...first.attributes }, complete: new Set(first.complete), interfaces: [...first.interfaces] };
  for (const other of rest) {
    if (STRONGER_TYPES.has(other.assetType)) merged.assetType = other.assetType;
    for (const field of ['hostname', 'fqdn', 'vendor', 'model', 'serialNumber'] as const) merged[field] ??= other[field];
    merged.attributes = { ...other.attributes, ...merged.attributes };
    merged.macAddresses = [...new Set([...merged.macAddresses, ...other.macAddresses])];
    merged.ipAddresses = [...new Set([...merged.ipAddresses, ...other.ipAddresses])];
    const names = new Set(merged.interfaces.map((i) => i.name));
    merged.interfaces.push(...other.interfaces.filter((i) => !names.has(i.name)));
    merged.neighbors = [...merged.neighbors, ...other.neighbors];
    merged.fdb = [...merged.fdb, ...other.fdb];
    for (const scope of other.complete) merged.complete.add(scope);
  }
  return merged;
}

/** An estate with the address it was read from. */
type EstateAt = EstateObservation & { address: string };

/**
 * An estate asset's key in the run's bundle: unique across the scopes and addresses of the run; a
 * root that is the host at the address has the host's key, so that both are one entry.
 */
const estateKey = (estate: EstateAt, key: string) => (estate.rootIsHost && key === estate.root ? estate.address : `${estate.scope}|${key}`);

const appKey = (address: string, id: string) => `${address}#${id}`;

/** Whether a bundle key is an application's (a SOFTWARE asset of a host), not a host's or an estate's. */
export const isApplicationKey = (key: string) => key.includes('#');

/** The bundle keys that may stand for the asset at an address: the host's own, then its estate's root (an address that is only a manager). */
export function keysOfAddress(result: AddressResult): string[] {
  const root = result.estates?.[0];
  return [result.address, ...(root ? [estateKey({ ...root, address: result.address }, root.root)] : [])];
}

/** What a run hands the writer. */
export interface RunTranslation {
  bundle: InventoryBundle;
  /** What each method reported of each asset, by bundle key. */
  factSets: Map<string, FactSet[]>;
  reads: CompleteReads;
}

export interface TranslationContext {
  observedAt: string;
  /** The port SSH was asked on: the connector's own session shows among a host's connections. */
  sshPort: number;
  /** This machine's addresses, whose sessions on sshPort are the connector's own. */
  ownAddresses: Set<string>;
  /** The known asset of each address that only answered the sweep (by the IP_ADDRESS rule). */
  known: Map<string, string>;
}

/**
 * A run's results as a bundle, the facts of its methods and the scopes it read completely.
 * Addresses that only answered the sweep: an unknown one becomes an UNKNOWN_ENDPOINT, a known one
 * is seen again and keeps what other connectors said of it.
 */
export function translateRun(results: AddressResult[], context: TranslationContext): RunTranslation {
  const inventoried = results.filter((r) => r.observations.length > 0);
  const swept = results.filter((r) => r.observations.length === 0 && !r.estates?.length);
  const hosts = new Map(inventoried.map((r) => [r.address, mergeObservations(r.observations)]));
  const endpoints = swept.filter((r) => r.responding && !context.known.has(r.address));
  const estates = results.flatMap((r) => (r.estates ?? []).map((e) => ({ ...e, address: r.address })));
  const bundle = bundleOf(hosts, endpoints, estates, results, context.observedAt);
  const factSets = factSetsOf(bundle, results, endpoints, estates);
  const servicesRead = addAddressFacts(bundle, factSets, results.flatMap((r) => r.addressFacts ?? []), hosts);
  const reads = retiredScopes(hosts);
  return {
    bundle: {
      ...bundle,
      links: communications(hosts, context),
      seen: swept.filter((r) => r.responding).flatMap((r) => context.known.get(r.address) ?? []),
    },
    factSets,
    reads: { ...reads, services: [...(reads.services ?? []), ...servicesRead], estates: estates.flatMap(estateScopes) },
  };
}

/**
 * The facts connectors read of addresses (DNS names, DHCP leases, a fingerprint), each as its
 * method's own, on the entry of the address: the host or endpoint of the run at it, else a new entry
 * known by its addresses and MACs alone (matched to the asset that holds one, or a new
 * UNKNOWN_ENDPOINT: an entry whose category matches any, so that a type a connector guessed never
 * splits an asset). The names and the type are facts, not identity: a name that moves to another
 * address never merges two assets; a DHCP client's MAC is the device's own, and follows it from
 * address to address. The services that answer at an address load where no method of the run read
 * the host's own; where one did (SSH's word on its services is better), the connector's rows there
 * are retired. The scopes to retire are answered.
 */
function addAddressFacts(bundle: Required<Omit<InventoryBundle, 'seen' | 'links'>>, sets: Map<string, FactSet[]>, read: AddressFacts[], hosts: Map<string, HostObservation>): SubRecordScope[] {
  const entries = new Map(bundle.assets.map((a) => [a.key, a]));
  const servicesRead = new Map<string, string[]>();
  for (const { method, addresses } of read) {
    for (const { address, ipAddresses = [address], macAddresses, hostname, fqdn, assetType, attributes, evidence, services } of addresses) {
      if (!entries.has(address)) {
        const entry: BundleAsset = { key: address, assetType: 'UNKNOWN_ENDPOINT', displayName: fqdn ?? hostname ?? address, ipAddresses, ...(macAddresses ? { macAddresses } : {}), customAttributes: {} };
        entries.set(address, entry);
        bundle.assets.push(entry);
      }
      const values = { ...factValues({ ...(assetType ? { assetType } : {}), ...(hostname ? { hostname } : {}), ...(fqdn ? { fqdn } : {}), ...(macAddresses ? { macAddresses } : {}), ipAddresses, customAttributes: attributes }), ...evidence };
      sets.set(address, [...(sets.get(address) ?? []), { source: method.toLowerCase(), values }]);
      if (!services) continue;
      // Where a method read the host's own services, they replace the connector's: its rows there go.
      const own = hosts.get(address)?.complete.has('services') === true;
      if (!own) bundle.services.push(...services.rows.map((row) => ({ ...row, asset: address })));
      if (own || services.complete) servicesRead.set(method, [...(servicesRead.get(method) ?? []), address]);
    }
  }
  return [...servicesRead].map(([connector, assets]) => ({ assets, connector }));
}

function bundleOf(hosts: Map<string, HostObservation>, endpoints: AddressResult[], estates: EstateAt[], results: AddressResult[], observedAt: string): Required<Omit<InventoryBundle, 'seen' | 'links'>> {
  const openPorts = new Map(results.map((r) => [r.address, r.openPorts]));
  const assets: BundleAsset[] = [];
  const relationships: BundleRelationship[] = [];
  const bundle: Required<Omit<InventoryBundle, 'seen' | 'links'>> = {
    observedAt, assets, relationships, software: [], services: [], processes: [], interfaces: [], neighbors: [], fdb: [],
  };
  for (const [key, h] of hosts) {
    const ports = openPorts.get(key) ?? [];
    // Fields a host did not tell stay undefined: the import step writes only the defined ones.
    assets.push({
      key,
      assetType: h.assetType,
      displayName: h.hostname ?? h.fqdn ?? h.address,
      hostname: h.hostname,
      fqdn: h.fqdn,
      vendor: h.vendor,
      model: h.model,
      serialNumber: h.serialNumber,
      macAddresses: h.macAddresses,
      ipAddresses: h.ipAddresses,
      customAttributes: { ...h.attributes, ...(ports.length ? { openPorts: ports.join(',') } : {}) },
    });
    // Applications become SOFTWARE assets on hosts; on a switch or a printer they stay its processes.
    const applications = categoryOf(h.assetType) === 'HOST' ? h.applications : [];
    const appKeys = new Set(applications.map((app) => appKey(key, app.id)));
    for (const app of applications) {
      assets.push({
        key: appKey(key, app.id),
        assetType: 'SOFTWARE',
        displayName: app.name,
        ...(app.vendor ? { vendor: app.vendor } : {}),
        customAttributes: { catalogueId: app.id, ...(app.version ? { version: app.version } : {}), ...(app.listenPorts.length ? { listenPorts: app.listenPorts.join(',') } : {}) },
      });
      relationships.push({ type: 'RUNS_ON', source: appKey(key, app.id), target: key });
    }
    bundle.software.push(...h.software.map((p) => ({ ...p, asset: key })));
    bundle.services.push(...h.services.map((s) => ({ ...s, asset: key })));
    // The process set of a host is replaced as a whole: only by a complete ps.
    if (h.complete.has('processes')) {
      bundle.processes.push(...h.processes.map(({ application, ...p }) => {
        const software = application ? appKey(key, application) : undefined;
        return { ...p, asset: key, ...(software && appKeys.has(software) ? { software } : {}) };
      }));
    }
    bundle.interfaces.push(...h.interfaces.map((i) => ({ ...i, asset: key })));
    bundle.neighbors.push(...h.neighbors.map((n) => ({ ...n, asset: key })));
    bundle.fdb.push(...h.fdb.map((f) => ({ ...f, asset: key })));
  }
  // A root that is a host already in the bundle (SSH's view of it, or another estate's root) adds only its facts.
  const keys = new Set(assets.map((a) => a.key));
  for (const estate of estates) {
    for (const { key, attributes, ...asset } of estate.assets) {
      const bundleKey = estateKey(estate, key);
      if (keys.has(bundleKey)) continue;
      keys.add(bundleKey);
      assets.push({ ...asset, key: bundleKey, customAttributes: attributes });
    }
    relationships.push(...estate.relationships.map((rel) => ({ ...rel, source: estateKey(estate, rel.source), target: estateKey(estate, rel.target) })));
    bundle.processes.push(...(estate.processes ?? []).map((p) => ({ ...p, asset: estateKey(estate, p.asset) })));
    bundle.services.push(...(estate.services ?? []).map((s) => ({ ...s, asset: estateKey(estate, s.asset) })));
  }
  for (const r of endpoints) {
    assets.push({
      key: r.address,
      assetType: 'UNKNOWN_ENDPOINT',
      displayName: r.hostname ?? r.address,
      ...(r.hostname ? { hostname: r.hostname } : {}),
      ipAddresses: [r.address],
      customAttributes: { openPorts: r.openPorts.join(',') },
    });
  }
  return bundle;
}

/**
 * What each method reported of each asset, as facts of its own (ssh, snmp, sweep): a method
 * that did not get in, or did not read a host's facts or its interfaces, reports none of them,
 * and what it said before stays. Applications are SSH's; an endpoint is the sweep's.
 */
function factSetsOf(bundle: InventoryBundle, results: AddressResult[], endpoints: AddressResult[], estates: EstateAt[]): Map<string, FactSet[]> {
  const sets = new Map<string, FactSet[]>();
  const endpointAddresses = new Set(endpoints.map((r) => r.address));
  for (const r of results) {
    const perMethod: FactSet[] = r.observations.map((o) => ({
      source: o.method.toLowerCase(),
      values: {
        ...(o.complete.has('facts') ? factValues({ assetType: o.assetType, hostname: o.hostname, fqdn: o.fqdn, vendor: o.vendor, model: o.model, serialNumber: o.serialNumber, customAttributes: o.attributes }) : {}),
        ...(o.complete.has('interfaces') ? { macAddresses: o.macAddresses, ipAddresses: o.ipAddresses } : {}),
      },
    }));
    const endpoint = endpointAddresses.has(r.address) ? bundle.assets.find((a) => a.key === r.address) : undefined;
    const swept = endpoint ? factValues(endpoint) : r.openPorts.length ? { [`${CUSTOM_PREFIX}openPorts`]: r.openPorts.join(',') } : {};
    const all = Object.keys(swept).length ? [...perMethod, { source: 'sweep', values: swept }] : perMethod;
    if (all.length) sets.set(r.address, all);
  }
  for (const asset of bundle.assets) if (asset.assetType === 'SOFTWARE') sets.set(asset.key, [{ source: 'ssh', values: factValues(asset) }]);
  for (const estate of estates) {
    for (const { key, attributes, ...asset } of estate.assets) {
      const bundleKey = estateKey(estate, key);
      sets.set(bundleKey, [...(sets.get(bundleKey) ?? []), { source: estate.method.toLowerCase(), values: factValues({ ...asset, customAttributes: attributes }) }]);
    }
  }
  return sets;
}

/**
 * COMMUNICATES_WITH from client to server for each established connection of a host whose
 * connections were read in full, to the asset that holds the remote address. The server end is
 * the one listening on the port; the connector's own session is left out.
 */
function communications(hosts: Map<string, HostObservation>, { sshPort, ownAddresses }: TranslationContext): BundleLink[] {
  const links: BundleLink[] = [];
  for (const [address, h] of hosts) {
    if (!h.complete.has('connections')) continue;
    const listening = new Set(h.services.flatMap((s) => (s.listenPorts ?? []).map((p) => p.port)));
    for (const c of h.connections) {
      if (c.localPort === sshPort && ownAddresses.has(c.remoteAddress)) continue;
      const [self, remote] = [{ key: address }, { ipAddress: c.remoteAddress }];
      const [source, target] = listening.has(c.localPort) ? [remote, self] : [self, remote];
      links.push({ type: 'COMMUNICATES_WITH', source, target });
    }
  }
  return links;
}

/**
 * The hosts whose data of a scope is retired where they no longer show it: those whose
 * observation read the scope completely, in the scopes their connector may retire; an incomplete
 * scope keeps its data.
 */
function retiredScopes(hosts: Map<string, HostObservation>): Omit<CompleteReads, 'estates'> {
  const retiring = (scope: ObservedScope) => [...hosts].flatMap(([address, h]) => (h.complete.has(scope) && inventoryConnector(h.method)?.retires.includes(scope) ? [address] : []));
  return { software: retiring('software'), services: [{ assets: retiring('services'), connector: 'SSH' }], communications: retiring('connections') };
}

/**
 * The assets an estate showed join its scope, and those whose processes it read keep only these;
 * a complete read, by a connector that may retire its estate, retires what it no longer showed.
 * An estate read in parts gives a scope per part: a part read in full retires what it no longer
 * showed even when another part failed, but the edges among what it still shows only when the
 * whole estate was read.
 */
function estateScopes(estate: EstateAt): EstateScope[] {
  const retires = inventoryConnector(estate.method)?.retires.includes('estate') ?? false;
  const inPart = new Set((estate.parts ?? []).flatMap((p) => p.keys));
  const own: EstateScope = {
    scope: estate.scope,
    members: estate.assets.flatMap((a) => (inPart.has(a.key) ? [] : [estateKey(estate, a.key)])),
    ...(estate.processes ? { processes: { assets: estate.assets.flatMap((a) => (a.key === estate.root ? [] : [estateKey(estate, a.key)])), connector: estate.method } } : {}),
    ...(estate.complete && retires ? { retire: { relationshipTypes: estate.relationshipTypes } } : {}),
    ...(estate.complete && estate.services ? { services: { assets: estate.assets.map((a) => estateKey(estate, a.key)), connector: estate.method } } : {}),
  };
  const parts = (estate.parts ?? []).map((part): EstateScope => ({
    scope: `${estate.scope}/${part.name}`,
    members: part.keys.map((key) => estateKey(estate, key)),
    ...(part.complete && retires ? { retire: { relationshipTypes: estate.relationshipTypes, ...(estate.complete ? {} : { unseenOnly: true }) } } : {}),
  }));
  return [own, ...parts];
}
