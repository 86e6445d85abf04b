// The assets each connector scope (a vCenter, a libvirt host) showed at its latest read (migration
// table discovery_scope_members): what the writer needs to know which of them a complete read no
// longer shows.
import type { Database } from '../../platform/postgres/postgres-client.js';

export class ScopeMemberStore {
  constructor(private readonly db: Database) {}

  /**
   * The assets a scope reported in a read, stamped with its observation time. Two records of a read
   * may be one asset (they share a MAC or an instance id): it is one member, as one statement may not
   * upsert a row twice (PostgreSQL 21000).
   */
  async record(scope: string, assetIds: string[], observedAt: string): Promise<void> {
    const unique = [...new Set(assetIds)];
    for (let i = 0; i < unique.length; i += 1000) {
      await this.db('discovery_scope_members')
        .insert(unique.slice(i, i + 1000).map((id) => ({ scope, asset_id: id, last_seen_at: observedAt })))
        .onConflict(['scope', 'asset_id'])
        .merge(['last_seen_at']);
    }
  }

  /** The assets of a scope that the read at observedAt did not report. */
  unseen(scope: string, observedAt: string): Promise<string[]> {
    return this.db('discovery_scope_members').where({ scope }).where('last_seen_at', '<', observedAt).pluck('asset_id');
  }

  /** Takes retired assets off a scope. */
  async forget(scope: string, assetIds: string[]): Promise<void> {
    if (assetIds.length) await this.db('discovery_scope_members').where({ scope }).whereIn('asset_id', assetIds).delete();
  }
}
