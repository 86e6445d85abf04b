// The retention sweep (spec 8): packages and services not observed for
// service.retention.sub-asset-days are removed, and so are the sub-records of assets that no
// longer exist in the graph. Deletes run in bounded batches.
import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { Database } from '../../platform/postgres/postgres-client.js';

export interface RetentionSummary {
  packagesRemoved: number;
  servicesRemoved: number;
  orphanRowsRemoved: number;
}

const BATCH = 10_000;
const SUB_RECORD_TABLES = ['software_packages', 'discovered_services', 'running_processes', 'network_interfaces'] as const;

export class RetentionSweep {
  constructor(
    private readonly db: Database,
    private readonly graph: NeoGraph,
    private readonly days: number,
  ) {
    graph.catalog.require('assets/find-existing-asset-ids');
  }

  async run(now = new Date()): Promise<RetentionSummary> {
    const cutoff = new Date(now.getTime() - this.days * 86_400_000);
    return {
      packagesRemoved: await this.deleteOlder('software_packages', cutoff),
      servicesRemoved: await this.deleteOlder('discovered_services', cutoff),
      orphanRowsRemoved: await this.deleteOrphans(),
    };
  }

  private async deleteOlder(table: 'software_packages' | 'discovered_services', cutoff: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await this.db(table).whereIn('id', this.db(table).select('id').where('last_seen_at', '<', cutoff).limit(BATCH)).delete();
      removed += n;
      if (n < BATCH) return removed;
    }
  }

  /** Sub-records whose asset is gone from the graph, asset by asset in batches. */
  private async deleteOrphans(): Promise<number> {
    const assetIds = new Set<string>();
    for (const table of SUB_RECORD_TABLES) for (const id of await this.db(table).distinct('asset_id').pluck('asset_id')) assetIds.add(id);
    const all = [...assetIds];
    let removed = 0;
    for (let i = 0; i < all.length; i += BATCH) {
      const batch = all.slice(i, i + BATCH);
      const existing = new Set((await this.graph.read<{ id: string }>('assets/find-existing-asset-ids', { ids: batch })).map((r) => r.id));
      const gone = batch.filter((id) => !existing.has(id));
      if (gone.length === 0) continue;
      for (const table of SUB_RECORD_TABLES) removed += await this.db(table).whereIn('asset_id', gone).delete();
    }
    return removed;
  }
}
