// The rows of the software, process and service exports for one batch of assets, in the order of
// the batch (asset name order, from Neo4j) and then by package name, pid or service name,
// streamed from PostgreSQL 500 at a time.
import type { Database } from '../../platform/postgres/postgres-client.js';

export type SubRecordExport = 'software' | 'processes' | 'services';

export interface SubRecordExportFilter {
  publisher?: string;
  packageManager?: string;
  username?: string;
  state?: string;
}

export const EXPORT_BATCH = 500;

const QUERIES: Record<SubRecordExport, { table: string; select: string; order: string; filters: Partial<Record<keyof SubRecordExportFilter, string>> }> = {
  software: {
    table: 'software_packages',
    select: `t.asset_id AS "assetId", t.package_name AS "packageName", t.version, t.publisher,
             to_char(t.install_date, 'YYYY-MM-DD') AS "installDate", t.package_manager AS "packageManager"`,
    order: 't.package_name',
    filters: { publisher: 't.publisher', packageManager: 't.package_manager' },
  },
  processes: {
    table: 'running_processes',
    select: `t.asset_id AS "assetId", t.pid, t.ppid, t.process_name AS "processName", t.command_line AS "commandLine", t.username,
             t.state, t.memory_kb::float8 AS "memoryKb", t.cpu_percent::float8 AS "cpuPercent", t.source_connector AS "sourceConnector",
             t.software_asset_id AS "softwareAssetId"`,
    order: 't.pid',
    filters: { username: 't.username' },
  },
  services: {
    table: 'discovered_services',
    select: `t.asset_id AS "assetId", t.service_name AS "serviceName", t.display_name AS "displayName", t.state,
             t.start_mode AS "startMode", t.listen_ports AS "listenPorts", t.source_connector AS "sourceConnector"`,
    order: 't.service_name',
    filters: { state: 't.state' },
  },
};

export class SubRecordExportStore {
  constructor(private readonly db: Database) {}

  /** The rows of these assets (in this order), EXPORT_BATCH at a time. */
  async *rows(kind: SubRecordExport, assetIds: string[], filter: SubRecordExportFilter): AsyncGenerator<Record<string, unknown>[]> {
    const q = QUERIES[kind];
    const conditions: string[] = [];
    const bindings: (string | string[])[] = [assetIds];
    for (const [key, column] of Object.entries(q.filters) as [keyof SubRecordExportFilter, string][]) {
      if (filter[key] === undefined) continue;
      conditions.push(`${column} = ?`);
      bindings.push(filter[key] as string);
    }
    const sql = `SELECT ${q.select}
      FROM unnest(?::uuid[]) WITH ORDINALITY AS o(asset_id, ord)
      JOIN ${q.table} t ON t.asset_id = o.asset_id
      ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY o.ord, ${q.order}`;
    const stream = this.db.raw(sql, bindings).stream({ batchSize: EXPORT_BATCH, highWaterMark: EXPORT_BATCH });
    let batch: Record<string, unknown>[] = [];
    try {
      for await (const row of stream) {
        batch.push(row as Record<string, unknown>);
        if (batch.length === EXPORT_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    } finally {
      stream.destroy();
    }
  }
}
