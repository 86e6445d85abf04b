// Services (systemd units, or the listening programs where there is none), one row per asset and
// service name: upserted, so that a row's id and first_seen_at survive restarts. A fingerprint's
// rows (nmap's service detection) also name the product and version that answer on the port.
import { field, ON_HOST } from './asset-type-definition.js';
import { subRecordKind } from './sub-record-kind.js';
import type { ServiceRow } from './sub-record-rows.js';

export const discoveredServiceKind = subRecordKind({
  assetType: 'DISCOVERED_SERVICE',
  type: { category: 'SERVICE', label: 'Discovered Service', parent: ON_HOST, fields: [field('listen_ports', 'array?', 'Protocol and port pairs')] },
  dataset: 'services',
  table: 'discovered_services',
  key: 'service_name',
  name: 'service_name',
  columns: [
    { name: 'service_name', api: 'serviceName', type: 'text' },
    { name: 'display_name', api: 'displayName', type: 'text', attribute: true, searched: true },
    { name: 'state', api: 'state', type: 'text', attribute: true, schemaKey: true },
    { name: 'start_mode', api: 'startMode', type: 'text', attribute: true, schemaKey: true },
    { name: 'listen_ports', api: 'listenPorts', type: 'ports', attribute: true, schemaKey: true },
    { name: 'source_connector', api: 'sourceConnector', type: 'text', attribute: true },
    { name: 'product', api: 'product', type: 'text', attribute: true },
    { name: 'version', api: 'version', type: 'text', attribute: true },
  ],
  firstSeen: 'first_seen_at',
  lastSeen: 'last_seen_at',
  changesTracked: false,
  retention: { removedKey: 'servicesRemoved' },
  export: { columns: ['serviceName', 'displayName', 'state', 'startMode', 'listenPorts', 'sourceConnector'], order: ['serviceName'], equals: ['state'] },
  toRow: (r: ServiceRow, { observedAt }) => ({
    asset_id: r.assetId, service_name: r.serviceName, display_name: r.displayName ?? null, state: r.state ?? null, start_mode: r.startMode ?? null,
    listen_ports: JSON.stringify(r.listenPorts ?? []), source_connector: r.sourceConnector ?? null, product: r.product ?? null, version: r.version ?? null, first_seen_at: observedAt, last_seen_at: observedAt,
  }),
});
