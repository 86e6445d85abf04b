import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Category } from '../assets/asset-taxonomy.js';
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

  /** Records who holds each identifier now (the latest observation wins). */
  async upsert(rows: IdentifierRow[]): Promise<void> {
    if (rows.length === 0) return;
    const unique = [...new Map(rows.map((r) => [identifierKey(r), r])).values()];
    await this.db.raw(
      `INSERT INTO asset_identifiers AS i (rule, value, asset_id, asset_category, updated_at)
       SELECT rule, value, asset_id, asset_category, now() FROM unnest(?::text[], ?::text[], ?::uuid[], ?::text[]) AS u(rule, value, asset_id, asset_category)
       ON CONFLICT (rule, value) DO UPDATE SET asset_id = EXCLUDED.asset_id, asset_category = EXCLUDED.asset_category, updated_at = now()`,
      [unique.map((r) => r.rule), unique.map((r) => r.value), unique.map((r) => r.assetId), unique.map((r) => r.category)],
    );
  }
}
