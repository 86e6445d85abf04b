// The load steps of a run: the observations of each address merged into one host (SSH and SNMP
// see one asset), then reconcile identity, load graph and load sub-records through the import
// path; the estates of managers (a vCenter's hosts, VMs, ...) go through the same import; then the
// COMMUNICATES_WITH edges between known hosts, the retirement of what complete observations no
// longer show, and each targeted asset's scan outcome.
import os from 'node:os';
import { categoryOf } from '../inventory/asset-taxonomy.js';
import { CUSTOM_PREFIX, factValues, type FactSet } from '../inventory/asset-facts.js';
import type { BundleAsset, BundleRelationship, ImportBundle, ImportService } from '../import/import-service.js';
import type { IdentityLookup, MatchRule } from '../inventory/asset-identity.js';
import type { RelationshipMerge, RelationshipWrite } from '../inventory/graph-writes.js';
import type { SubRecordRetirement } from '../inventory/sub-record-rows.js';
import { inventoryConnector } from './connectors/registry.js';
import type { EstateObservation, HostObservation, ObservedScope, ScanMethod } from './host-observation.js';
import type { HostStateStore, RunHost } from './host-state-store.js';
import type { RunError, RunSummary } from './run-record.js';
import type { ScanGraphRepository, ScanOutcome } from './scan-graph-repository.js';

export const DISCOVERY_SOURCE = 'discovery';
const DISCOVERY_ACTOR = { kind: 'SYSTEM' as const, name: 'discovery' };

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
  errors: RunError[];
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

function outcomeOf(result: AddressResult): ScanOutcome {
  const gotIn = new Set([...result.observations, ...(result.estates ?? [])].map((o) => o.method));
  if (result.attempted.length === 0) return result.responding ? 'SUCCESS' : 'FAILED';
  if (gotIn.size === 0) return 'FAILED';
  return gotIn.size < result.attempted.length || result.errors.length > 0 ? 'PARTIAL' : 'SUCCESS';
}

const appKey = (address: string, id: string) => `${address}#${id}`;

/** The addresses of this machine: the connector's own SSH session shows among a host's connections. */
function ownAddresses(): Set<string> {
  return new Set(Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)));
}

export class ObservationLoader {
  constructor(
    private readonly importer: ImportService,
    private readonly identities: IdentityLookup,
    private readonly graph: RelationshipMerge,
    private readonly scans: ScanGraphRepository,
    private readonly subRecords: SubRecordRetirement,
    private readonly hostState: HostStateStore,
  ) {}

  async load(runId: string, results: AddressResult[], sshPort: number, observedAt: string): Promise<RunSummary> {
    const inventoried = results.filter((r) => r.observations.length > 0);
    const swept = results.filter((r) => r.observations.length === 0 && !r.estates?.length);
    const hosts = new Map(inventoried.map((r) => [r.address, mergeObservations(r.observations)]));

    // Addresses that only answered the sweep: an unknown one becomes an UNKNOWN_ENDPOINT, a known one
    // keeps what other connectors said of it.
    const known = await this.identities.lookup(swept.map((r) => ({ rule: 'IP_ADDRESS' as const, value: r.address })));
    const endpoints = swept.filter((r) => r.responding && !known.has(`IP_ADDRESS:${r.address}`));
    const estates = results.flatMap((r) => (r.estates ?? []).map((e) => ({ ...e, address: r.address })));
    const bundle = this.bundle([...hosts.values()], endpoints, estates, results, observedAt);
    const imported = bundle.assets.length ? await this.importer.import(DISCOVERY_ACTOR, bundle, { factSets: this.factSets(bundle, results, endpoints, estates) }) : { assets: [], created: 0 };
    const ids = new Map<string, { id: string; created: boolean; matchedBy: MatchRule | null }>(imported.assets.map((a) => [a.key, a]));

    const touched = swept.filter((r) => r.responding).flatMap((r) => known.get(`IP_ADDRESS:${r.address}`)?.assetId ?? []);
    // The graph's steps and the sub-record tables' retirement touch different stores: side by side.
    const retiring = this.retiredScopes(hosts, ids);
    await Promise.all([
      (async () => {
        await this.scans.touch(touched, DISCOVERY_SOURCE, observedAt);
        await this.communications(hosts, ids, sshPort, observedAt);
        await this.scans.retireCommunications(retiring('connections'), DISCOVERY_SOURCE, observedAt);
      })(),
      this.subRecords.retirePackages(retiring('software'), DISCOVERY_SOURCE, new Date(observedAt)),
      this.subRecords.retireServices(retiring('services'), 'SSH', new Date(observedAt)),
    ]);
    for (const estate of estates) await this.retireEstate(estate, ids, observedAt);

    // Every address that is an asset now: loaded by this run, or known (reached or not).
    const runHosts: RunHost[] = [];
    const respondingHost = new Set<string>();
    for (const r of results) {
      // An address that is only a manager stands for its estate's root asset.
      const root = r.estates?.[0];
      const own = ids.get(r.address) ?? (root ? ids.get(estateKey({ ...root, address: r.address }, root.root)) : undefined);
      const id = own?.id ?? known.get(`IP_ADDRESS:${r.address}`)?.assetId;
      if (!id) continue;
      if (r.responding) respondingHost.add(r.address);
      runHosts.push({ address: r.address, assetId: id, created: own?.created ?? false, matchedBy: own ? own.matchedBy : 'IP_ADDRESS', methods: [...new Set([...r.observations, ...(r.estates ?? [])].map((o) => o.method))], outcome: outcomeOf(r) });
    }
    await Promise.all([this.scans.setOutcomes(runHosts.map((h) => ({ id: h.assetId, outcome: h.outcome })), observedAt), this.hostState.recordRunHosts(runId, runHosts)]);
    const created = imported.assets.filter((a) => a.created && !a.key.includes('#')).length;
    return {
      hostsResponding: results.filter((r) => r.responding || r.observations.length > 0).length,
      assetsCreated: created,
      assetsUpdated: runHosts.filter((h) => !h.created && respondingHost.has(h.address)).length,
    };
  }

