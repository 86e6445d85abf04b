// The graph around one asset, up to `depth` hops over active relationships, at most `nodeLimit`
// assets (then `truncated` is true), with the port-to-port links (interface connections, spec
// 2.12) between the assets it holds. A synthesized row (package, process, service, interface) is
// answered too: it, its host, and the host's neighbourhood. By default the walk is one Cypher statement; when interface
// links are followed as hops too, it goes hop by hop, asking both stores at each hop, because the
// links live in PostgreSQL.
import { NotFoundError } from '../../platform/errors.js';
import { parentLinkOf, type AssetReadModel } from '../assets/asset-read-model.js';
import type { AssetReads } from '../assets/asset-summary.js';
import type { InterfaceLink, InterfaceLinkStore } from './interface-link-store.js';
import type { TopologyEdge, TopologyGraphRepository, TopologyNode } from './topology-graph-repository.js';

export const DEFAULT_NODE_LIMIT = 500;
export const MAX_NODE_LIMIT = 5000;
// Rows one hop or one link query may read: enough for the cap even where one node has many edges to known nodes.
const ROWS_PER_NODE = 20;

export interface TopologyRequest {
  depth: number;
  followInterfaceLinks: boolean;
  nodeLimit: number;
}

export interface Topology {
  root: TopologyNode;
  nodes: TopologyNode[];
  edges: TopologyEdge[];
  interfaceLinks: InterfaceLink[];
  truncated: boolean;
  nodeCap: number;
}

export class TopologyService {
  constructor(
    private readonly graph: TopologyGraphRepository,
    private readonly assets: AssetReads,
    private readonly rows: AssetReadModel,
    private readonly links: InterfaceLinkStore,
  ) {}

  async neighbors(assetId: string, request: TopologyRequest): Promise<Topology> {
    const topology = (await this.ofAsset(assetId, request)) ?? (await this.ofSynthesized(assetId, request));
    if (!topology) throw new NotFoundError(`No asset with id ${assetId}.`);
    return topology;
  }

  private ofAsset(assetId: string, request: TopologyRequest): Promise<Topology | undefined> {
    return request.followInterfaceLinks ? this.walkWithLinks(assetId, request) : this.walk(assetId, request);
  }

  /**
   * A package, process, service or interface: the row itself, its host one hop away (by the link
   * its parent block names), and the host's neighbourhood one hop less deep.
   */
  private async ofSynthesized(id: string, request: TopologyRequest): Promise<Topology | undefined> {
    const row = await this.rows.synthesizedRow(id);
    const link = row && parentLinkOf(row);
    if (!row?.parent || !link) return undefined;
    const root: TopologyNode = { id: row.id, displayName: row.displayName, assetType: row.assetType, assetCategory: row.assetCategory, status: 'ACTIVE', depth: 0 };
    const edge: TopologyEdge = link;
    if (request.nodeLimit === 1) return { root, nodes: [root], edges: [], interfaceLinks: [], truncated: true, nodeCap: 1 };
    const host = request.depth > 1
      ? await this.ofAsset(row.parent.id, { ...request, depth: request.depth - 1, nodeLimit: request.nodeLimit - 1 })
      : undefined;
    const nodes = host ? host.nodes : (await this.assets.summaries([row.parent.id])).map((h) => ({ ...h, depth: 0 }));
    return {
      root,
      nodes: [root, ...nodes.map((n) => ({ ...n, depth: n.depth + 1 }))],
      edges: [edge, ...(host?.edges ?? [])],
      interfaceLinks: host?.interfaceLinks ?? [],
      truncated: host?.truncated ?? false,
      nodeCap: request.nodeLimit,
    };
  }

  private async walk(assetId: string, { depth, nodeLimit }: TopologyRequest): Promise<Topology | undefined> {
    const walk = await this.graph.walk(assetId, depth, nodeLimit - 1);
    if (!walk) return undefined;
    const nodes = [walk.root, ...walk.nodes];
    const interfaceLinks = await this.links.among(nodes.map((n) => n.id), nodeLimit * ROWS_PER_NODE);
    return { root: walk.root, nodes, edges: walk.edges, interfaceLinks, truncated: walk.truncated, nodeCap: nodeLimit };
  }

  private async walkWithLinks(assetId: string, { depth, nodeLimit }: TopologyRequest): Promise<Topology | undefined> {
    const [rootSummary] = await this.assets.summaries([assetId]);
    if (!rootSummary) return undefined;
    const root: TopologyNode = { ...rootSummary, depth: 0 };
    const nodes = new Map<string, TopologyNode>([[root.id, root]]);
    const edges = new Map<string, TopologyEdge>();
    const links = new Map<string, InterfaceLink>();
    const rowLimit = nodeLimit * ROWS_PER_NODE;
    let truncated = false;
    let frontier = [root.id];
    const reach = (node: Omit<TopologyNode, 'depth'>, hop: number, next: string[]) => {
      if (nodes.has(node.id)) return;
      if (nodes.size >= nodeLimit) {
        truncated = true;
        return;
      }
      nodes.set(node.id, { ...node, depth: hop });
      next.push(node.id);
    };
    for (let hop = 1; hop <= depth && frontier.length > 0 && !truncated; hop++) {
      const [hopRows, hopLinks] = await Promise.all([this.graph.expand(frontier, rowLimit), this.links.touching(frontier, rowLimit)]);
      if (hopRows.length === rowLimit || hopLinks.length === rowLimit) truncated = true;
      const next: string[] = [];
      for (const { edge, node } of hopRows) {
        reach(node, hop, next);
        edges.set(edge.id, edge);
      }
      const cabled = new Set(hopLinks.flatMap((l) => [l.sourceAssetId, l.targetAssetId]).filter((id) => !nodes.has(id)));
      for (const node of await this.assets.summaries([...cabled].sort())) reach(node, hop, next);
      for (const link of hopLinks) links.set(link.id, link);
      frontier = next;
    }
    // Only what joins two assets of the answer: the cap may have left an edge's far end out.
    const within = (a: string, b: string) => nodes.has(a) && nodes.has(b);
    return {
      root,
      nodes: [...nodes.values()],
      edges: [...edges.values()].filter((e) => within(e.source, e.target)),
      interfaceLinks: [...links.values()].filter((l) => within(l.sourceAssetId, l.targetAssetId)),
      truncated,
      nodeCap: nodeLimit,
    };
  }
}
