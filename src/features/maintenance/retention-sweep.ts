// The retention sweep (settings service.retention.*): the sub-records of the kinds that declare a
// retention (packages, services) not observed for service.retention.sub-asset-days are removed,
// and so are the sub-records of assets that no longer exist in the graph; retired relationships go
// after service.retention.retired-days, or service.history.retention-days where that is longer (the
// history of their ends needs them); history older than service.history.retention-days goes; the copy of asset names in PostgreSQL is reconciled with
// the graph (an installation upgraded from before the copy existed gets it at its first start);
// the rows of assets an import never wrote to the graph go once no import can still be writing
// them. Deletes run in bounded batches.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { RowCounts } from '../../platform/postgres/row-counts.js';
import type { ChangeRetention } from '../changes/change-retention.js';
import type { HistoryRetention } from '../history/history-retention.js';
import type { AssetName, AssetNameIndex } from '../inventory/asset-name.js';
import type { UnwrittenAssetSweep } from '../inventory/unwritten-asset-sweep.js';
import { SUB_RECORD_KINDS } from '../inventory/sub-record-kinds.js';

/** Per kind with a retention, the rows it removed (packagesRemoved, servicesRemoved); then the others. */
export interface RetentionSummary {
  [removedKey: string]: number;
  orphanRowsRemoved: number;
  assetNamesRemoved: number;
  unwrittenAssetsRemoved: number;
  retiredRelationshipsPurged: number;
  historyEntriesRemoved: number;
}

const BATCH = 10_000;
const MAX_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
// A name or identity row written this recently may belong to an import whose graph write is still to come.
const IN_FLIGHT_MS = 10 * 60_000;
const SUB_RECORD_TABLES = SUB_RECORD_KINDS.map((k) => k.table);

export class RetentionSweep {
  constructor(
    private readonly db: Database,
    private readonly graph: NeoGraph,
    private readonly rowCounts: RowCounts,
    private readonly names: AssetNameIndex,
    private readonly changes: ChangeRetention,
    private readonly unwritten: UnwrittenAssetSweep,
    private readonly history: HistoryRetention,
    private readonly days: { subAssetDays: number; retiredDays: number; historyDays: number },
    private readonly batch = BATCH,
  ) {
    graph.catalog.require('assets/find-existing-asset-ids', 'assets/find-asset-names-after');
  }

  async run(now = new Date()): Promise<RetentionSummary> {
    const cutoff = new Date(now.getTime() - this.days.subAssetDays * 86_400_000);
    const removed: Record<string, number> = {};
    for (const { table, lastSeen, retention } of SUB_RECORD_KINDS) if (retention) removed[retention.removedKey] = await this.deleteOlder(table, lastSeen, cutoff);
    return {
      ...removed,
      orphanRowsRemoved: await this.deleteOrphans(),
      assetNamesRemoved: await this.reconcileNames(now),
      unwrittenAssetsRemoved: await this.unwritten.run(new Date(now.getTime() - IN_FLIGHT_MS)),
      retiredRelationshipsPurged: await this.changes.purgeRetired(new Date(now.getTime() - Math.max(this.days.retiredDays, this.days.historyDays) * 86_400_000).toISOString(), BATCH),
      historyEntriesRemoved: await this.history.removeOlder(new Date(now.getTime() - this.days.historyDays * 86_400_000), BATCH),
    };
  }

  /** Makes the copy of asset names equal to the graph, page by page in id order. */
  private async reconcileNames(now: Date): Promise<number> {
    const before = new Date(now.getTime() - IN_FLIGHT_MS);
    let removed = 0;
    let after: string | null = null;
    for (;;) {
      const page: AssetName[] = await this.graph.read<AssetName & Record<string, unknown>>('assets/find-asset-names-after', { afterId: after ?? '', limit: int(this.batch) });
      await this.names.upsert(page.map((n) => ({ ...n, displayName: n.displayName ?? n.assetId })), { exact: true });
      const last: string = page.length === this.batch ? (page.at(-1) as AssetName).assetId : MAX_ID;
      // The page covers the ids after the previous page's last one (which that page holds) up to its own last.
      removed += await this.names.deleteMissing(page.map((n) => n.assetId), { after, through: last }, before);
      if (last === MAX_ID) return removed;
      after = last;
    }
  }

  private async deleteOlder(table: string, lastSeen: string, cutoff: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await this.db(table).whereIn('id', this.db(table).select('id').where(lastSeen, '<', cutoff).limit(BATCH)).delete();
      removed += n;
      if (n < BATCH) return removed;
    }
  }

  /** Sub-records whose asset is gone from the graph, asset by asset in batches (the assets holding rows from the counts by asset). */
  private async deleteOrphans(): Promise<number> {
    const assetIds = new Set<string>();
    for (const table of SUB_RECORD_TABLES) for (const id of (await this.rowCounts.groups(table)).keys()) assetIds.add(id);
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
