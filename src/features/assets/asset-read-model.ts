// Asset rows as the API shows them (spec 2.2): node properties with labels and the derived
// parent block (2.4), resolved for a whole page with two queries (edges, then parent assets).
import { toIso } from '../../platform/neo4j/neo4j-graph.js';
import type { AssetFilter, AssetGraphRepository, AssetNode, AssetSortField } from './asset-graph-repository.js';
import { CATEGORIES, categoryOf, isVirtual, typeLabel, type AssetType } from './asset-taxonomy.js';

export interface ParentReference {
  id: string;
  displayName: string;
  assetType: string;
  assetCategory: string;
  via: string;
}

export type AssetRow = Record<string, unknown> & { id: string; parent?: ParentReference };

const TIMESTAMPS = ['lastScanAt', 'staleSince', 'firstSeenAt', 'lastSeenAt', 'decommissionedAt'] as const;

export function toAssetRow(node: AssetNode): AssetRow {
  const type = node.assetType;
  const category = categoryOf(type);
  const iso = Object.fromEntries(TIMESTAMPS.map((k) => [k, toIso(node[k])]));
  return {
    id: node.id,
    displayName: node.displayName,
    assetType: type,
    assetCategory: category,
    assetCategoryLabel: CATEGORIES[category].label,
    assetSubtype: type,
    assetSubtypeLabel: typeLabel(type),
    virtual: isVirtual(type),
    status: node.status,
    vendor: node.vendor ?? null,
    model: node.model ?? null,
    customAttributes: (node.customAttributes as string | undefined) ?? '{}',
    consecutiveScanFailures: (node.consecutiveScanFailures as number | undefined) ?? 0,
    lastScanOutcome: node.lastScanOutcome ?? null,
    lastScanAt: iso.lastScanAt,
    hostname: node.hostname ?? null,
    fqdn: node.fqdn ?? null,
    site: node.site ?? null,
    environment: node.environment ?? null,
    serialNumber: node.serialNumber ?? null,
    macAddresses: node.macAddresses ?? [],
    ipAddresses: node.ipAddresses ?? [],
    staleSince: iso.staleSince,
    decommissionedAt: iso.decommissionedAt,
    firstSeenAt: iso.firstSeenAt,
    lastSeenAt: iso.lastSeenAt,
    sources: node.sources ?? [],
  };
}

export class AssetReadModel {
  constructor(private readonly assets: AssetGraphRepository) {}

  /** Adds the parent block to rows that have a parent (omitted entirely otherwise). */
  async withParents(nodes: AssetNode[]): Promise<AssetRow[]> {
    const edges = await this.assets.parentEdges(nodes.map((n) => ({ id: n.id, assetType: n.assetType as AssetType })));
    const found = edges.filter((e) => e.parentId);
    const parents = new Map((await this.assets.summaries([...new Set(found.map((e) => e.parentId as string))])).map((p) => [p.id, p]));
    const byChild = new Map(found.map((e) => [e.id, e]));
    return nodes.map((node) => {
      const row = toAssetRow(node);
      const edge = byChild.get(node.id);
      const parent = edge && parents.get(edge.parentId as string);
      if (parent && edge) row.parent = { id: parent.id, displayName: parent.displayName, assetType: parent.assetType, assetCategory: parent.assetCategory, via: edge.via as string };
      return row;
    });
  }

  async page(filter: AssetFilter, sort: { field: AssetSortField; direction: 'asc' | 'desc' }, page: number, size: number): Promise<{ rows: AssetRow[]; total: number }> {
    const [nodes, total] = await Promise.all([this.assets.find(filter, sort, page * size, size), this.assets.count(filter)]);
    return { rows: await this.withParents(nodes), total };
  }

  async get(id: string): Promise<AssetRow | undefined> {
    const node = await this.assets.get(id);
    return node ? (await this.withParents([node]))[0] : undefined;
  }
}
