// Reads of the change feed: the assets and relationships changed after a point, in change order.
// Every statement that changes an asset or a relationship stamps it with the next change number
// (cypher/changes/_next-seq.cypher), so that the graph itself is the feed.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { toAssetNode, type AssetNode } from '../assets/asset-summary.js';
import { RELATIONSHIP_TYPES } from '../inventory/relationship-types.js';
import { toRelationshipRow, type RelationshipRow } from '../relationships/relationship-row.js';
import type { ChangeRetention } from './change-retention.js';

export interface Changed<T> {
  seq: number;
  kind: string;
  item: T;
}

export class ChangeGraphRepository implements ChangeRetention {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('changes/find-changed-assets', 'changes/find-changed-relationships-of-type', 'changes/find-change-horizon', 'changes/purge-retired-relationships');
  }

  async assets(after: number, limit: number): Promise<Changed<AssetNode>[]> {
    const rows = await this.graph.read<{ asset: unknown[]; seq: number; kind: string }>('changes/find-changed-assets', { after: int(after), limit: int(limit) });
    return rows.map((r) => ({ seq: r.seq, kind: r.kind, item: toAssetNode(r.asset) }));
  }

  /** The relationships changed after `after`: the first `limit` of each type (the caller merges them). */
  async relationships(after: number, limit: number): Promise<Changed<RelationshipRow>[]> {
    const perType = await Promise.all(RELATIONSHIP_TYPES.map((type) =>
      this.graph.read<{ row: Parameters<typeof toRelationshipRow>[0]; seq: number; kind: string }>('changes/find-changed-relationships-of-type', { after: int(after), limit: int(limit) }, { type })));
    return perType.flat().map((r) => ({ seq: r.seq, kind: r.kind, item: toRelationshipRow(r.row) }));
  }

  /** The change number the counter is at, and the last one purged. */
  async horizon(): Promise<{ head: number; purgedThrough: number }> {
    const [row] = await this.graph.read<{ head: number; purgedThrough: number }>('changes/find-change-horizon');
    return row ?? { head: 0, purgedThrough: 0 };
  }

  /** Deletes retired relationships retired before `cutoff`, `batch` at a time; answers how many. */
  async purgeRetired(cutoff: string, batch: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const [row] = await this.graph.write<{ removed: number }>('changes/purge-retired-relationships', { cutoff, batch: int(batch) });
      removed += row?.removed ?? 0;
      if ((row?.removed ?? 0) < batch) return removed;
    }
  }
}
