// The software, process and service exports (spec 2.8-2.10, 4.7) as one COPY statement each: the
// sub-records joined to the copy of asset names, in asset-name order (then package name, pid or
// service name), CSV or JSON written by PostgreSQL itself and streamed as it comes. The plan walks
// the names index and each asset's rows through its own index (a LATERAL join), so the first
// rows leave at once and nothing is sorted whole.
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { copyOut, copySetting } from '../../platform/postgres/copy-out.js';

export type SubRecordExport = 'software' | 'processes' | 'services';

export interface SubRecordExportFilter {
  assetId?: string;
  publisher?: string;
  packageManager?: string;
  username?: string;
  state?: string;
}

type Kind = 'text' | 'plain';

interface Column {
  name: string;
  /** SQL of the value; t is the sub-record, n the asset's names. */
  sql: string;
  /** text: untrusted text, neutralised in CSV; plain: ids, numbers, dates. */
  kind: Kind;
  /** The CSV cell where it differs from the value (a list written as text). */
  csv?: string;
}

interface ExportSpec {
  table: string;
  order: string;
  /** The exported column that `order` is. */
  orderColumn: string;
  columns: Column[];
  filters: Partial<Record<Exclude<keyof SubRecordExportFilter, 'assetId'>, string>>;
}

const text = (name: string, sql: string): Column => ({ name, sql, kind: 'text' });
const plain = (name: string, sql: string, csv?: string): Column => ({ name, sql, kind: 'plain', csv });
const ASSET_COLUMNS = [plain('assetId', 'n.asset_id'), text('assetDisplayName', 'n.display_name'), text('assetHostname', 'n.hostname')];

export const EXPORT_SPECS: Record<SubRecordExport, ExportSpec> = {
  software: {
    table: 'software_packages',
    order: 't.package_name',
    orderColumn: 'packageName',
    columns: [
      ...ASSET_COLUMNS, text('packageName', 't.package_name'), text('version', 't.version'), text('publisher', 't.publisher'),
      plain('installDate', "to_char(t.install_date, 'YYYY-MM-DD')"), text('packageManager', 't.package_manager'),
    ],
    filters: { publisher: 't.publisher', packageManager: 't.package_manager' },
  },
  processes: {
    table: 'running_processes',
    order: 't.pid',
    orderColumn: 'pid',
    columns: [
      ...ASSET_COLUMNS, plain('pid', 't.pid'), plain('ppid', 't.ppid'), text('processName', 't.process_name'), text('commandLine', 't.command_line'),
      text('username', 't.username'), text('state', 't.state'), plain('memoryKb', 't.memory_kb::float8'), plain('cpuPercent', 't.cpu_percent::float8'),
      text('sourceConnector', 't.source_connector'), plain('softwareAssetId', 't.software_asset_id'),
    ],
    filters: { username: 't.username' },
  },
  services: {
    table: 'discovered_services',
    order: 't.service_name',
    orderColumn: 'serviceName',
    columns: [
      ...ASSET_COLUMNS, text('serviceName', 't.service_name'), text('displayName', 't.display_name'), text('state', 't.state'),
      text('startMode', 't.start_mode'),
      // tcp/22;udp/123 in a CSV cell; JSON keeps the objects.
      plain('listenPorts', 't.listen_ports', `(SELECT string_agg((p->>'protocol') || '/' || (p->>'port'), ';' ORDER BY i) FROM jsonb_array_elements(t.listen_ports) WITH ORDINALITY AS l(p, i))`),
      text('sourceConnector', 't.source_connector'),
    ],
    filters: { state: 't.state' },
  },
};

/**
 * A text cell as CSV shows it: empty for an empty value, and a leading quote on a value that a
 * spreadsheet would run as a formula (OWASP CSV injection), also behind leading white space.
 */
export function neutralisedSql(value: string): string {
  // ascii() of the first character spares the regular expression to almost every cell: = + - @,
  // tab, CR, and the white space that may come before a formula.
  return `CASE WHEN ${value} = '' THEN NULL
    WHEN ascii(${value}) IN (61, 43, 45, 64, 9, 13, 32, 10, 11, 12) AND ${value} ~ '^([=+@\\t\\r-]|\\s+[=+@-])' THEN '''' || ${value}
    ELSE ${value} END`;
}

/** The SELECT of an export without its order (`columns` gives each column's SQL for the format), and its filter values. */
function selectSql(spec: ExportSpec, filter: SubRecordExportFilter, columns: string): { sql: string; settings: Record<string, string> } {
  const settings: Record<string, string> = {};
  const where: string[] = [];
  for (const [key, column] of Object.entries(spec.filters) as [keyof SubRecordExportFilter, string][]) {
    const value = filter[key];
    if (value === undefined) continue;
    settings[key] = value;
    where.push(`${column} = current_setting('${copySetting(key)}')`);
  }
  let names = 'asset_names n';
  if (filter.assetId !== undefined) {
    settings.assetId = filter.assetId;
    names = `(SELECT * FROM asset_names WHERE asset_id = current_setting('${copySetting('assetId')}')::uuid) n`;
  }
  const sql = `SELECT ${columns}
    FROM ${names}
    CROSS JOIN LATERAL (SELECT * FROM ${spec.table} t WHERE t.asset_id = n.asset_id ${where.map((w) => `AND ${w}`).join(' ')} ORDER BY ${spec.order}) t`;
  return { sql, settings };
}

export class SubRecordExportStore {
  constructor(private readonly pool: pg.Pool) {}

  /** CSV records without the header, as PostgreSQL writes them (quoted per RFC 4180, LF-ended). */
  async csv(kind: SubRecordExport, filter: SubRecordExportFilter): Promise<Readable> {
    const spec = EXPORT_SPECS[kind];
    const cells = spec.columns.map((c) => (c.csv ?? (c.kind === 'text' ? neutralisedSql(c.sql) : c.sql))).join(', ');
    const { sql, settings } = selectSql(spec, filter, cells);
    return copyOut(this.pool, `COPY (${sql} ORDER BY n.display_name, n.asset_id, ${spec.order}) TO STDOUT (FORMAT csv)`, settings);
  }

  /** One JSON object per line, keys in the column order. */
  async json(kind: SubRecordExport, filter: SubRecordExportFilter): Promise<Readable> {
    const spec = EXPORT_SPECS[kind];
    const { sql, settings } = selectSql(spec, filter, spec.columns.map((c) => `${c.sql} AS "${c.name}"`).join(', '));
    // row_to_json of the export's own row (faster than building each object), in the same order,
    // named by the columns: the planner keeps the plan of the inner statement.
    const ordered = `SELECT row_to_json(x)::text FROM (${sql}) x ORDER BY x."assetDisplayName", x."assetId", x."${spec.orderColumn}"`;
    // CSV with a quote and a delimiter that JSON text never holds raw: each line is the object as is.
    return copyOut(this.pool, `COPY (${ordered}) TO STDOUT (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`, settings);
  }

  /** The column names of an export, in order. */
  static columns(kind: SubRecordExport): string[] {
    return EXPORT_SPECS[kind].columns.map((c) => c.name);
  }
}
