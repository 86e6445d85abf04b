// The flows' own graph statements (cypher/flows/): the assets of a site, for the `site` filter, the
// flow evidence on COMMUNICATES_WITH edges, and its retirement when flows no longer show them.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';

export interface CommunicationEvidence {
  source: string;
  target: string;
  bytes: number;
  packets: number;
  flows: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

export class FlowGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('flows/find-site-asset-ids', 'flows/set-communication-evidence', 'flows/retire-communications');
  }

  async siteAssetIds(site: string, limit: number): Promise<string[]> {
    const rows = await this.graph.read<{ id: string }>('flows/find-site-asset-ids', { site, limit: int(limit) });
    return rows.map((r) => r.id);
  }

  async setCommunicationEvidence(rows: CommunicationEvidence[], window: { from: string; to: string }): Promise<void> {
    if (rows.length === 0) return;
    const bound = rows.map((r) => ({ ...r, bytes: int(r.bytes), packets: int(r.packets), flows: int(r.flows) }));
    await this.graph.write('flows/set-communication-evidence', { rows: bound, ...window });
  }

  /**
   * Releases the `source` claim of at most `limit` COMMUNICATES_WITH edges whose flows were last
   * seen before `before` (retiring those no other source reports); returns how many it released.
   */
  async retireCommunications(source: string, before: string, limit: number): Promise<number> {
    const rows = await this.graph.write<{ released: number }>('flows/retire-communications', { source, before, limit: int(limit) });
    return Number(rows[0]?.released ?? 0);
  }
}
