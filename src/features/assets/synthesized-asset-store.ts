// Sub-record rows read as assets (docs/interface.md §2.11): the rows of each sub-record kind
// (software packages, running processes, discovered services, interfaces), with what q matches in
// each (docs/interface.md §4.1). What each kind selects, searches and orders by is derived from its model.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { BadRequestError } from '../../platform/errors.js';
import type { PageWindow, RowKey } from '../../platform/http/pagination.js';
import { keysetRows, keyTimeSql, likeLiteral, type Database, type KeyColumn } from '../../platform/postgres/postgres-client.js';
import { ALL_ROWS, type RowCounts } from '../../platform/postgres/row-counts.js';
import { UnchangedCache } from '../../platform/unchanged-cache.js';
import type { ColumnType, OrderColumn } from '../inventory/sub-record-kind.js';
import { SUB_RECORD_KINDS, type SynthesizedType } from '../inventory/sub-record-kinds.js';
import type { ConnectionRow } from '../inventory/sub-record-rows.js';

export type { SynthesizedType };

export interface SynthesizedFilter {
  /** Lower-case free text. */
  q?: string;
  /** Hosts whose display name matches q: their rows match too. */
  hostsMatchingQ?: string[];
  /** Only rows of these hosts (site or environment filters). */
  hostIds?: string[];
}

export interface SynthesizedRow {
  id: string;
  assetId: string;
  name: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  [column: string]: unknown;
}

export interface InterfaceConnection {
  interfaceId: string;
  otherInterfaceId: string;
  otherAssetId: string;
  otherPort: string;
  discoveredVia: ConnectionRow['discoveredVia'];
  confidence: number;
}

interface TableSpec {
  table: string;
  name: string;
  /** Text columns that q searches besides the name. */
  searched: string[];
  /** The customAttributes, as SQL, qualified by the table. */
  select: string[];
  firstSeen: string;
  lastSeen: string;
  /** Rows upserted by their natural key: a rescan rewrites their last sighting in place, which no index holds. */
  seenInPlace: boolean;
  nameOrder: OrderColumn[];
}

/** A column as the synthesized row shows it, under the column's name. */
function attributeSql(table: string, name: string, type: ColumnType): string {
  const column = `${table}.${name}`;
  if (type === 'date') return `to_char(${column}, 'YYYY-MM-DD') AS ${name}`;
  if (type === 'number') return `${column}::float8 AS ${name}`;
  return column;
}

const TABLES = Object.fromEntries(
  SUB_RECORD_KINDS.map((k): [SynthesizedType, TableSpec] => [
    k.assetType,
    {
      table: k.table,
      name: k.name,
      searched: k.columns.filter((c) => c.searched).map((c) => c.name),
      select: k.columns.filter((c) => c.attribute).map((c) => attributeSql(k.table, c.name, c.type)),
      firstSeen: k.firstSeen,
      lastSeen: k.lastSeen,
      seenInPlace: k.key !== null,
      nameOrder: k.nameOrder ?? [],
    },
  ]),
) as Record<SynthesizedType, TableSpec>;

// Filtered totals that scan (a text search), kept while their table is unchanged.
const COUNT_CACHE_ENTRIES = 500;

/** A synthesized row with the key of its place in the listing's order. */
export interface KeyedRow {
  row: SynthesizedRow;
  key: RowKey;
}

/**
 * How the rows of a type are ordered for a sort: the key's columns, and what to select to give
 * each row's key back (the values under these aliases, then the row's name and id).
 */
interface RowOrder {
  columns: KeyColumn[];
  select: Knex.Raw[];
  aliases: string[];
}

export class SynthesizedAssetStore {
  // Per type, its text searches' counts, kept while its table's version holds.
  private readonly counts: Map<SynthesizedType, UnchangedCache<number>>;

