// The graph around one asset, up to `depth` hops over active relationships, at most `nodeLimit`
// assets (then `truncated` is true), with the port-to-port links (interface connections, spec
// 2.12) between the assets it holds. A synthesized row (package, process, service, interface) is
// answered too: it, its host, and the host's neighbourhood. By default the walk is one Cypher statement; when interface
// links are followed as hops too, it goes hop by hop, asking both stores at each hop, because the
// links live in PostgreSQL.
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import type { components } from '../../platform/http/api-types.js';
import { parentLinkOf, type AssetReadModel } from '../assets/asset-read-model.js';
import type { AssetReads } from '../assets/asset-summary.js';
import { changedFields, type PastAssets } from '../history/past-assets.js';
import type { InterfaceLink, InterfaceLinkStore } from './interface-link-store.js';
import type { GraphWalk, TopologyEdge, TopologyGraphRepository, TopologyNode } from './topology-graph-repository.js';

export const DEFAULT_NODE_LIMIT = 500;
export const MAX_NODE_LIMIT = 5000;
// Rows one hop or one link query may read: enough for the cap even where one node has many edges to known nodes.
const ROWS_PER_NODE = 20;

export interface TopologyRequest {
  depth: number;
  followInterfaceLinks: boolean;
  nodeLimit: number;
  /** As it was then (history), instead of now. */
  at?: Date;
}

export type TopologyChanges = components['schemas']['TopologyChanges'];

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
    private readonly past: PastAssets,
  ) {}

  async neighbors(assetId: string, request: TopologyRequest): Promise<Topology> {
    if (request.at) {
      if (request.followInterfaceLinks) throw new BadRequestError('Port-to-port links are not kept in history: ask for a past time without followInterfaceLinks.', [{ path: 'query.followInterfaceLinks', message: 'not with at' }]);
      await this.past.requireKept(request.at);
    }
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
    const row = request.at ? await this.rows.getAt(id, request.at) : await this.rows.synthesizedRow(id);
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

  /**
   * What appeared, disappeared or changed (naming its fields) in the neighbourhood between two
   * times: the walks at both, compared asset by asset and edge by edge.
   */
  async changes(assetId: string, { depth, nodeLimit, from, to }: { depth: number; nodeLimit: number; from: Date; to: Date }): Promise<TopologyChanges> {
    if (from >= to) throw new BadRequestError('from must be before to.', [{ path: 'query.from', message: 'not before to' }]);
    const at = (time: Date) => this.neighbors(assetId, { depth, nodeLimit, followInterfaceLinks: false, at: time })
      .catch((error: unknown) => { if (error instanceof NotFoundError) return undefined; throw error; });
    const [before, after] = await Promise.all([at(from), at(to)]);
    if (!before && !after) throw new NotFoundError(`No asset with id ${assetId} at ${from.toISOString()} or ${to.toISOString()}.`);
    const was = new Map((before?.nodes ?? []).map((n) => [n.id, n]));
    const is = new Map((after?.nodes ?? []).map((n) => [n.id, n]));
    const common = [...is.keys()].filter((id) => was.has(id));
    const [then, now] = await Promise.all([this.past.assetsAt(common, from), this.past.assetsAt(common, to)]);
    const entry = (n: TopologyNode, change: TopologyChanges['assets'][number]['change'], fields: string[] = []) => ({
      id: n.id, displayName: n.displayName, assetType: n.assetType, assetCategory: n.assetCategory, change, changedFields: fields,
    });
    const edgesWere = new Map((before?.edges ?? []).map((e) => [e.id, e]));
    const edgesAre = new Map((after?.edges ?? []).map((e) => [e.id, e]));
    return {
      root: assetId, from: from.toISOString(), to: to.toISOString(), depth,
      assets: [
        ...[...is.values()].filter((n) => !was.has(n.id)).map((n) => entry(n, 'APPEARED')),
        ...[...was.values()].filter((n) => !is.has(n.id)).map((n) => entry(n, 'DISAPPEARED')),
        ...common.flatMap((id) => {
          const [a, b] = [then.get(id), now.get(id)];
          const fields = a && b ? changedFields(a, b) : [];
          return fields.length ? [entry(is.get(id) as TopologyNode, 'CHANGED', fields)] : [];
        }),
      ],
      edges: [
        ...[...edgesAre.values()].filter((e) => !edgesWere.has(e.id)).map((e) => ({ ...e, change: 'APPEARED' as const })),
        ...[...edgesWere.values()].filter((e) => !edgesAre.has(e.id)).map((e) => ({ ...e, change: 'DISAPPEARED' as const })),
      ],
      truncated: (before?.truncated ?? false) || (after?.truncated ?? false),
    };
  }

  /** A walk as it was at a time: its assets as they were then (name, type, status), no port-to-port links (history does not keep them). */
  private async walkAt(walk: GraphWalk, at: Date, nodeLimit: number): Promise<Topology> {
    const [root, ...nodes] = await this.rows.summariesAt([walk.root, ...walk.nodes], at, true);
    if (root?.id !== walk.root.id) throw new NotFoundError(`No asset with id ${walk.root.id} at ${at.toISOString()}.`);
    return { root, nodes: [root, ...nodes], edges: walk.edges, interfaceLinks: [], truncated: walk.truncated, nodeCap: nodeLimit };
  }

  private async walk(assetId: string, { depth, nodeLimit, at }: TopologyRequest): Promise<Topology | undefined> {
    const walk = await this.graph.walk(assetId, depth, nodeLimit - 1, at?.getTime());
    if (!walk) return undefined;
    if (at) return this.walkAt(walk, at, nodeLimit);
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
