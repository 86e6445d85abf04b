import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Category } from '../assets/asset-taxonomy.js';
import { identifierKey, type Identifier, type KnownIdentifier } from './asset-identity.js';

export interface IdentifierRow extends Identifier {
  assetId: string;
  category: Category;
}

export class IdentityStore {
  constructor(private readonly db: Database) {}

  /** The assets that hold any of the identifiers, in one query. */
  async lookup(ids: Identifier[]): Promise<Map<string, KnownIdentifier>> {
    const found = new Map<string, KnownIdentifier>();
    if (ids.length === 0) return found;
    const rows = await this.db('asset_identifiers')
      .select('rule', 'value', 'asset_id as assetId', 'asset_category as category')
      .whereIn(['rule', 'value'], ids.map((i) => [i.rule, i.value]));
    for (const r of rows) found.set(identifierKey(r), { assetId: r.assetId, category: r.category });
    return found;
  }

  /** Records who holds each identifier now (the latest observation wins). */
  async upsert(rows: IdentifierRow[]): Promise<void> {
    if (rows.length === 0) return;
    const unique = new Map(rows.map((r) => [identifierKey(r), r]));
    await this.db('asset_identifiers')
      .insert([...unique.values()].map((r) => ({ rule: r.rule, value: r.value, asset_id: r.assetId, asset_category: r.category, updated_at: this.db.fn.now() })))
      .onConflict(['rule', 'value'])
      .merge(['asset_id', 'asset_category', 'updated_at']);
  }
}
