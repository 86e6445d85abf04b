import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { TargetLookup, TargetRecord } from './target-record.js';

export { DISCOVERY_METHODS, type DiscoveryMethod } from './connectors/registry.js';

export type TargetValues = Omit<TargetRecord, 'id' | 'createdAt' | 'updatedAt'>;

const COLUMNS: Record<keyof TargetRecord, string> = {
  id: 'id', name: 'name', addresses: 'addresses', addressCount: 'address_count', methods: 'methods', ports: 'ports',
  settings: 'settings', credentialIds: 'credential_ids', scannerGroup: 'scanner_group', schedule: 'schedule', enabled: 'enabled', createdAt: 'created_at', updatedAt: 'updated_at',
};
const SELECT = Object.entries(COLUMNS).map(([alias, column]) => `${column} as ${alias}`);

function toRow(values: Partial<TargetValues>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) row[COLUMNS[key as keyof TargetRecord]] = value;
  return row;
}

export class TargetStore implements TargetLookup {
  constructor(private readonly db: Database) {}

  find(id: string): Promise<TargetRecord | undefined> {
    return this.db('discovery_targets').select(SELECT).where({ id }).first();
  }

  async list(page: number, size: number, enabled?: boolean): Promise<{ rows: TargetRecord[]; total: number }> {
    const base = this.db('discovery_targets').modify((b: Knex.QueryBuilder) => {
      if (enabled !== undefined) b.where({ enabled });
    });
    return pagedQuery<TargetRecord>(base, (q) => q.select(SELECT).orderBy([{ column: 'name' }, { column: 'id' }]), page, size);
  }

  async insert(values: TargetValues, trx: Knex): Promise<TargetRecord> {
    const [row] = await trx('discovery_targets').insert(toRow(values)).returning(SELECT);
    return row as TargetRecord;
  }

  async update(id: string, values: Partial<TargetValues>, trx: Knex): Promise<TargetRecord | undefined> {
    const [row] = await trx('discovery_targets').where({ id }).update({ ...toRow(values), updated_at: trx.fn.now() }).returning(SELECT);
    return row;
  }

  async delete(id: string, trx: Knex): Promise<boolean> {
    return (await trx('discovery_targets').where({ id }).delete()) > 0;
  }

  /** Enabled targets with a schedule, and the fire time each last acted on. */
  scheduled(): Promise<{ id: string; name: string; scannerGroup: string | null; schedule: string; since: Date }[]> {
    return this.db('discovery_targets')
      .select('id', 'name', 'scanner_group as scannerGroup', 'schedule', this.db.raw('coalesce(last_scheduled_at, created_at) as since'))
      .whereNotNull('schedule')
      .where({ enabled: true });
  }

  /** Takes a fire time for this target; false when it (or a later one) was already taken. */
  async takeFireTime(id: string, fireTime: Date): Promise<boolean> {
    const updated = await this.db('discovery_targets')
      .where({ id })
      .where((w) => w.whereNull('last_scheduled_at').orWhere('last_scheduled_at', '<', fireTime))
      .update({ last_scheduled_at: fireTime });
    return updated > 0;
  }

  /** Which of these credential ids exist. */
  async existingCredentials(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set(await this.db('credentials').whereIn('id', ids).pluck('id'));
  }
}
