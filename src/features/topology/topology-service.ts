// The graph around one asset, up to `depth` hops, walked hop by hop (one query per hop) over
// active edges, stopping at NODE_CAP nodes (then `truncated` is true).
import { NotFoundError } from '../../platform/errors.js';
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { AssetGraphRepository, AssetSummary } from '../assets/asset-graph-repository.js';

export const NODE_CAP = 500;
// Rows one hop may read: enough for the cap even where one node has many edges to known nodes.
const HOP_ROW_LIMIT = NODE_CAP * 20;

export interface TopologyNode extends AssetSummary {
  depth: number;
}

export interface TopologyEdge {
  id: string;
  type: string;
  source: string;
  target: string;
}

export interface Topology {
  root: TopologyNode;
  nodes: TopologyNode[];
  edges: TopologyEdge[];
  truncated: boolean;
  nodeCap: number;
}

interface HopRow {
  id: string;
  type: string;
  source: string;
  target: string;
  node: AssetSummary;
}

export class TopologyService {
  constructor(
    private readonly graph: NeoGraph,
    private readonly assets: AssetGraphRepository,
  ) {
    graph.catalog.require('topology/expand-neighbors');
  }

  async neighbors(assetId: string, depth: number): Promise<Topology> {
    const [rootSummary] = await this.assets.summaries([assetId]);
    if (!rootSummary) throw new NotFoundError(`No asset with id ${assetId}.`);
    const root: TopologyNode = { ...rootSummary, depth: 0 };
    const nodes = new Map<string, TopologyNode>([[root.id, root]]);
    const edges = new Map<string, TopologyEdge>();
    let frontier = [root.id];
    let truncated = false;
    for (let hop = 1; hop <= depth && frontier.length > 0 && !truncated; hop++) {
      const rows = await this.graph.read<HopRow & Record<string, unknown>>('topology/expand-neighbors', { frontier, limit: int(HOP_ROW_LIMIT) });
      if (rows.length === HOP_ROW_LIMIT) truncated = true;
      const next: string[] = [];
      for (const row of rows) {
        if (!nodes.has(row.node.id)) {
          if (nodes.size >= NODE_CAP) {
            truncated = true;
            continue;
          }
          nodes.set(row.node.id, { ...row.node, depth: hop });
          next.push(row.node.id);
        }
        edges.set(row.id, { id: row.id, type: row.type, source: row.source, target: row.target });
      }
      frontier = next;
    }
    return { root, nodes: [...nodes.values()], edges: [...edges.values()], truncated, nodeCap: NODE_CAP };
  }
}
