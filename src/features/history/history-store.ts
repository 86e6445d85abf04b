// The PostgreSQL part of an asset's history: the changes of each source's values of its facts, and
// of a synthesized row's values (asset_history, written by triggers: migration create_asset_history).
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Fact } from '../inventory/asset-facts.js';
import type { HistoryFilter, HistoryPart, KeyedEntry, PartWindow } from './history-entry.js';

interface HistoryRow {
  id: string;
  at: string;
  field: string;
  source: string | null;
  old_value: unknown;
  new_value: unknown;
}

// The key's text: the row's id, zero-padded so that text order is id order.
const KEY_SQL = `'f' || lpad(id::text, 19, '0') COLLATE "C"`;
const AT_SQL = `(extract(epoch FROM changed_at) * 1000)::bigint`;

export class HistoryStore implements HistoryPart {
  constructor(private readonly db: Database) {}

  async read(id: string, filter: HistoryFilter, window: PartWindow): Promise<KeyedEntry[]> {
    const query = this.filtered(id, filter)
      .select('id', this.db.raw(`${AT_SQL} AS at`), 'field', 'source', 'old_value', 'new_value')
      .orderBy([{ column: 'changed_at', order: window.asc ? 'asc' : 'desc' }, { column: 'id', order: window.asc ? 'asc' : 'desc' }])
      .limit(window.limit);
    if (window.after) query.whereRaw(`(${AT_SQL}, ${KEY_SQL}) < (?, ? COLLATE "C")`, window.after);
    if (window.before) query.whereRaw(`(${AT_SQL}, ${KEY_SQL}) > (?, ? COLLATE "C")`, window.before);
    const rows: HistoryRow[] = await query;
    return rows.map((r) => ({
      key: [Number(r.at), `f${r.id.padStart(19, '0')}`],
      entry: {
        changedAt: new Date(Number(r.at)).toISOString(), kind: 'FACT', field: r.field, oldValue: r.old_value, newValue: r.new_value,
        source: r.source, actor: null, relationship: null,
      },
    }));
  }

  async count(id: string, filter: HistoryFilter): Promise<number> {
    const [row] = await this.filtered(id, filter).count<{ count: string }[]>({ count: '*' });
    return Number(row?.count ?? 0);
  }

  /**
   * Removes, a batch at a time, the rows older than the cutoff that a later row at or before it
   * supersedes (the last value of each source's field by the cutoff stays: the state at the
   * cutoff), and those that record a value gone; then history answers from the cutoff.
   */
  async removeOlder(cutoff: Date, batch: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const { rowCount } = await this.db.raw(
        `DELETE FROM asset_history WHERE id IN (
           SELECT h.id FROM asset_history h
            WHERE h.changed_at < :cutoff
              AND (h.new_value IS NULL OR EXISTS (
                SELECT 1 FROM asset_history n
                 WHERE n.asset_id = h.asset_id AND n.field = h.field AND n.source IS NOT DISTINCT FROM h.source
                   AND n.changed_at <= :cutoff AND (n.changed_at, n.id) > (h.changed_at, h.id)))
            LIMIT :batch)`,
        { cutoff, batch },
      );
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
    }
    await this.db.raw('UPDATE history_horizon SET kept_from = greatest(kept_from, ?)', [cutoff]);
    return removed;
  }

  /** The earliest time history answers for. */
  async keptFrom(): Promise<Date> {
    const row = await this.db('history_horizon').first<{ kept_from: Date } | undefined>('kept_from');
    return row ? new Date(row.kept_from) : new Date(0);
  }

  /**
   * Each asset's facts as they stood at `at` (of these fields only, when named): the last value each
   * source had reported of each field by then (its time as the observation's, its current
   * ownership), and the time of the asset's last change by then.
   */
  async factsAt(ids: string[], at: Date, fields?: string[]): Promise<Map<string, { facts: Fact[]; changedAt: Date | null }>> {
    const out = new Map<string, { facts: Fact[]; changedAt: Date | null }>(ids.map((id) => [id, { facts: [], changedAt: null }]));
    if (ids.length === 0) return out;
    const { rows } = await this.db.raw(
      `SELECT DISTINCT ON (h.asset_id, h.field, h.source) h.asset_id, h.field, h.source, h.new_value AS value, h.changed_at, coalesce(f.owned, false) AS owned
         FROM asset_history h LEFT JOIN asset_facts f USING (asset_id, field, source)
        WHERE h.asset_id = ANY(?::uuid[]) AND h.changed_at <= ? AND (?::text[] IS NULL OR h.field = ANY(?::text[]))
        ORDER BY h.asset_id, h.field, h.source, h.changed_at DESC, h.id DESC`,
      [ids, at, fields ?? null, fields ?? null],
    );
    for (const r of rows as { asset_id: string; field: string; source: string; value: unknown; changed_at: Date; owned: boolean }[]) {
      const asset = out.get(r.asset_id) as { facts: Fact[]; changedAt: Date | null };
      if (!asset.changedAt || r.changed_at > asset.changedAt) asset.changedAt = r.changed_at;
      if (r.value !== null) asset.facts.push({ field: r.field, source: r.source, value: r.value, observedAt: r.changed_at, owned: r.owned });
    }
    return out;
  }

  /** A synthesized row's values that changed after `at`, each with the value it had then (by API name). */
  async valuesBefore(id: string, at: Date): Promise<Map<string, unknown>> {
    const { rows } = await this.db.raw(
      'SELECT DISTINCT ON (field) field, old_value FROM asset_history WHERE asset_id = ? AND changed_at > ? ORDER BY field, changed_at, id',
      [id, at],
    );
    return new Map((rows as { field: string; old_value: unknown }[]).map((r) => [r.field, r.old_value]));
  }

  private filtered(id: string, { fields, from, to }: HistoryFilter): Knex.QueryBuilder {
    const query = this.db('asset_history').where('asset_id', id);
    if (fields) query.whereIn('field', fields);
    if (from !== undefined) query.where('changed_at', '>=', new Date(from));
    if (to !== undefined) query.where('changed_at', '<', new Date(to));
    return query;
  }
}
