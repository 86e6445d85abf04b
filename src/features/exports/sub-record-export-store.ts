// The exports of what PostgreSQL holds (docs/interface.md §2.8-2.10, 4.7; interfaces and their
// connections for CMDBs) as one COPY statement each, streamed as it comes, in asset-name order:
// CSV as PostgreSQL writes it, JSON from its text-format rows (export-streams.ts). Per-asset rows
// are read through a LATERAL join on the copy of asset names: the plan walks the names index (the
// names of assets that have rows, by the table's row counts) and each asset's rows through its
// own index, so the first rows leave at once and nothing is sorted whole. The export of each sub-record kind is derived from its model (inventory/), once, when
// this module loads.
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { copyOut, copySetting } from '../../platform/postgres/copy-out.js';
import { likeLiteral } from '../../platform/postgres/postgres-client.js';
import { mayHaveRowsSql } from '../../platform/postgres/row-counts.js';
import { neutralisedSql } from './csv-neutralisation.js';
import { columnOf, type SubRecordColumn, type SubRecordKind } from '../inventory/sub-record-kind.js';
import type { JsonColumn, JsonValueKind } from './export-streams.js';
import { SUB_RECORD_KINDS, type SubRecordDataset } from '../inventory/sub-record-kinds.js';
import type { SynthesizedFilter } from '../assets/asset-read-model.js';

export type SubRecordExport = SubRecordDataset | 'interface-connections';

/** The exact matches of each dataset, and for a sub-record kind what the assets listing selects of its rows. */
export interface SubRecordExportFilter extends SynthesizedFilter {
  assetId?: string;
  publisher?: string;
  packageManager?: string;
  username?: string;
  state?: string;
  /** interface-connections: the evidence (LLDP, CDP, FDB). */
  type?: string;
  updatedAfter?: string;
}

type Kind = 'text' | 'plain';

interface Column {
  name: string;
  /** SQL of the value. */
  sql: string;
  /** text: untrusted text, neutralised in CSV; plain: ids, numbers, dates. */
  kind: Kind;
  /** The CSV cell where it differs from the value (a list written as text). */
  csv?: string;
  /** How the JSON form writes it: lists and port objects come as JSON from PostgreSQL (to_json). */
  json: JsonValueKind;
}

/** A filter: the SQL it compares, and the type its value is cast to. */
interface FilterSpec {
  sql: string;
  op: '=' | '>';
  cast?: 'timestamptz';
}

interface ExportSpec {
  columns: Column[];
  filters: Partial<Record<Exclude<keyof SubRecordExportFilter, 'assetId' | keyof SynthesizedFilter>, FilterSpec>>;
  /** A sub-record kind's rows as the assets listing selects them: their asset id and the text columns q searches (SQL). */
  listed?: { assetId: string; searched: string[] };
  /** FROM and WHERE, from the filters' predicates and the asset scope (a uuid expression, or undefined for all). */
  from(where: string[], assetId: string | undefined): string;
  /** The order, as SQL. */
  order: string[];
}

