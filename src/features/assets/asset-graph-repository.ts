// Reads of assets in Neo4j and their lifecycle writes.
import { conjunction, int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { parentRule, type AssetType } from './asset-taxonomy.js';

export type AssetNode = Record<string, unknown> & { id: string; assetType: AssetType; displayName: string };

export interface AssetSummary {
  id: string;
  displayName: string;
  assetType: string;
  assetCategory: string;
  status: string;
}

export interface AssetFilter {
  types?: string[];
  categories?: string[];
  statuses?: string[];
  sites?: string[];
  environments?: string[];
  /** Free text, matched as a substring of display name, host name and FQDN. */
  q?: string;
}

// Rows per batch of a streamed read (the export's batches of spec 4.7).
const STREAM_BATCH = 500;

export const ASSET_SORT_FIELDS = ['displayName', 'assetType', 'assetCategory', 'status', 'site', 'environment', 'firstSeenAt', 'lastSeenAt', 'lastScanAt'] as const;
export type AssetSortField = (typeof ASSET_SORT_FIELDS)[number];

export interface ParentEdge {
  id: string;
  parentId: string | null;
  via: string | null;
}

// Each filter is a fixed predicate with its own parameter; displayName IS NOT NULL lets the
// planner read the default order from the displayName index when nothing else narrows the scan.
const PREDICATES = {
  types: 'a.assetType IN $types',
  categories: 'a.assetCategory IN $categories',
  statuses: 'a.status IN $statuses',
  sites: 'a.site IN $sites',
  environments: 'a.environment IN $environments',
  q: 'a.searchText CONTAINS $q',
};

function whereOf(filter: AssetFilter): { filters: string; params: Record<string, unknown> } {
  return conjunction(PREDICATES, { ...filter, q: filter.q?.toLowerCase() }, ['a.displayName IS NOT NULL']);
}

export class AssetGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require(
      'assets/find-assets', 'assets/count-assets', 'assets/get-asset', 'assets/find-parent-edges', 'assets/find-asset-summaries',
      'assets/decommission-asset', 'assets/reactivate-asset', 'assets/find-custom-attribute-keys', 'assets/stream-assets', 'assets/find-asset-ids',
    );
  }

  async find(filter: AssetFilter, sort: { field: AssetSortField; direction: 'asc' | 'desc' }, skip: number, limit: number): Promise<AssetNode[]> {
    const { filters, params } = whereOf(filter);
    const order = `a.${sort.field} ${sort.direction === 'desc' ? 'DESC' : 'ASC'}`;
    const rows = await this.graph.read<{ asset: AssetNode }>('assets/find-assets', { ...params, skip: int(skip), limit: int(limit) }, { filters, order });
    return rows.map((r) => r.asset);
  }

  /** Every asset that passes the filter, in (displayName, id) order, read as the consumer takes them. */
  async *streamInNameOrder(filter: AssetFilter): AsyncGenerator<AssetNode[]> {
    const { filters, params } = whereOf(filter);
    for await (const rows of this.graph.stream<{ asset: AssetNode }>('assets/stream-assets', params, { filters }, STREAM_BATCH)) yield rows.map((r) => r.asset);
  }

  async ids(filter: AssetFilter): Promise<string[]> {
    const { filters, params } = whereOf(filter);
    return (await this.graph.read<{ id: string }>('assets/find-asset-ids', params, { filters })).map((r) => r.id);
  }

  async count(filter: AssetFilter): Promise<number> {
    const { filters, params } = whereOf(filter);
    const [row] = await this.graph.read<{ total: number }>('assets/count-assets', params, { filters });
    return row?.total ?? 0;
  }

  async get(id: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.read<{ asset: AssetNode }>('assets/get-asset', { id });
    return row?.asset;
  }

  /** The parent edge of each asset by its type's rule: one query whatever the number of assets. */
  async parentEdges(assets: { id: string; assetType: AssetType }[]): Promise<ParentEdge[]> {
    const rules = assets.flatMap((a) => {
      const rule = parentRule(a.assetType);
      return rule ? [{ id: a.id, via: rule.via, direction: rule.direction, parentKinds: rule.parentKinds }] : [];
    });
    if (rules.length === 0) return [];
    return this.graph.read<ParentEdge & Record<string, unknown>>('assets/find-parent-edges', { rules });
  }

  async summaries(ids: string[]): Promise<AssetSummary[]> {
    if (ids.length === 0) return [];
    const rows = await this.graph.read<{ asset: AssetSummary }>('assets/find-asset-summaries', { ids });
    return rows.map((r) => r.asset);
  }

  async decommission(id: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.write<{ asset: AssetNode }>('assets/decommission-asset', { id });
    return row?.asset;
  }

  async reactivate(id: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.write<{ asset: AssetNode }>('assets/reactivate-asset', { id });
    return row?.asset;
  }

  async customAttributeKeys(type: string): Promise<string[]> {
    const rows = await this.graph.read<{ key: string }>('assets/find-custom-attribute-keys', { type });
    return rows.map((r) => r.key);
  }
}