  constructor(
    private readonly db: Database,
    private readonly rowCounts: RowCounts,
  ) {
    this.counts = new Map(Object.entries(TABLES).map(([type, { table }]) => [type as SynthesizedType, new UnchangedCache<number>(() => this.version(table), COUNT_CACHE_ENTRIES)]));
  }

  private async version(table: string): Promise<string> {
    const { rows } = await this.db.raw('SELECT ? AS version', [this.rowCounts.versionSql(table)]);
    return rows[0].version;
  }

  private filtered(type: SynthesizedType, filter: SynthesizedFilter): Knex.QueryBuilder {
    const spec = TABLES[type];
    const col = (c: string) => `${spec.table}.${c}`;
    return this.db(spec.table).modify((b) => {
      if (filter.hostIds) b.whereIn(col('asset_id'), filter.hostIds);
      if (filter.q !== undefined) {
        const like = `%${likeLiteral(filter.q)}%`;
        b.where((w) => {
          w.whereILike(col(spec.name), like);
          for (const column of spec.searched) w.orWhereILike(col(column), like);
          if (filter.hostsMatchingQ?.length) w.orWhereIn(col('asset_id'), filter.hostsMatchingQ);
        });
      }
    });
  }

  /**
   * The rows of a type that pass the filter. A filter of hosts alone (or none) is answered by the
   * counts kept beside the table (row-counts.ts); a text search counts its matches, and the count
   * is kept while the table is unchanged.
   */
  async count(type: SynthesizedType, filter: SynthesizedFilter): Promise<number> {
    const { table } = TABLES[type];
    if (filter.q === undefined) return this.rowCounts.count(table, filter.hostIds ? { keys: filter.hostIds } : ALL_ROWS);
    // Hashed: the hosts that q names may be thousands of ids.
    const key = createHash('sha1').update(JSON.stringify(filter)).digest('base64');
    return (this.counts.get(type) as UnchangedCache<number>).get(key, async () => {
      // The count and the version it holds for, in one snapshot.
      const [row] = (await this.filtered(type, filter).select(this.db.raw('count(*)::float8 AS n'), this.db.raw('? AS version', [this.rowCounts.versionSql(table)]))) as { n: number; version: string }[];
      return { value: row?.n ?? 0, version: row?.version ?? '' };
    });
  }

  /**
   * Refuses an order that no index serves on a table that may hold millions of rows: the last
   * sighting of rows that rescans update in place (sorting the table whole for each page took 5 s
   * at 10 million packages), unless the rows are one host's (hostId).
   */
  assertSortable(type: SynthesizedType, sort: { field: string }, oneHost: boolean): void {
    if (sort.field !== 'lastSeenAt' || !TABLES[type].seenInPlace || oneHost) return;
    const unsortable = Object.entries(TABLES).filter(([, t]) => t.seenInPlace).map(([t]) => t);
    throw new BadRequestError(
      `sort=lastSeenAt is offered for ${unsortable.join(', ')} rows only with hostId: each rescan rewrites their last sighting in place, where no index holds it. Sort them by firstSeenAt or displayName.`,
      [{ path: 'query.sort', message: `not accepted with type=${type}` }],
    );
  }

