// The copy of each asset's display and host name in PostgreSQL (migration create_asset_names),
// which the exports join to sub-records.
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { AssetName, AssetNameIndex } from './asset-name.js';

export class AssetNameStore implements AssetNameIndex {
  constructor(private readonly db: Database) {}

  /**
   * Records the names of these assets; a row that already says the same is left alone. An
   * observation's null host name means "not reported" and keeps the known one (as the graph write
   * does), unless `exact` (a copy of the graph's own values).
   */
  async upsert(names: AssetName[], { exact = false }: { exact?: boolean } = {}, trx: Knex = this.db): Promise<void> {
    if (names.length === 0) return;
    const unique = [...new Map(names.map((n) => [n.assetId, n])).values()];
    await trx.raw(
      `INSERT INTO asset_names AS n (asset_id, display_name, hostname, updated_at)
       SELECT id, display_name, hostname, now() FROM unnest(:ids::uuid[], :names::text[], :hostnames::text[]) AS u(id, display_name, hostname)
       ON CONFLICT (asset_id) DO UPDATE
         SET display_name = EXCLUDED.display_name, hostname = ${exact ? 'EXCLUDED.hostname' : 'coalesce(EXCLUDED.hostname, n.hostname)'}, updated_at = now()
       WHERE (n.display_name, n.hostname) IS DISTINCT FROM (EXCLUDED.display_name, ${exact ? 'EXCLUDED.hostname' : 'coalesce(EXCLUDED.hostname, n.hostname)'})`,
      { ids: unique.map((n) => n.assetId), names: unique.map((n) => n.displayName), hostnames: unique.map((n) => n.hostname) },
    );
  }

  /** Rows of assets outside `existing` (ids after `after`, or from the first, through `through`) written before `before`: the graph no longer has them. */
  async deleteMissing(existing: string[], range: { after: string | null; through: string }, before: Date): Promise<number> {
    const rows = this.db('asset_names').where('asset_id', '<=', range.through);
    if (range.after !== null) rows.where('asset_id', '>', range.after);
    return rows
      .whereNotIn('asset_id', existing)
      .where('updated_at', '<', before)
      .delete();
  }
}
