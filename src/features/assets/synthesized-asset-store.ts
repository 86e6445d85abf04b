// Sub-record rows read as assets (docs/interface.md §2.11): software packages, running processes, discovered
// services and interfaces, with what q matches in each (docs/interface.md §4.1).
import type { Knex } from 'knex';
import { countRows, type Database } from '../../platform/postgres/postgres-client.js';

export type SynthesizedType = 'SOFTWARE_PACKAGE' | 'RUNNING_PROCESS' | 'DISCOVERED_SERVICE' | 'INTERFACE';

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
  select: string[];
  firstSeen: string;
  lastSeen: string;
}

const TABLES: Record<SynthesizedType, TableSpec> = {
  SOFTWARE_PACKAGE: {
    table: 'software_packages', name: 'package_name', searched: ['publisher'], firstSeen: 'first_seen_at', lastSeen: 'last_seen_at',
    select: ['version', 'publisher', "to_char(install_date, 'YYYY-MM-DD') AS install_date", 'package_manager', 'source'],
  },
  RUNNING_PROCESS: {
    table: 'running_processes', name: 'process_name', searched: ['command_line'], firstSeen: 'observed_at', lastSeen: 'observed_at',
    select: ['pid', 'ppid', 'command_line', 'username', 'state', 'memory_kb::float8 AS memory_kb', 'cpu_percent::float8 AS cpu_percent', 'source_connector', 'software_asset_id'],
  },
  DISCOVERED_SERVICE: {
    table: 'discovered_services', name: 'service_name', searched: ['display_name'], firstSeen: 'first_seen_at', lastSeen: 'last_seen_at',
    select: ['display_name', 'state', 'start_mode', 'listen_ports', 'source_connector'],
  },
  INTERFACE: {
    table: 'network_interfaces', name: 'name', searched: ['mac_address'], firstSeen: 'first_seen_at', lastSeen: 'last_seen_at',
    select: ['if_index', 'mac_address', 'ip_addresses', 'speed_mbps', 'oper_status', 'mtu', 'description'],
  },
};

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
      .select(this.columns(TABLES.INTERFACE).map((c) => (typeof c === 'string' && !c.includes('(') ? `network_interfaces.${c}` : c)))
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
    return [
      'id', 'asset_id as assetId', `${spec.name} as name`, `${spec.firstSeen} as firstSeenAt`, `${spec.lastSeen} as lastSeenAt`,
      ...spec.select.map((c) => this.db.raw(c)),
    ];
  }
}
