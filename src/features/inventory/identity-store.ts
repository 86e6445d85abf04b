import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Category } from './asset-categories.js';
import { identifierKey, type Identifier, type IdentityLookup, type KnownIdentifier } from './asset-identity.js';

export interface IdentifierRow extends Identifier {
  assetId: string;
  category: Category;
}

export class IdentityStore implements IdentityLookup {
  constructor(private readonly db: Database) {}

  /** The assets that hold any of the identifiers, in one query (the pairs sent as two arrays). */
  async lookup(ids: Identifier[]): Promise<Map<string, KnownIdentifier>> {
    const found = new Map<string, KnownIdentifier>();
    if (ids.length === 0) return found;
    const { rows } = await this.db.raw(
      `SELECT i.rule, i.value, i.asset_id AS "assetId", i.asset_category AS category
         FROM unnest(?::text[], ?::text[]) AS w(rule, value)
         JOIN asset_identifiers i ON i.rule = w.rule AND i.value = w.value`,
      [ids.map((i) => i.rule), ids.map((i) => i.value)],
    );
    for (const r of rows as (KnownIdentifier & Identifier)[]) found.set(identifierKey(r), { assetId: r.assetId, category: r.category });
    return found;
  }

  /** Up to `limit` assets after `after`, in id order, whose identity rows were all written before `before`. */
  assetsWrittenBefore(after: string | null, before: Date, limit: number): Promise<string[]> {
    return this.db('asset_identifiers')
      .modify((q) => {
        if (after !== null) q.where('asset_id', '>', after);
      })
      .groupBy('asset_id')
      .havingRaw('max(updated_at) < ?', [before])
      .orderBy('asset_id')
      .limit(limit)
      .pluck('asset_id');
  }

  /**
   * Removes what an import wrote of these assets before their graph write (which never came):
   * identity rows written before `before` (an import in flight since keeps its own), then the
   * facts and name of each asset left with none. Answers the number of assets removed.
   */
  async deleteUnwritten(assetIds: string[], before: Date): Promise<number> {
    return this.db.transaction(async (trx) => {
      await trx('asset_identifiers').whereIn('asset_id', assetIds).where('updated_at', '<', before).delete();
      const { rows } = await trx.raw(
        'SELECT id FROM unnest(?::uuid[]) AS u(id) WHERE NOT EXISTS (SELECT 1 FROM asset_identifiers i WHERE i.asset_id = u.id)',
        [assetIds],
      );
      const gone = (rows as { id: string }[]).map((r) => r.id);
      await trx('asset_facts').whereIn('asset_id', gone).delete();
      await trx('asset_names').whereIn('asset_id', gone).delete();
      return gone.length;
    });
  }

  /** Records who holds each identifier now (the latest observation wins). */
  async upsert(rows: IdentifierRow[], trx: Knex = this.db): Promise<void> {
    if (rows.length === 0) return;
    const unique = [...new Map(rows.map((r) => [identifierKey(r), r])).values()];
    await trx.raw(
      `INSERT INTO asset_identifiers AS i (rule, value, asset_id, asset_category, updated_at)
       SELECT rule, value, asset_id, asset_category, now() FROM unnest(?::text[], ?::text[], ?::uuid[], ?::text[]) AS u(rule, value, asset_id, asset_category)
       ON CONFLICT (rule, value) DO UPDATE SET asset_id = EXCLUDED.asset_id, asset_category = EXCLUDED.asset_category, updated_at = now()`,
      [unique.map((r) => r.rule), unique.map((r) => r.value), unique.map((r) => r.assetId), unique.map((r) => r.category)],
    );
  }
}