  /**
   * The order of a type's rows for the listing's sort (docs/interface.md §2.12 for interfaces by
   * name). A text search reads its matches by the trigram index and sorts them: its order is then
   * an expression that no index of the order serves, or the planner may walk the order's index
   * until a page of rows match, which reads the whole table when the matches lie at its end (a
   * name's prefix clusters them: 15 s for q=worker-7 among 2 million processes, 1 s this way).
   */
  private order(type: SynthesizedType, sort: { field: string }, searched: boolean): RowOrder {
    const spec = TABLES[type];
    const col = (c: string) => `${spec.table}.${c}`;
    // The column plus nothing (an empty text, a zero interval): the same values, in no index.
    const unindexed = (column: string, plusNothing: string) => (searched ? this.db.raw(`(?? ${plusNothing})`, [col(column)]) : col(column));
    const name: KeyColumn = { sql: unindexed(spec.name, "|| ''"), type: 'text' };
    const id: KeyColumn = { sql: col('id'), type: 'uuid' };
    if (sort.field === 'displayName' && spec.nameOrder.length) {
      return {
        columns: [...spec.nameOrder.map((c): KeyColumn => ({ sql: c.type === 'text' ? unindexed(c.name, "|| ''") : col(c.name), type: c.type })), name, id],
        select: spec.nameOrder.map((c, i) => this.db.raw('?? AS ??', [col(c.name), `key${i}`])),
        aliases: spec.nameOrder.map((_, i) => `key${i}`),
      };
    }
    const seen = sort.field === 'firstSeenAt' ? spec.firstSeen : sort.field === 'lastSeenAt' ? spec.lastSeen : undefined;
    if (seen === undefined) return { columns: [name, id], select: [], aliases: [] };
    return {
      columns: [{ sql: unindexed(seen, "+ interval '0 s'"), type: 'timestamp' }, name, id],
      select: [keyTimeSql(this.db, col(seen), 'seenKey')],
      aliases: ['seenKey'],
    };
  }

  /** The rows of a type through a page window (in list order), each with its key in the listing's order. */
  async rows(type: SynthesizedType, filter: SynthesizedFilter, sort: { field: string; direction: 'asc' | 'desc' }, window: PageWindow): Promise<KeyedRow[]> {
    const order = this.order(type, sort, filter.q !== undefined);
    const shape = (q: Knex.QueryBuilder) => q.select([...this.columns(TABLES[type]), ...order.select]);
    const rows = await keysetRows<SynthesizedRow>(this.filtered(type, filter), shape, order.columns, sort.direction, window);
    return rows.map((row) => {
      const key: RowKey = [...order.aliases.map((alias) => row[alias] as RowKey[number]), row.name, row.id];
      for (const alias of order.aliases) delete row[alias];
      return { row, key };
    });
  }

  /** The row with this id, in whichever table holds it. */
  async find(id: string): Promise<{ type: SynthesizedType; row: SynthesizedRow } | undefined> {
    for (const type of Object.keys(TABLES) as SynthesizedType[]) {
      const row = await this.db(TABLES[type].table).select(this.columns(TABLES[type])).where({ id }).first();
      if (row) return { type, row };
    }
    return undefined;
  }

  /** The connections of these interfaces (either end), with the port at the other end. */
  async connections(interfaceIds: string[]): Promise<InterfaceConnection[]> {
    if (interfaceIds.length === 0) return [];
    const { rows } = await this.db.raw(
      `SELECT c.source_interface_id AS "interfaceId", o.id AS "otherInterfaceId", o.asset_id AS "otherAssetId", o.name AS "otherPort",
              c.discovered_via AS "discoveredVia", c.confidence::float8 AS confidence
         FROM interface_connections c JOIN network_interfaces o ON o.id = c.target_interface_id
        WHERE c.source_interface_id = ANY(?::uuid[])
       UNION ALL
       SELECT c.target_interface_id, o.id, o.asset_id, o.name, c.discovered_via, c.confidence::float8
         FROM interface_connections c JOIN network_interfaces o ON o.id = c.source_interface_id
        WHERE c.target_interface_id = ANY(?::uuid[])`,
      [interfaceIds, interfaceIds],
    );
    return rows as InterfaceConnection[];
  }

  private columns(spec: TableSpec): (string | Knex.Raw)[] {
    const col = (c: string) => `${spec.table}.${c}`;
    return [
      col('id'), `${col('asset_id')} as assetId`, `${col(spec.name)} as name`, `${col(spec.firstSeen)} as firstSeenAt`, `${col(spec.lastSeen)} as lastSeenAt`,
      ...spec.select.map((c) => this.db.raw(c)),
    ];
  }
}
