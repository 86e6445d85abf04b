// Sub-record rows read as assets (docs/interface.md §2.11): the rows of each sub-record kind
// (software packages, running processes, discovered services, interfaces), with what q matches in
// each (docs/interface.md §4.1). What each kind selects and searches is derived from its model.
import type { Knex } from 'knex';
import { countRows, type Database } from '../../platform/postgres/postgres-client.js';
import type { ColumnType } from '../subrecords/sub-record-kind.js';
import { SUB_RECORD_KINDS, type SynthesizedType } from '../subrecords/sub-record-kinds.js';

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
  discoveredVia: string;
  confidence: number;
}

interface TableSpec {
  table: string;
  name: string;
  /** Text columns that q searches besides the name. */
  searched: string[];
  /** The customAttributes, as SQL, qualified by the table (interfacesInHostOrder joins another relation). */
  select: string[];
  firstSeen: string;
  lastSeen: string;
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
    },
  ]),
) as Record<SynthesizedType, TableSpec>;

const SORT_COLUMNS = { displayName: 'name', firstSeenAt: 'firstSeen', lastSeenAt: 'lastSeen' } as const;

export class SynthesizedAssetStore {
  constructor(private readonly db: Database) {}

  private filtered(type: SynthesizedType, filter: SynthesizedFilter): Knex.QueryBuilder {
    const spec = TABLES[type];
    // Columns are qualified: interfacesInHostOrder joins another relation.
    const col = (c: string) => `${spec.table}.${c}`;
    return this.db(spec.table).modify((b) => {
      if (filter.hostIds) b.whereIn(col('asset_id'), filter.hostIds);
      if (filter.q !== undefined) {
        const like = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        b.where((w) => {
          w.whereILike(col(spec.name), like);
          for (const column of spec.searched) w.orWhereILike(col(column), like);
          if (filter.hostsMatchingQ?.length) w.orWhereIn(col('asset_id'), filter.hostsMatchingQ);
        });
      }
    });
  }

  async count(type: SynthesizedType, filter: SynthesizedFilter): Promise<number> {
    return countRows(this.filtered(type, filter));
  }

  async page(type: SynthesizedType, filter: SynthesizedFilter, sort: { field: string; direction: 'asc' | 'desc' }, offset: number, limit: number): Promise<SynthesizedRow[]> {
    const spec = TABLES[type];
    const key = SORT_COLUMNS[sort.field as keyof typeof SORT_COLUMNS] ?? 'name';
    const column = key === 'name' ? spec.name : key === 'firstSeen' ? spec.firstSeen : spec.lastSeen;
    return this.filtered(type, filter)
      .select(this.columns(spec))
      .orderBy([{ column, order: sort.direction }, { column: spec.name }, { column: 'id' }])
      .offset(offset)
      .limit(limit);
  }

  /** The assets that have interfaces passing the filter. */
  async interfaceAssetIds(filter: SynthesizedFilter): Promise<string[]> {
    return this.filtered('INTERFACE', filter).distinct('asset_id').pluck('asset_id');
  }

  /** Interfaces in the order of their hosts (given, by host name), then ifIndex (docs/interface.md §2.12). */
  async interfacesInHostOrder(filter: SynthesizedFilter, hostOrder: string[], direction: 'asc' | 'desc', offset: number, limit: number): Promise<SynthesizedRow[]> {
    return this.filtered('INTERFACE', filter)
      .join(this.db.raw('unnest(?::uuid[]) WITH ORDINALITY AS host_order(asset_id, ord)', [hostOrder]), 'host_order.asset_id', 'network_interfaces.asset_id')
      .select(this.columns(TABLES.INTERFACE))
      .orderByRaw(`host_order.ord ${direction === 'desc' ? 'DESC' : 'ASC'}, network_interfaces.if_index NULLS LAST, network_interfaces.name, network_interfaces.id`)
      .offset(offset)
      .limit(limit);
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
