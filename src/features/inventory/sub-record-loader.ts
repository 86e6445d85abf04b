// The "load sub-records" step of import and discovery: packages, services, processes and
// interfaces of the observed assets, then the interface connections that LLDP/CDP neighbours and
// switch forwarding tables prove.
import { normaliseFqdn, normaliseMac, type Identifier, type IdentityLookup } from './asset-identity.js';
import { FDB_CONFIDENCE, fdbLinks, LLDP_CONFIDENCE, type KnownInterface } from './interface-connections.js';
import type { SubRecordStore } from './sub-record-store.js';
import type { ConnectionRow, InterfaceRow, PackageRow, ProcessRow, ServiceRow } from './sub-record-rows.js';

/** A sub-record as a bundle names its asset: by the bundle key. */
type Keyed<T, K extends string = 'assetId'> = Omit<T, K> & { asset: string };

export interface NeighborEntry {
  asset: string;
  localPort: string;
  protocol?: 'LLDP' | 'CDP';
  remotePort: string;
  /** The remote device, by its key in the same bundle. */
  remoteAsset?: string;
  /** Otherwise by its chassis MAC or its system name, against what is known. */
  remoteChassisId?: string;
  remoteSystemName?: string;
}

export interface FdbEntryInput {
  asset: string;
  port: string;
  macAddress: string;
  vlan?: number;
}

export interface SubRecordBundle {
  software?: Keyed<PackageRow>[];
  services?: Keyed<ServiceRow>[];
  processes?: (Keyed<ProcessRow, 'assetId' | 'softwareAssetId'> & { software?: string })[];
  interfaces?: Keyed<InterfaceRow>[];
  neighbors?: NeighborEntry[];
  fdb?: FdbEntryInput[];
}

export interface SubRecordCounts {
  packages: number;
  services: number;
  processes: number;
  interfaces: number;
  connections: number;
  unresolvedNeighbors: number;
}

const portKey = (assetId: string, name: string) => `${assetId}\u0000${name}`;

export class SubRecordLoader {
  constructor(
    private readonly store: SubRecordStore,
    private readonly identities: IdentityLookup,
    private readonly maxMacsPerAccessPort: number,
  ) {}

  async load(bundle: SubRecordBundle, ids: Map<string, string>, sites: Map<string, string>, source: string, observedAt: Date): Promise<SubRecordCounts> {
    const id = (key: string) => ids.get(key) as string;
    const software = (bundle.software ?? []).map(({ asset, ...r }) => ({ ...r, assetId: id(asset) }));
    const services = (bundle.services ?? []).map(({ asset, ...r }) => ({ ...r, assetId: id(asset), sourceConnector: r.sourceConnector ?? 'IMPORT' }));
    const processes = (bundle.processes ?? []).map(({ asset, software: sw, ...r }) => ({
      ...r, assetId: id(asset), softwareAssetId: sw ? id(sw) : null, sourceConnector: r.sourceConnector ?? 'IMPORT',
    }));
    const interfaces = (bundle.interfaces ?? []).map(({ asset, ...r }) => ({ ...r, assetId: id(asset), macAddress: r.macAddress ? (normaliseMac(r.macAddress) ?? null) : null }));

    // Four tables, written side by side.
    await Promise.all([
      this.store.upsertPackages(software, source, observedAt),
      this.store.upsertServices(services, observedAt),
      this.store.replaceProcesses([...new Set(processes.map((p) => p.assetId))], processes, observedAt),
      this.store.upsertInterfaces(interfaces, observedAt),
    ]);

    const { rows: lldp, unresolved } = await this.neighborConnections(bundle.neighbors ?? [], ids, sites, observedAt);
    const fdb = await this.fdbConnections(bundle.fdb ?? [], ids, observedAt);
    await this.store.upsertConnections([...lldp, ...fdb], observedAt);
    return {
      packages: software.length,
      services: services.length,
      processes: processes.length,
      interfaces: interfaces.length,
      connections: lldp.length + fdb.length,
      unresolvedNeighbors: unresolved,
    };
  }