  private bundle(hosts: HostObservation[], endpoints: AddressResult[], estates: EstateAt[], results: AddressResult[], observedAt: string): ImportBundle {
    const openPorts = new Map(results.map((r) => [r.address, r.openPorts]));
    const assets: BundleAsset[] = [];
    const relationships: BundleRelationship[] = [];
    const bundle: Required<Omit<ImportBundle, 'observedAt' | 'owns'>> & { observedAt: string } = {
      source: DISCOVERY_SOURCE, observedAt, assets, relationships, software: [], services: [], processes: [], interfaces: [], neighbors: [], fdb: [],
    };
    for (const h of hosts) {
      const key = h.address;
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
  private factSets(bundle: ImportBundle, results: AddressResult[], endpoints: AddressResult[], estates: EstateAt[]): Map<string, FactSet[]> {
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
   * COMMUNICATES_WITH from client to server for each established connection between two known
   * hosts. The server end is the one listening on the port; the connector's own session is left out.
   */
  private async communications(hosts: Map<string, HostObservation>, ids: Map<string, { id: string }>, sshPort: number, observedAt: string): Promise<void> {
    const own = ownAddresses();
    const remoteIps = [...hosts.values()].flatMap((h) => h.connections.map((c) => c.remoteAddress));
    const known = await this.identities.lookup([...new Set(remoteIps)].map((value) => ({ rule: 'IP_ADDRESS' as const, value })));
    const idOfIp = (ip: string) => known.get(`IP_ADDRESS:${ip}`)?.assetId;
    const edges = new Map<string, RelationshipWrite>();
    for (const [address, h] of hosts) {
      const self = ids.get(address)?.id;
      if (!self || !h.complete.has('connections')) continue;
      const listening = new Set(h.services.flatMap((s) => (s.listenPorts ?? []).map((p) => p.port)));
      for (const c of h.connections) {
        if (c.localPort === sshPort && own.has(c.remoteAddress)) continue;
        const remote = idOfIp(c.remoteAddress);
        if (!remote || remote === self) continue;
        const [source, target] = listening.has(c.localPort) ? [remote, self] : [self, remote];
        edges.set(`${source}>${target}`, { type: 'COMMUNICATES_WITH', source, target });
      }
    }
    await this.graph.mergeRelationships([...edges.values()], DISCOVERY_SOURCE, observedAt);
  }

  /**
   * The hosts whose data of a scope is retired where they no longer show it: those whose
   * observation read the scope completely, in the scopes their connector may retire; an incomplete
   * scope keeps its data.
   */
  private retiredScopes(hosts: Map<string, HostObservation>, ids: Map<string, { id: string }>): (scope: ObservedScope) => string[] {
    return (scope) =>
      [...hosts].flatMap(([address, h]) => (h.complete.has(scope) && inventoryConnector(h.method)?.retires.includes(scope) && ids.get(address) ? [ids.get(address)?.id as string] : []));
  }

  /**
   * The assets an estate showed join its scope, and those whose processes it read keep only these;
   * after a complete read, those of the scope it no longer showed become INACTIVE and the edges
   * among its assets it did not see again are retired. A partial read retires nothing.
   */
  private async retireEstate(estate: EstateAt, ids: Map<string, { id: string }>, observedAt: string): Promise<void> {
    const seen = estate.assets.flatMap((a) => ids.get(estateKey(estate, a.key))?.id ?? []);
    await this.hostState.recordScopeMembers(estate.scope, seen, observedAt);
    if (estate.processes) {
      // The load replaced the process sets of the assets that showed processes; those that showed none lose theirs.
      const members = estate.assets.flatMap((a) => (a.key === estate.root ? [] : (ids.get(estateKey(estate, a.key))?.id ?? [])));
      await this.subRecords.retireProcesses(members, estate.method, new Date(observedAt));
    }
    if (!estate.complete || !inventoryConnector(estate.method)?.retires.includes('estate')) return;
    const unseen = await this.hostState.unseenScopeMembers(estate.scope, observedAt);
    await this.scans.retireRelationships([...seen, ...unseen], estate.relationshipTypes, DISCOVERY_SOURCE, observedAt);
    await this.scans.retireAssets(unseen, observedAt);
    await this.hostState.forgetScopeMembers(estate.scope, unseen);
  }
}
