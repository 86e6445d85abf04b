// Reads of the graph around one asset (the topology explorer).
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { AssetSummary } from '../assets/asset-summary.js';
import { ACTIVE_AT, ACTIVE_NOW, statusAt } from '../inventory/status-log.js';

export interface TopologyNode extends AssetSummary {
  depth: number;
}

export interface TopologyEdge {
  id: string;
  type: string;
  source: string;
  target: string;
}

export interface GraphWalk {
  root: TopologyNode;
  nodes: TopologyNode[];
  edges: TopologyEdge[];
  truncated: boolean;
}

export interface HopRow {
  edge: TopologyEdge;
  node: AssetSummary;
}

export const MAX_DEPTH = 5;

/** The fragments of topology/walk-neighbors: its hop bound, and the edge test and statuses of now, or of `at` (epoch milliseconds). */
export function walkFragments(depth: number, at?: number): Record<string, string> {
  return at === undefined
    ? { depth: String(depth), active: ACTIVE_NOW, nodeStatus: 'b.status', rootStatus: 'root.status' }
    : { depth: String(depth), active: ACTIVE_AT, nodeStatus: statusAt('b'), rootStatus: statusAt('root') };
}

export class TopologyGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('topology/walk-neighbors', 'topology/expand-neighbors');
  }

  /**
   * The walk of `depth` hops from the root in one statement over the edges active now, or at `at`
   * (epoch milliseconds: each asset with the status it had then, null for one that did not exist
   * yet), at most `cap` assets besides the root; undefined for an unknown root.
   */
  async walk(rootId: string, depth: number, cap: number, at?: number): Promise<GraphWalk | undefined> {
    // The depth becomes Cypher text: only a validated integer may.
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) throw new RangeError(`depth must be 1 to ${MAX_DEPTH}`);
    const [row] = await this.graph.read<GraphWalk & Record<string, unknown>>('topology/walk-neighbors', { id: rootId, cap: int(cap), ...(at === undefined ? {} : { at: int(at) }) }, walkFragments(depth, at));
    return row;
  }

  /** One hop: the active edges of the frontier and the assets at their other ends, at most `limit` rows. */
  async expand(frontier: string[], limit: number): Promise<HopRow[]> {
    const rows = await this.graph.read<{ id: string; type: string; source: string; target: string; node: AssetSummary }>('topology/expand-neighbors', { frontier, limit: int(limit) });
    return rows.map(({ node, ...edge }) => ({ edge, node }));
  }
}
