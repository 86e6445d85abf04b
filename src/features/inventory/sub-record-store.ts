// The sub-record tables: each kind (sub-record-kinds.ts) upserted by its natural key (packages and
// services by asset and name, so that their ids and first_seen_at survive upgrades; interfaces by
// asset and name), or replaced whole per asset (processes); and interface connections by (source,
// target, via).
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import { discoveredServiceKind } from './discovered-service-kind.js';
import { networkInterfaceKind } from './network-interface-kind.js';
import { runningProcessKind } from './running-process-kind.js';
import { softwarePackageKind } from './software-package-kind.js';
import type { SubRecordKind } from './sub-record-kind.js';
import { SUB_RECORD_KINDS } from './sub-record-kinds.js';
import type { ConnectionRow, InterfaceRow, PackageRow, ProcessRow, ServiceRow } from './sub-record-rows.js';

const CHUNK = 1000;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/** The last row per key: a bundle that names a package twice keeps the later entry. */
function lastPerKey<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
}

/** ON CONFLICT: the new values of these columns. */
function excluded(db: Database, columns: string[]): Record<string, Knex.Raw> {
  return Object.fromEntries(columns.map((c) => [c, db.raw('??', [`excluded.${c}`])]));
}

/** ON CONFLICT: updated_at moves only when one of the values changes. */
function changedAt(db: Database, table: string, columns: string[]): Knex.Raw {
  const marks = columns.map(() => '??').join(', ');
  const of = (prefix: string) => columns.map((c) => `${prefix}.${c}`);
  return db.raw(`CASE WHEN (${marks}) IS DISTINCT FROM (${marks}) THEN now() ELSE ??.updated_at END`, [...of(table), ...of('excluded'), table]);
}

type AnyKind = SubRecordKind<never>;

export class SubRecordStore {
  /** ON CONFLICT ... DO UPDATE of each upserted kind: its values and last_seen_at, and updated_at where it tracks changes; made once. */
  private readonly merges = new Map<AnyKind, Record<string, Knex.Raw>>();

  constructor(private readonly db: Database) {
    for (const kind of SUB_RECORD_KINDS as readonly AnyKind[]) {
      if (kind.key === null) continue;
      const values = kind.columns.filter((c) => !c.managed && c.name !== kind.key).map((c) => c.name);
      this.merges.set(kind, { ...excluded(db, [...values, kind.lastSeen]), ...(kind.changesTracked ? { updated_at: changedAt(db, kind.table, values) } : {}) });
    }
  }

  /** Rows of a kind with a natural key, by it: the later of two rows with one key wins. */
  private async upsert<Row extends { assetId: string }>(kind: SubRecordKind<Row>, rows: Row[], source: string, observedAt: Date): Promise<void> {
    const key = kind.key as string;
    const keyOf = (r: Record<string, unknown>) => `${r.asset_id}\u0000${r[key]}`;
    const merge = this.merges.get(kind as AnyKind);
    for (const chunk of chunks(lastPerKey(rows.map((r) => kind.toRow(r, { source, observedAt })), keyOf))) {
      await this.db(kind.table).insert(chunk).onConflict(['asset_id', key]).merge(merge);
    }
  }

  upsertPackages(rows: PackageRow[], source: string, observedAt: Date): Promise<void> {
    return this.upsert(softwarePackageKind, rows, source, observedAt);
  }

  upsertServices(rows: ServiceRow[], observedAt: Date): Promise<void> {
    return this.upsert(discoveredServiceKind, rows, '', observedAt);
  }

  /** The processes of each asset become exactly `rows`, in one transaction: never a half-replaced set. */
  async replaceProcesses(assetIds: string[], rows: ProcessRow[], observedAt: Date): Promise<void> {
    if (assetIds.length === 0) return;
    const { table } = runningProcessKind;
    await this.db.transaction(async (trx) => {
      for (const ids of chunks(assetIds)) await trx(table).whereIn('asset_id', ids).delete();
      for (const chunk of chunks(rows)) await trx(table).insert(chunk.map((r) => runningProcessKind.toRow(r, { source: '', observedAt })));
    });
  }

  upsertInterfaces(rows: InterfaceRow[], observedAt: Date): Promise<void> {
    return this.upsert(networkInterfaceKind, rows, '', observedAt);
  }

  /** The ids of interfaces by (asset, name); an interface a neighbour or FDB row proves is created if unknown. */
  async interfaceIds(ports: { assetId: string; name: string }[], observedAt: Date): Promise<Map<string, string>> {
    const unique = lastPerKey(ports, (p) => `${p.assetId}\u0000${p.name}`);
    const ids = new Map<string, string>();
    for (const chunk of chunks(unique)) {
      await this.db('network_interfaces')
        .insert(chunk.map((p) => ({ asset_id: p.assetId, name: p.name, first_seen_at: observedAt, last_seen_at: observedAt })))
        .onConflict(['asset_id', 'name'])
        .ignore();
      const found = await this.db('network_interfaces').select('id', 'asset_id', 'name').whereIn(['asset_id', 'name'], chunk.map((p) => [p.assetId, p.name]));
      for (const row of found) ids.set(`${row.asset_id}\u0000${row.name}`, row.id);
    }
    return ids;
  }

