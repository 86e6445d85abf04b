import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { RelationshipType } from '../inventory/relationship-types.js';

export type ScanOutcome = 'SUCCESS' | 'FAILED' | 'PARTIAL';

export class ScanGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('discovery/set-scan-outcomes', 'discovery/touch-assets', 'discovery/retire-communications', 'discovery/retire-scope-assets', 'discovery/retire-scope-relationships');
  }

  async touch(ids: string[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('discovery/touch-assets', { ids, source, observedAt });
  }

  async setOutcomes(rows: { id: string; outcome: ScanOutcome }[], at: string): Promise<void> {
    if (rows.length) await this.graph.write('discovery/set-scan-outcomes', { rows, at });
  }

  async retireCommunications(ids: string[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('discovery/retire-communications', { ids, source, observedAt });
  }

  /** Assets a scope read in full no longer showed: INACTIVE. */
  async retireAssets(ids: string[], observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('discovery/retire-scope-assets', { ids, observedAt });
  }

  /** Edges of these types at these assets that this source did not see again. */
  async retireRelationships(ids: string[], types: RelationshipType[], source: string, observedAt: string): Promise<void> {
    if (ids.length) await this.graph.write('discovery/retire-scope-relationships', { ids, types, source, observedAt });
  }
}
