// The graph steps of the inventory writer: MERGE assets and relationships by their natural keys, in
// UNWIND batches, each batch one managed transaction; stamp known assets a source saw again; and
// retire what a complete read of a scope no longer showed.
import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { RELATIONSHIP_TYPES, type RelationshipType } from './relationship-types.js';
import type { AssetProps, AssetWrite, RelationshipWrite } from './graph-writes.js';

// The branches of merge-relationships, one per type (the types are the taxonomy's, never request text).
const TYPED_MERGES = RELATIONSHIP_TYPES.map((type) => `WITH * WHERE row.type = '${type}' MERGE (s)-[r:${type}]->(t) ON CREATE SET r.createdSeq = seq, r.id = randomUUID(), r.firstSeenAt = observedAt, r.sources = [] RETURN r`).join('\n  UNION ALL\n  ');

export class LoadGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require(
      'assets/merge-assets', 'relationships/merge-relationships', 'assets/set-resolved-facts',
      'inventory/touch-assets', 'inventory/retire-communications', 'inventory/retire-scope-assets', 'inventory/retire-scope-relationships',
    );
  }

  async mergeAssets(rows: AssetWrite[], source: string, observedAt: string): Promise<void> {
    if (rows.length) await this.graph.write('assets/merge-assets', { rows, source, observedAt });
  }

  /** Values of existing assets after some of their facts went: `removed` fields are taken off. */
  async setResolved(rows: { id: string; props: AssetProps; removed: string[] }[]): Promise<void> {
    if (rows.length) await this.graph.write('assets/set-resolved-facts', { rows });
  }

  async mergeRelationships(rows: RelationshipWrite[], source: string, observedAt: string): Promise<number> {
    if (rows.length === 0) return 0;
    const [result] = await this.graph.write<{ merged: number }>('relationships/merge-relationships', { rows, source, observedAt }, { merges: TYPED_MERGES });
    return result?.merged ?? 0;
  }

  /** Known assets a source saw again without reading them: lastSeenAt and the source are stamped. */
  async touch(ids: string[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('inventory/touch-assets', { ids, source, observedAt });
  }

  /** The COMMUNICATES_WITH edges of these assets that this source did not see again. */
  async retireCommunications(ids: string[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('inventory/retire-communications', { ids, source, observedAt });
  }

  /** Assets a scope read in full no longer showed: INACTIVE (by this source, in their status log). */
  async retireAssets(ids: string[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('inventory/retire-scope-assets', { ids, source, observedAt });
  }

  /** Edges of these types at these assets that this source did not see again. */
  async retireRelationships(ids: string[], types: RelationshipType[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('inventory/retire-scope-relationships', { ids, types, source, observedAt });
  }
}
