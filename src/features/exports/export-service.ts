// The streamed exports (spec 4.7). Asset names and host names come from Neo4j, rows from
// PostgreSQL: assets are walked in name order, EXPORT_BATCH at a time, and for each batch its
// rows are streamed in the batch's order, so that neither side is ever loaded whole.
import type { AssetFilter, AssetGraphRepository, AssetNode } from '../assets/asset-graph-repository.js';
import { toAssetRow } from '../assets/asset-read-model.js';
import { EXPORT_BATCH, type SubRecordExport, type SubRecordExportFilter, type SubRecordExportStore } from './sub-record-export-store.js';
import type { CsvCellFormats, ExportRow, ExportWriter } from './export-writer.js';

export const EXPORT_COLUMNS = {
  assets: [
    'id', 'displayName', 'assetType', 'assetCategory', 'assetSubtype', 'virtual', 'status', 'vendor', 'model', 'hostname', 'fqdn',
    'site', 'environment', 'serialNumber', 'macAddresses', 'ipAddresses', 'lastScanOutcome', 'lastScanAt', 'consecutiveScanFailures',
    'firstSeenAt', 'lastSeenAt', 'customAttributes',
  ],
  software: ['assetId', 'assetDisplayName', 'assetHostname', 'packageName', 'version', 'publisher', 'installDate', 'packageManager'],
  processes: [
    'assetId', 'assetDisplayName', 'assetHostname', 'pid', 'ppid', 'processName', 'commandLine', 'username', 'state', 'memoryKb',
    'cpuPercent', 'sourceConnector', 'softwareAssetId',
  ],
  services: ['assetId', 'assetDisplayName', 'assetHostname', 'serviceName', 'displayName', 'state', 'startMode', 'listenPorts', 'sourceConnector'],
} as const;

export type ExportDataset = keyof typeof EXPORT_COLUMNS;

/** Listen ports read as tcp/22;udp/123 in a CSV cell (JSON keeps the objects). */
export const CSV_CELL_FORMATS: CsvCellFormats = {
  listenPorts: (ports: { protocol: string; port: number }[]) => ports.map((p) => `${p.protocol}/${p.port}`).join(';'),
};

export class ExportService {
  constructor(
    private readonly assets: AssetGraphRepository,
    private readonly subRecords: SubRecordExportStore,
  ) {}

  async assetsExport(writer: ExportWriter, filter: AssetFilter): Promise<void> {
    await writer.begin();
    for await (const nodes of this.assets.inNameOrder(filter, EXPORT_BATCH)) await writer.write(nodes.map(toAssetRow));
    await writer.end();
  }

  async subRecordExport(writer: ExportWriter, kind: SubRecordExport, filter: SubRecordExportFilter & { assetId?: string }): Promise<void> {
    await writer.begin();
    const batches = filter.assetId ? this.oneAsset(filter.assetId) : this.assets.inNameOrder({}, EXPORT_BATCH);
    for await (const hosts of batches) {
      const byId = new Map(hosts.map((h) => [h.id, h]));
      for await (const rows of this.subRecords.rows(kind, hosts.map((h) => h.id), filter)) {
        await writer.write(rows.map((row): ExportRow => {
          const host = byId.get(row.assetId as string) as AssetNode;
          return { ...row, assetDisplayName: host.displayName, assetHostname: host.hostname ?? null };
        }));
      }
    }
    await writer.end();
  }

  private async *oneAsset(id: string): AsyncGenerator<AssetNode[]> {
    const node = await this.assets.get(id);
    if (node) yield [node];
  }
}
