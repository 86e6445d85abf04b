// The streamed exports (spec 4.7). Software, processes and services: one COPY statement each in
// PostgreSQL (sub-record-export-store.ts). Assets: one Cypher statement in name order, read from
// Neo4j as the client takes the rows.
import type { Readable } from 'node:stream';
import type { AssetFilter, AssetGraphRepository } from '../assets/asset-graph-repository.js';
import { toAssetRow } from '../assets/asset-read-model.js';
import { CsvRecordEnds, JsonLinesArray } from './export-streams.js';
import { csvRecord, type ExportFormat, type ExportWriter } from './export-writer.js';
import { SubRecordExportStore, type SubRecordExport, type SubRecordExportFilter } from './sub-record-export-store.js';

export const ASSET_EXPORT_COLUMNS = [
  'id', 'displayName', 'assetType', 'assetCategory', 'assetSubtype', 'virtual', 'status', 'vendor', 'model', 'hostname', 'fqdn',
  'site', 'environment', 'serialNumber', 'macAddresses', 'ipAddresses', 'lastScanOutcome', 'lastScanAt', 'consecutiveScanFailures',
  'firstSeenAt', 'lastSeenAt', 'customAttributes',
] as const;

export const EXPORT_DATASETS = ['assets', 'software', 'processes', 'services'] as const;
export type ExportDataset = (typeof EXPORT_DATASETS)[number];

/** The column names of each export, in order (the CSV header, the JSON keys). */
export function exportColumns(dataset: ExportDataset): readonly string[] {
  return dataset === 'assets' ? ASSET_EXPORT_COLUMNS : SubRecordExportStore.columns(dataset);
}

export class ExportService {
  constructor(
    private readonly assets: AssetGraphRepository,
    private readonly subRecords: SubRecordExportStore,
  ) {}

  async assetsExport(writer: ExportWriter, format: ExportFormat, filter: AssetFilter): Promise<void> {
    const batches = this.assets.streamInNameOrder(filter);
    // The first batch is read before the headers go out, so that a failing store is still a 503.
    const first = await batches.next();
    writer.begin();
    if (format === 'csv') await writer.send(csvRecord([...ASSET_EXPORT_COLUMNS]));
    let written = 0;
    const write = async (nodes: Parameters<typeof toAssetRow>[0][]) => {
      const rows = nodes.map(toAssetRow);
      if (format === 'csv') await writer.send(rows.map((row) => csvRecord(ASSET_EXPORT_COLUMNS.map((c) => row[c]))).join(''));
      else {
        const records = rows.map((row) => JSON.stringify(Object.fromEntries(ASSET_EXPORT_COLUMNS.map((c) => [c, row[c] ?? null]))));
        await writer.send(`${written === 0 ? '[\n' : ',\n'}${records.join(',\n')}`);
      }
      written += rows.length;
    };
    if (!first.done) await write(first.value);
    for await (const nodes of batches) await write(nodes);
    if (format === 'json') await writer.send(written === 0 ? '[]\n' : '\n]\n');
    writer.end();
  }

  async subRecordExport(writer: ExportWriter, format: ExportFormat, kind: SubRecordExport, filter: SubRecordExportFilter): Promise<void> {
    const copy: Readable = format === 'csv' ? await this.subRecords.csv(kind, filter) : await this.subRecords.json(kind, filter);
    writer.begin();
    if (format === 'csv') {
      await writer.send(csvRecord(SubRecordExportStore.columns(kind)));
      await writer.pipeFrom(copy.pipe(new CsvRecordEnds()));
    } else {
      await writer.pipeFrom(copy.pipe(new JsonLinesArray()));
    }
    writer.end();
  }
}