  /** The remote end of each neighbour record, by bundle key, chassis MAC, FQDN or host name at the local site. */
  private async remoteAssets(neighbors: NeighborEntry[], ids: Map<string, string>, sites: Map<string, string>): Promise<(string | undefined)[]> {
    const candidates = neighbors.map((n): Identifier[] => {
      const out: Identifier[] = [];
      const mac = n.remoteChassisId ? normaliseMac(n.remoteChassisId) : undefined;
      if (mac) out.push({ rule: 'MAC_ADDRESS', value: mac });
      const fqdn = normaliseFqdn(n.remoteSystemName);
      if (fqdn) out.push({ rule: 'FQDN', value: fqdn });
      const host = n.remoteSystemName?.trim().toLowerCase().split('.')[0];
      if (host) out.push({ rule: 'HOSTNAME_SITE', value: `${(sites.get(n.asset) ?? '').toLowerCase()}|${host}` });
      return out;
    });
    const known = await this.identities.lookup(candidates.flat());
    return neighbors.map((n, i) => {
      if (n.remoteAsset) return ids.get(n.remoteAsset);
      for (const c of candidates[i] ?? []) {
        const hit = known.get(`${c.rule}:${c.value}`);
        if (hit) return hit.assetId;
      }
      return undefined;
    });
  }

  private async neighborConnections(neighbors: NeighborEntry[], ids: Map<string, string>, sites: Map<string, string>, observedAt: Date) {
    const remotes = await this.remoteAssets(neighbors, ids, sites);
    const pairs = neighbors.flatMap((n, i) => {
      const local = ids.get(n.asset) as string;
      const remote = remotes[i];
      return remote && remote !== local ? [{ n, local, remote }] : [];
    });
    const interfaceIds = await this.store.interfaceIds(pairs.flatMap(({ n, local, remote }) => [{ assetId: local, name: n.localPort }, { assetId: remote, name: n.remotePort }]), observedAt);
    const rows: ConnectionRow[] = pairs.map(({ n, local, remote }) => {
      // Both ends may report the same cable: one row per cable and protocol, lower interface id first.
      const near = { interfaceId: interfaceIds.get(portKey(local, n.localPort)) as string, assetId: local };
      const far = { interfaceId: interfaceIds.get(portKey(remote, n.remotePort)) as string, assetId: remote };
      const [a, b] = near.interfaceId < far.interfaceId ? [near, far] : [far, near];
      return {
        sourceInterfaceId: a.interfaceId, sourceAssetId: a.assetId, targetInterfaceId: b.interfaceId, targetAssetId: b.assetId,
        discoveredVia: n.protocol ?? 'LLDP', confidence: LLDP_CONFIDENCE,
      };
    });
    return { rows, unresolved: neighbors.length - pairs.length };
  }

  private async fdbConnections(entries: FdbEntryInput[], ids: Map<string, string>, observedAt: Date): Promise<ConnectionRow[]> {
    const normalised = entries.flatMap((e) => {
      const mac = normaliseMac(e.macAddress);
      return mac ? [{ switchAssetId: ids.get(e.asset) as string, port: e.port, macAddress: mac }] : [];
    });
    if (normalised.length === 0) return [];
    const macs = normalised.map((e) => e.macAddress);
    const known = await this.store.interfacesByMac(macs);
    const switches = new Set(normalised.map((e) => e.switchAssetId));
    const switchMacs = await this.store.networkDeviceMacs(macs);
    const byMac = new Map<string, KnownInterface[]>();
    for (const nic of known) {
      if (switches.has(nic.assetId)) switchMacs.add(nic.macAddress);
      byMac.set(nic.macAddress, [...(byMac.get(nic.macAddress) ?? []), nic]);
    }
    const { links, unmatched } = fdbLinks(normalised, byMac, switchMacs, this.maxMacsPerAccessPort);
    await this.store.replaceUnmatchedMacs([...switches], unmatched, observedAt);
    const portIds = await this.store.interfaceIds(links.map((l) => ({ assetId: l.switchAssetId, name: l.port })), observedAt);
    return links.map((l) => ({
      sourceInterfaceId: portIds.get(portKey(l.switchAssetId, l.port)) as string,
      sourceAssetId: l.switchAssetId,
      targetInterfaceId: l.hostInterfaceId,
      targetAssetId: l.hostAssetId,
      discoveredVia: 'FDB',
      confidence: FDB_CONFIDENCE,
    }));
  }
}
