// Derivation of interface connections (docs/interface.md §2.12), as pure functions.
//
// FDB: each MAC a switch port has learnt, joined by MAC to the interfaces of other assets, links
// that port to the host NIC (confidence 0.90: L2 reachability, not proof of a cable). A port that
// has learnt many MACs, or the MAC of another switch, is an uplink or a trunk: it links no host.
// A MAC on an access port that no known interface has is an unmanaged endpoint, kept as such.

export const LLDP_CONFIDENCE = 1.0;
export const FDB_CONFIDENCE = 0.9;

export interface FdbEntry {
  switchAssetId: string;
  port: string;
  macAddress: string;
}

export interface KnownInterface {
  id: string;
  assetId: string;
  macAddress: string;
}

export interface FdbLink {
  switchAssetId: string;
  port: string;
  hostInterfaceId: string;
  hostAssetId: string;
}

export interface FdbOutcome {
  links: FdbLink[];
  /** MACs on access ports that match no interface of another asset. */
  unmatched: FdbEntry[];
}

export function fdbLinks(entries: FdbEntry[], interfacesByMac: Map<string, KnownInterface[]>, switchMacs: Set<string>, maxMacsPerAccessPort: number): FdbOutcome {
  const ports = new Map<string, { switchAssetId: string; port: string; macs: Set<string> }>();
  for (const e of entries) {
    const key = `${e.switchAssetId}\u0000${e.port}`;
    const port = ports.get(key) ?? { switchAssetId: e.switchAssetId, port: e.port, macs: new Set<string>() };
    port.macs.add(e.macAddress);
    ports.set(key, port);
  }
  const links: FdbLink[] = [];
  const unmatched: FdbEntry[] = [];
  for (const { switchAssetId, port, macs } of ports.values()) {
    if (macs.size > maxMacsPerAccessPort) continue;
    if ([...macs].some((mac) => switchMacs.has(mac))) continue;
    for (const mac of macs) {
      const hosts = (interfacesByMac.get(mac) ?? []).filter((nic) => nic.assetId !== switchAssetId);
      for (const nic of hosts) links.push({ switchAssetId, port, hostInterfaceId: nic.id, hostAssetId: nic.assetId });
      if (hosts.length === 0) unmatched.push({ switchAssetId, port, macAddress: mac });
    }
  }
  return { links, unmatched };
}
