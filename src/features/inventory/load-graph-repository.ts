// The graph load steps shared by import and discovery: MERGE assets and relationships by their
// natural keys, in UNWIND batches, each batch one managed transaction.
import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { RELATIONSHIP_TYPES } from './relationship-types.js';
import type { AssetWrite, RelationshipMerge, RelationshipWrite } from './graph-writes.js';

// The branches of merge-relationships, one per type (the types are the taxonomy's, never request text).
const TYPED_MERGES = RELATIONSHIP_TYPES.map((type) => `WITH * WHERE row.type = '${type}' MERGE (s)-[r:${type}]->(t) ON CREATE SET r.createdSeq = seq, r.id = randomUUID(), r.firstSeenAt = observedAt, r.sources = [] RETURN r`).join('\n  UNION ALL\n  ');

export class LoadGraphRepository implements RelationshipMerge {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('assets/merge-assets', 'relationships/merge-relationships', 'assets/set-resolved-facts');
  }

  async mergeAssets(rows: AssetWrite[], source: string, observedAt: string): Promise<void> {
    if (rows.length) await this.graph.write('assets/merge-assets', { rows, source, observedAt });
  }

  /** Values of existing assets after some of their facts went: `removed` fields are taken off. */
  async setResolved(rows: { id: string; props: Record<string, unknown>; removed: string[] }[]): Promise<void> {
    if (rows.length) await this.graph.write('assets/set-resolved-facts', { rows });
  }

  async mergeRelationships(rows: RelationshipWrite[], source: string, observedAt: string): Promise<number> {
    if (rows.length === 0) return 0;
    const [result] = await this.graph.write<{ merged: number }>('relationships/merge-relationships', { rows, source, observedAt }, { merges: TYPED_MERGES });
    return result?.merged ?? 0;
  }
}