const text = (name: string, sql: string): Column => ({ name, sql, kind: 'text', json: 'string' });
const plain = (name: string, sql: string, json: JsonValueKind = 'string', csv?: string): Column => ({ name, sql, kind: 'plain', csv, json });
/** A list of text as one CSV cell: items joined by ';', each neutralised (JSON keeps the array); written at its first use, as neutralisedSql is. */
const list = (name: string, sql: string): Column => ({
  ...plain(name, sql, 'json'),
  get csv() {
    return `(SELECT string_agg(${neutralisedSql('v')}, ';' ORDER BY i) FROM unnest(${sql}) WITH ORDINALITY AS l(v, i))`;
  },
});
const ASSET_COLUMNS = [plain('assetId', 'n.asset_id'), text('assetDisplayName', 'n.display_name'), text('assetHostname', 'n.hostname')];
/** A time as ISO 8601 in UTC to the millisecond, as the API writes times. */
const iso = (name: string, sql: string): Column => plain(name, `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
const equals = (sql: string): FilterSpec => ({ sql, op: '=' });
const changedAfter = (sql: string): FilterSpec => ({ sql, op: '>', cast: 'timestamptz' });

/** Rows of one table by asset, in asset-name order, then `order` within each asset. */
function perAsset(table: string, order: string[], columns: Column[], filters: ExportSpec['filters'], searched: string[]): ExportSpec {
  return {
    columns,
    filters,
    listed: { assetId: 't.asset_id', searched },
    // The names walked are those of assets that have rows: at 100k assets, 59,000 names came
    // before the first one with packages, and probing the table for each took 2.5 s.
    from: (where, assetId) => `(SELECT * FROM asset_names a WHERE ${assetId ? `a.asset_id = ${assetId}` : mayHaveRowsSql(table, 'a.asset_id::text')}) n
      CROSS JOIN LATERAL (SELECT * FROM ${table} t WHERE t.asset_id = n.asset_id ${where.map((w) => `AND ${w}`).join(' ')} ORDER BY ${order.join(', ')}) t`,
    order: ['n.display_name', 'n.asset_id', ...order],
  };
}

/** A column of a kind as its export writes it, from the table `t`. */
function exportColumn({ name, api, type }: SubRecordColumn): Column {
  const sql = `t.${name}`;
  switch (type) {
    case 'text':
      return text(api, sql);
    case 'number':
      return plain(api, `${sql}::float8`, 'number');
    case 'integer':
      return plain(api, sql, 'number');
    case 'date':
      return plain(api, `to_char(${sql}, 'YYYY-MM-DD')`);
    case 'timestamp':
      return iso(api, sql);
    case 'text[]':
      return list(api, sql);
    case 'ports':
      // tcp/22;udp/123 in a CSV cell; JSON keeps the objects.
      return plain(api, sql, 'json', `(SELECT string_agg((p->>'protocol') || '/' || (p->>'port'), ';' ORDER BY i) FROM jsonb_array_elements(${sql}) WITH ORDINALITY AS l(p, i))`);
    default:
      return plain(api, sql);
  }
}

function kindExport(kind: SubRecordKind<never>): ExportSpec {
  const { columns, order, equals: compared } = kind.export;
  const filters: ExportSpec['filters'] = Object.fromEntries(compared.map((api) => [api, equals(`t.${columnOf(kind, api).name}`)]));
  if (kind.changesTracked) filters.updatedAfter = changedAfter('t.updated_at');
  const searched = [kind.name, ...kind.columns.filter((c) => c.searched).map((c) => c.name)].map((name) => `t.${name}`);
  return perAsset(kind.table, order.map((api) => `t.${columnOf(kind, api).name}`), [...ASSET_COLUMNS, ...columns.map((api) => exportColumn(columnOf(kind, api)))], filters, searched);
}

export const EXPORT_SPECS: Record<SubRecordExport, ExportSpec> = {
  ...(Object.fromEntries(SUB_RECORD_KINDS.map((k) => [k.dataset, kindExport(k)])) as Record<SubRecordDataset, ExportSpec>),
  // Port-to-port links by the name of the asset that reported them, its port, then id.
  'interface-connections': {
    columns: [
      plain('id', 'c.id'), plain('sourceAssetId', 's.asset_id'), text('sourceAssetDisplayName', 'sn.display_name'), plain('sourceInterfaceId', 's.id'),
      text('sourcePort', 's.name'), plain('targetAssetId', 't.asset_id'), text('targetAssetDisplayName', 'tn.display_name'), plain('targetInterfaceId', 't.id'),
      text('targetPort', 't.name'), plain('discoveredVia', 'c.discovered_via'), plain('confidence', 'c.confidence::float8', 'number'),
      iso('firstSeenAt', 'c.first_seen_at'), iso('lastSeenAt', 'c.last_seen_at'), iso('updatedAt', 'c.updated_at'),
    ],
    filters: { type: equals('c.discovered_via'), updatedAfter: changedAfter('c.updated_at') },
    from: (where, assetId) => `interface_connections c
      JOIN network_interfaces s ON s.id = c.source_interface_id JOIN network_interfaces t ON t.id = c.target_interface_id
      JOIN asset_names sn ON sn.asset_id = s.asset_id JOIN asset_names tn ON tn.asset_id = t.asset_id
      WHERE true ${where.map((w) => `AND ${w}`).join(' ')} ${assetId ? `AND (s.asset_id = ${assetId} OR t.asset_id = ${assetId})` : ''}`,
    order: ['sn.display_name', 's.asset_id', 's.name', 'c.id'],
  },
};

/** A value of the caller's as the COPY statement reads it (copy-out.ts), cast where given. */
const setting = (key: string, cast = '') => `current_setting('${copySetting(key)}')${cast}`;
const uuidArray = (ids: string[]) => `{${ids.join(',')}}`;

/** The SELECT of an export without its order (`columns` gives each column's SQL for the format), and its filter values. */
export function selectSql(spec: ExportSpec, filter: SubRecordExportFilter, columns: string): { sql: string; settings: Record<string, string> } {
  const settings: Record<string, string> = {};
  const where: string[] = [];
  for (const [key, f] of Object.entries(spec.filters) as [keyof SubRecordExportFilter, FilterSpec][]) {
    const value = filter[key];
    if (typeof value !== 'string') continue;
    settings[key] = value;
    where.push(`${f.sql} ${f.op} ${setting(key, f.cast ? `::${f.cast}` : '')}`);
  }
  // As the assets listing selects a kind's rows (synthesized-asset-store.ts): those of the hosts
  // chosen, matching q by their text or by their host's name.
  const { listed } = spec;
  if (listed && filter.hostIds) {
    settings.hostIds = uuidArray(filter.hostIds);
    where.push(`${listed.assetId} = ANY(${setting('hostIds', '::uuid[]')})`);
  }
  if (listed && filter.q !== undefined) {
    settings.q = `%${likeLiteral(filter.q)}%`;
    const matches = listed.searched.map((column) => `${column} ILIKE ${setting('q')}`);
    if (filter.hostsMatchingQ?.length) {
      settings.hostsMatchingQ = uuidArray(filter.hostsMatchingQ);
      matches.push(`${listed.assetId} = ANY(${setting('hostsMatchingQ', '::uuid[]')})`);
    }
    where.push(`(${matches.join(' OR ')})`);
  }
  if (filter.assetId !== undefined) settings.assetId = filter.assetId;
  const assetId = filter.assetId !== undefined ? setting('assetId', '::uuid') : undefined;
  return { sql: `SELECT ${columns} FROM ${spec.from(where, assetId)}`, settings };
}

export class SubRecordExportStore {
  constructor(private readonly pool: pg.Pool) {}

  /** CSV records without the header, as PostgreSQL writes them (quoted per RFC 4180, LF-ended). */
  async csv(kind: SubRecordExport, filter: SubRecordExportFilter): Promise<Readable> {
    const spec = EXPORT_SPECS[kind];
    const cells = spec.columns.map((c) => (c.csv ?? (c.kind === 'text' ? neutralisedSql(c.sql) : c.sql))).join(', ');
    const { sql, settings } = selectSql(spec, filter, cells);
    return copyOut(this.pool, `COPY (${sql} ORDER BY ${spec.order.join(', ')}) TO STDOUT (FORMAT csv)`, settings);
  }

  /** The rows in COPY's text format, for the JSON form (see jsonColumns): lists and port objects as JSON text. */
  async json(kind: SubRecordExport, filter: SubRecordExportFilter): Promise<Readable> {
    const spec = EXPORT_SPECS[kind];
    const { sql, settings } = selectSql(spec, filter, spec.columns.map((c) => (c.json === 'json' ? `to_json(${c.sql})` : c.sql)).join(', '));
    return copyOut(this.pool, `COPY (${sql} ORDER BY ${spec.order.join(', ')}) TO STDOUT`, settings);
  }

  /** The column names of an export, in order. */
  static columns(kind: SubRecordExport): string[] {
    return EXPORT_SPECS[kind].columns.map((c) => c.name);
  }

  /** The columns of an export as its JSON form writes them. */
  static jsonColumns(kind: SubRecordExport): JsonColumn[] {
    return EXPORT_SPECS[kind].columns.map(({ name, json }) => ({ name, json }));
  }
}
