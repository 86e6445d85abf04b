// Network interfaces, one row per asset and interface name: upserted, with updated_at moved only
// by a changed value (incremental sync), and kept as the ends of interface connections.
import { field } from './asset-type-definition.js';
import { subRecordKind } from './sub-record-kind.js';
import type { InterfaceRow } from './sub-record-rows.js';

export const networkInterfaceKind = subRecordKind({
  assetType: 'INTERFACE',
  type: {
    category: 'NETWORK',
    label: 'Interface',
    parent: { via: ['HAS_INTERFACE', 'CONTAINS'], direction: 'IN', parentKinds: ['HOST', 'HYPERVISOR'] },
    fields: [field('ifIndex', 'integer?', 'Interface index'), field('macAddress', 'string?', 'MAC'), field('speedMbps', 'integer?', 'Speed'), field('operStatus', 'string?', 'up, down')],
  },
  dataset: 'interfaces',
  table: 'network_interfaces',
  key: 'name',
  name: 'name',
  columns: [
    { name: 'id', api: 'interfaceId', type: 'uuid', managed: true },
    { name: 'name', api: 'name', type: 'text' },
    { name: 'if_index', api: 'ifIndex', type: 'integer', attribute: true, schemaKey: true },
    { name: 'mac_address', api: 'macAddress', type: 'mac', attribute: true, schemaKey: true, searched: true, shownAs: 'macAddresses' },
    { name: 'ip_addresses', api: 'ipAddresses', type: 'text[]', attribute: true, shownAs: 'ipAddresses' },
    { name: 'speed_mbps', api: 'speedMbps', type: 'integer', attribute: true, schemaKey: true },
    { name: 'oper_status', api: 'operStatus', type: 'text', attribute: true, schemaKey: true },
    { name: 'mtu', api: 'mtu', type: 'integer', attribute: true },
    { name: 'description', api: 'description', type: 'text', attribute: true },
    { name: 'first_seen_at', api: 'firstSeenAt', type: 'timestamp', managed: true },
    { name: 'last_seen_at', api: 'lastSeenAt', type: 'timestamp', managed: true },
    { name: 'updated_at', api: 'updatedAt', type: 'timestamp', managed: true },
  ],
  // By its host's name (kept on the row by a trigger), host, ifIndex (if_order: none last), then
  // name and id (docs/interface.md §2.12): one index.
  nameOrder: [{ name: 'host_name', type: 'text' }, { name: 'asset_id', type: 'uuid' }, { name: 'if_order', type: 'integer' }],
  connected: true,
  firstSeen: 'first_seen_at',
  lastSeen: 'last_seen_at',
  changesTracked: true,
  // By host name, then ifIndex (docs/interface.md §2.12), then name.
  export: {
    columns: ['interfaceId', 'name', 'ifIndex', 'macAddress', 'ipAddresses', 'speedMbps', 'operStatus', 'mtu', 'description', 'firstSeenAt', 'lastSeenAt', 'updatedAt'],
    order: ['ifIndex', 'name'],
    equals: [],
  },
  toRow: (r: InterfaceRow, { observedAt }) => ({
    asset_id: r.assetId, name: r.name, if_index: r.ifIndex ?? null, mac_address: r.macAddress ?? null, ip_addresses: r.ipAddresses ?? [],
    speed_mbps: r.speedMbps ?? null, oper_status: r.operStatus ?? null, mtu: r.mtu ?? null, description: r.description ?? null,
    first_seen_at: observedAt, last_seen_at: observedAt,
  }),
});
