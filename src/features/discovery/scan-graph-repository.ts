// The graph write that is discovery's own: each targeted asset's scan outcome (the rest of a run's
// writes go through the inventory writer).
import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';

export type ScanOutcome = 'SUCCESS' | 'FAILED' | 'PARTIAL';

export class ScanGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('discovery/set-scan-outcomes');
  }

  async setOutcomes(rows: { id: string; outcome: ScanOutcome }[], at: string): Promise<void> {
    if (rows.length) await this.graph.write('discovery/set-scan-outcomes', { rows, at });
  }
}
