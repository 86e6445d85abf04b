// Derivation of interface connections (docs/interface.md §2.12), as pure functions.
//
// FDB: each MAC a switch port has learnt, joined by MAC to the interfaces of other assets, links
// that port to the host NIC (confidence 0.90: L2 reachability, not proof of a cable). A port that
// has learnt many MACs, or the MAC of another switch, is an uplink or a trunk: it links no host.

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
}

export function fdbLinks(entries: FdbEntry[], interfacesByMac: Map<string, KnownInterface[]>, switchMacs: Set<string>, maxMacsPerAccessPort: number): FdbLink[] {
  const ports = new Map<string, { switchAssetId: string; port: string; macs: Set<string> }>();
  for (const e of entries) {
    const key = `${e.switchAssetId}\u0000${e.port}`;
    const port = ports.get(key) ?? { switchAssetId: e.switchAssetId, port: e.port, macs: new Set<string>() };
    port.macs.add(e.macAddress);
    ports.set(key, port);
  }
  const links: FdbLink[] = [];
  for (const { switchAssetId, port, macs } of ports.values()) {
    if (macs.size > maxMacsPerAccessPort) continue;
    if ([...macs].some((mac) => switchMacs.has(mac))) continue;
    for (const mac of macs) {
      for (const nic of interfacesByMac.get(mac) ?? []) {
        if (nic.assetId !== switchAssetId) links.push({ switchAssetId, port, hostInterfaceId: nic.id });
      }
    }
  }
  return links;
}
