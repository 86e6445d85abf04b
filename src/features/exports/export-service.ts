// The streamed exports (docs/interface.md §4.7, and relationships, interfaces and interface connections for
// CMDBs). What PostgreSQL holds (software, processes, services, interfaces, interface connections):
// one COPY statement each (sub-record-export-store.ts). What the graph holds (assets,
// relationships): one Cypher statement (a statement per relationship type), read as the client
// takes the rows, written here.
import type { Readable } from 'node:stream';
import type { AssetReads, AssetFilter } from '../assets/asset-summary.js';
import { synthesizedFilterOf, toAssetRow, type SynthesizedFilter } from '../assets/asset-read-model.js';
import type { RelationshipReads, RelationshipFilter } from '../relationships/relationship-row.js';
import { withDeadline } from '../../platform/deadline.js';
import { StoreUnavailableError } from '../../platform/errors.js';
import { CopyTextJsonArray, CsvRecordEnds } from './export-streams.js';
import { csvRecord, type ExportFormat, type ExportRow, type ExportWriter } from './export-writer.js';
import { SubRecordExportStore, type SubRecordExport, type SubRecordExportFilter } from './sub-record-export-store.js';
import { SUB_RECORD_KINDS } from '../inventory/sub-record-kinds.js';

export const ASSET_EXPORT_COLUMNS = [
  'id', 'displayName', 'assetType', 'assetCategory', 'assetSubtype', 'virtual', 'status', 'vendor', 'model', 'hostname', 'fqdn',
  'site', 'environment', 'serialNumber', 'macAddresses', 'ipAddresses', 'lastScanOutcome', 'lastScanAt', 'consecutiveScanFailures',
  'firstSeenAt', 'lastSeenAt', 'updatedAt', 'customAttributes',
] as const;

export const RELATIONSHIP_EXPORT_COLUMNS = [
  'id', 'relationshipType', 'active', 'sourceAssetId', 'sourceDisplayName', 'sourceAssetType', 'sourceAssetCategory',
  'targetAssetId', 'targetDisplayName', 'targetAssetType', 'targetAssetCategory', 'firstSeenAt', 'lastSeenAt', 'updatedAt', 'retiredAt', 'sources',
] as const;

export const GRAPH_EXPORTS = ['assets', 'relationships'] as const;
export const EXPORT_DATASETS = [...GRAPH_EXPORTS, ...SUB_RECORD_KINDS.map((k) => k.dataset), 'interface-connections'] as const;
export type ExportDataset = (typeof EXPORT_DATASETS)[number];

/** The column names of each export, in order (the CSV header, the JSON keys). */
export function exportColumns(dataset: ExportDataset): readonly string[] {
  if (dataset === 'assets') return ASSET_EXPORT_COLUMNS;
  if (dataset === 'relationships') return RELATIONSHIP_EXPORT_COLUMNS;
  return SubRecordExportStore.columns(dataset);
}

export type SubRecordExportRequest = Omit<SubRecordExportFilter, keyof SynthesizedFilter> & Pick<AssetFilter, 'q' | 'sites' | 'environments'>;

export class ExportService {
  constructor(
    private readonly assets: AssetReads,
    private readonly relationships: RelationshipReads,
    private readonly subRecords: SubRecordExportStore,
    /** How long the first rows of a PostgreSQL export may take before the answer is a 503. */
    private readonly firstRowsTimeoutMs: number,
  ) {}

  assetsExport(writer: ExportWriter, format: ExportFormat, filter: AssetFilter): Promise<void> {
    return this.rowsExport(writer, format, ASSET_EXPORT_COLUMNS, this.assetRows(filter));
  }

  relationshipsExport(writer: ExportWriter, format: ExportFormat, filter: RelationshipFilter, assetId?: string): Promise<void> {
    return this.rowsExport(writer, format, RELATIONSHIP_EXPORT_COLUMNS, this.relationships.stream(filter, assetId) as AsyncGenerator<ExportRow[]>);
  }

  /** A sub-record dataset; q, sites and environments select its rows as the assets listing selects them for the kind's type. */
  async subRecordExport(writer: ExportWriter, format: ExportFormat, kind: SubRecordExport, request: SubRecordExportRequest): Promise<void> {
    const { q, sites, environments, ...exact } = request;
    const filter: SubRecordExportFilter = { ...exact, ...(await synthesizedFilterOf(this.assets, { q, sites, environments })) };
    const copy: Readable = format === 'csv' ? await this.subRecords.csv(kind, filter) : await this.subRecords.json(kind, filter);
    const records = format === 'csv' ? new CsvRecordEnds() : new CopyTextJsonArray(SubRecordExportStore.jsonColumns(kind));
    // pipe() does not carry errors: a statement that fails (a filter value the store refuses) fails the records too.
    copy.once('error', (error) => records.destroy(error));
    const chunks = copy.pipe(records)[Symbol.asyncIterator]();
    // The first chunk (or the end) is awaited before the headers go out: a statement that fails
    // on its filter values is still a problem+json answer, never a 200 cut short.
    const first = await withDeadline(chunks.next(), this.firstRowsTimeoutMs, () => new StoreUnavailableError('PostgreSQL')).catch((error: unknown) => {
      copy.destroy();
      throw error;
    });
    writer.begin();
    if (format === 'csv') await writer.send(csvRecord(SubRecordExportStore.columns(kind)));
    if (!first.done) await writer.send(first.value as Buffer);
    await writer.pipeFrom({ [Symbol.asyncIterator]: () => chunks });
    writer.counted(records.records);
    writer.end();
  }

  private async *assetRows(filter: AssetFilter): AsyncGenerator<ExportRow[]> {
    for await (const nodes of this.assets.streamInNameOrder(filter)) yield nodes.map(toAssetRow);
  }

  /** Rows from the graph, batch by batch, as CSV records or one JSON array. */
  private async rowsExport(writer: ExportWriter, format: ExportFormat, columns: readonly string[], batches: AsyncGenerator<ExportRow[]>): Promise<void> {
    // The first batch is read before the headers go out, so that a failing store is still a 503.
    const first = await batches.next();
    writer.begin();
    if (format === 'csv') await writer.send(csvRecord([...columns]));
    let written = 0;
    const write = async (rows: ExportRow[]) => {
      if (rows.length === 0) return;
      if (format === 'csv') await writer.send(rows.map((row) => csvRecord(columns.map((c) => row[c]))).join(''));
      else {
        const records = rows.map((row) => JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null]))));
        await writer.send(`${written === 0 ? '[\n' : ',\n'}${records.join(',\n')}`);
      }
      written += rows.length;
      writer.counted(rows.length);
    };
    if (!first.done) await write(first.value);
    for await (const rows of batches) await write(rows);
    if (format === 'json') await writer.send(written === 0 ? '[]\n' : '\n]\n');
    writer.end();
  }
}
