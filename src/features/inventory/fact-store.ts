// The facts of assets per source (migration create_asset_facts; the rules are in asset-facts.ts).
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Fact } from './asset-facts.js';

export interface FactWrite {
  assetId: string;
  field: string;
  source: string;
  value: unknown;
  owned: boolean;
}

const CHUNK = 5000;

export class FactStore {
  constructor(private readonly db: Database) {}

  /**
   * Records what the sources reported at `observedAt` (a value replaces the same source's earlier
   * one, never a later one), then returns every fact of these assets, of all sources.
   */
  async record(writes: FactWrite[], assetIds: string[], observedAt: Date, trx: Knex = this.db): Promise<Map<string, Fact[]>> {
    // Two entries of one asset in a bundle: the later one's value stands.
    const unique = [...new Map(writes.map((w) => [`${w.assetId}\u0000${w.field}\u0000${w.source}`, w])).values()];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const chunk = unique.slice(i, i + CHUNK);
      await trx.raw(
        `INSERT INTO asset_facts AS f (asset_id, field, source, value, owned, observed_at)
         SELECT asset_id, field, source, value, owned, :at FROM unnest(:ids::uuid[], :fields::text[], :sources::text[], :values::jsonb[], :owned::boolean[])
                AS w(asset_id, field, source, value, owned)
         ON CONFLICT (asset_id, field, source) DO UPDATE SET value = EXCLUDED.value, owned = EXCLUDED.owned, observed_at = EXCLUDED.observed_at
         WHERE f.observed_at <= EXCLUDED.observed_at`,
        {
          at: observedAt, ids: chunk.map((w) => w.assetId), fields: chunk.map((w) => w.field), sources: chunk.map((w) => w.source),
          values: chunk.map((w) => JSON.stringify(w.value)), owned: chunk.map((w) => w.owned),
        },
      );
    }
    return this.of(assetIds, trx);
  }

  /** Every fact of these assets, of all sources. */
  async of(assetIds: string[], trx: Knex = this.db): Promise<Map<string, Fact[]>> {
    const facts = new Map<string, Fact[]>();
    if (assetIds.length === 0) return facts;
    const { rows } = await trx.raw(
      `SELECT asset_id AS "assetId", field, source, value, owned, observed_at AS "observedAt" FROM asset_facts WHERE asset_id = ANY(?::uuid[])`,
      [assetIds],
    );
    for (const { assetId, ...fact } of rows as (Fact & { assetId: string })[]) facts.set(assetId, [...(facts.get(assetId) ?? []), fact]);
    return facts;
  }

  /**
   * Drops facts no source has reported since `cutoff`, a batch at a time; answers the assets that
   * lost some (their values must be resolved again), or none when nothing was old.
   */
  async dropOlder(cutoff: Date, batch: number): Promise<string[]> {
    const { rows } = await this.db.raw(
      `DELETE FROM asset_facts WHERE ctid IN (SELECT ctid FROM asset_facts WHERE observed_at < ? LIMIT ?) RETURNING asset_id AS "assetId"`,
      [cutoff, batch],
    );
    return [...new Set((rows as { assetId: string }[]).map((r) => r.assetId))];
  }
}