  async interfacesByMac(macs: string[], trx: Knex | Database = this.db): Promise<{ id: string; assetId: string; macAddress: string }[]> {
    const out: { id: string; assetId: string; macAddress: string }[] = [];
    for (const chunk of chunks([...new Set(macs)])) {
      out.push(...(await trx('network_interfaces').select('id', 'asset_id as assetId', 'mac_address as macAddress').whereIn('mac_address', chunk)));
    }
    return out;
  }

  /** MACs known to belong to network devices: by their identity, or as MACs of their interfaces. */
  async networkDeviceMacs(macs: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of chunks([...new Set(macs)])) {
      const rows = await this.db
        .select('value as mac')
        .from('asset_identifiers')
        .where({ rule: 'MAC_ADDRESS', asset_category: 'NETWORK_DEVICE' })
        .whereIn('value', chunk)
        .union((u) =>
          u
            .select('ni.mac_address as mac')
            .from('network_interfaces as ni')
            .whereIn('ni.mac_address', chunk)
            .whereExists((e) => e.select(this.db.raw('1')).from('asset_identifiers as ai').whereRaw('ai.asset_id = ni.asset_id').where('ai.asset_category', 'NETWORK_DEVICE')),
        );
      for (const r of rows) found.add(r.mac);
    }
    return found;
  }

  async upsertConnections(rows: ConnectionRow[], observedAt: Date): Promise<void> {
    const unique = lastPerKey(rows, (r) => `${r.sourceInterfaceId}\u0000${r.targetInterfaceId}\u0000${r.discoveredVia}`);
    for (const chunk of chunks(unique)) {
      await this.db('interface_connections')
        .insert(chunk.map((r) => ({
          source_interface_id: r.sourceInterfaceId, source_asset_id: r.sourceAssetId, target_interface_id: r.targetInterfaceId, target_asset_id: r.targetAssetId, discovered_via: r.discoveredVia,
          confidence: r.confidence, first_seen_at: observedAt, last_seen_at: observedAt,
        })))
        .onConflict(['source_interface_id', 'target_interface_id', 'discovered_via'])
        .merge({ confidence: this.db.raw('excluded.confidence'), last_seen_at: this.db.raw('excluded.last_seen_at'), updated_at: changedAt(this.db, 'interface_connections', ['confidence']) });
    }
  }

  /**
   * The MACs each switch's forwarding table places on an access port and no known interface has,
   * as of this read: kept (first_seen_at survives), and those the switches no longer show go.
   */
  async replaceUnmatchedMacs(switchIds: string[], rows: { switchAssetId: string; port: string; macAddress: string }[], observedAt: Date): Promise<void> {
    const unique = lastPerKey(rows, (r) => `${r.switchAssetId}\u0000${r.port}\u0000${r.macAddress}`);
    for (const chunk of chunks(unique)) {
      await this.db('fdb_unmatched_macs')
        .insert(chunk.map((r) => ({ switch_asset_id: r.switchAssetId, port: r.port, mac_address: r.macAddress, first_seen_at: observedAt, last_seen_at: observedAt })))
        .onConflict(['switch_asset_id', 'port', 'mac_address'])
        .merge({ last_seen_at: this.db.raw('excluded.last_seen_at') });
    }
    for (const ids of chunks(switchIds)) await this.db('fdb_unmatched_macs').whereIn('switch_asset_id', ids).where('last_seen_at', '<', observedAt).delete();
  }

  /** Retire step: the packages a source last reported before `observedAt`, of assets whose package list it read in full. */
  async retirePackages(assetIds: string[], source: string, observedAt: Date): Promise<void> {
    for (const ids of chunks(assetIds)) await this.db(softwarePackageKind.table).whereIn('asset_id', ids).where({ source }).where('last_seen_at', '<', observedAt).delete();
  }

  /** Retire step: the services a connector last reported before `observedAt`, of assets whose services it read in full. */
  async retireServices(assetIds: string[], sourceConnector: string, observedAt: Date): Promise<void> {
    for (const ids of chunks(assetIds)) await this.db(discoveredServiceKind.table).whereIn('asset_id', ids).where({ source_connector: sourceConnector }).where('last_seen_at', '<', observedAt).delete();
  }

  /** Retire step: the processes a connector last reported before `observedAt`, of assets whose processes it read in full. */
  async retireProcesses(assetIds: string[], sourceConnector: string, observedAt: Date): Promise<void> {
    const { table, lastSeen } = runningProcessKind;
    for (const ids of chunks(assetIds)) await this.db(table).whereIn('asset_id', ids).where({ source_connector: sourceConnector }).where(lastSeen, '<', observedAt).delete();
  }
}
