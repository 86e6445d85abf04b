// The PostgreSQL part of an asset's history: the changes of each source's values of its facts, and
// of a synthesized row's values (asset_history, written by triggers: migration create_asset_history).
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
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

  private filtered(id: string, { fields, from, to }: HistoryFilter): Knex.QueryBuilder {
    const query = this.db('asset_history').where('asset_id', id);
    if (fields) query.whereIn('field', fields);
    if (from !== undefined) query.where('changed_at', '>=', new Date(from));
    if (to !== undefined) query.where('changed_at', '<', new Date(to));
    return query;
  }
}
