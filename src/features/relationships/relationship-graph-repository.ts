// Relationship rows (spec 2.5) for GET /relationships and GET /assets/{id}/relationships.
import { conjunction, int, toIso, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';

export interface RelationshipFilter {
  types?: string[];
  sourceCategories?: string[];
  targetCategories?: string[];
  activeOnly: boolean;
  /** Only the edges of this asset, either end. */
  assetId?: string;
}

export interface RelationshipRow {
  id: string;
  relationshipType: string;
  active: boolean;
  sourceAssetId: string;
  sourceDisplayName: string;
  sourceAssetType: string;
  sourceAssetCategory: string;
  targetAssetId: string;
  targetDisplayName: string;
  targetAssetType: string;
  targetAssetCategory: string;
  firstSeenAt: string | null;
  lastSeenAt: string | null;
  sources: string[];
}

const PREDICATES = {
  types: 'type(r) IN $types',
  sourceCategories: 's.assetCategory IN $sourceCategories',
  targetCategories: 't.assetCategory IN $targetCategories',
  assetId: '(s.id = $assetId OR t.id = $assetId)',
};

function whereOf({ activeOnly, ...filter }: RelationshipFilter): { filters: string; params: Record<string, unknown> } {
  return conjunction(PREDICATES, filter, [activeOnly ? 'r.active' : 'true']);
}

interface Raw {
  rel: Record<string, unknown> & { id: string; relationshipType: string; active: boolean };
  source: { id: string; displayName: string; assetType: string; assetCategory: string };
  target: { id: string; displayName: string; assetType: string; assetCategory: string };
}

export class RelationshipGraphRepository {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('relationships/find-relationships', 'relationships/count-relationships');
  }

  async page(filter: RelationshipFilter, skip: number, limit: number): Promise<{ rows: RelationshipRow[]; total: number }> {
    const { filters, params } = whereOf(filter);
    const [raw, [count]] = await Promise.all([
      this.graph.read<Raw & Record<string, unknown>>('relationships/find-relationships', { ...params, skip: int(skip), limit: int(limit) }, { filters }),
      this.graph.read<{ total: number }>('relationships/count-relationships', params, { filters }),
    ]);
    const rows = raw.map(({ rel, source, target }) => ({
      id: rel.id,
      relationshipType: rel.relationshipType,
      active: rel.active === true,
      sourceAssetId: source.id,
      sourceDisplayName: source.displayName,
      sourceAssetType: source.assetType,
      sourceAssetCategory: source.assetCategory,
      targetAssetId: target.id,
      targetDisplayName: target.displayName,
      targetAssetType: target.assetType,
      targetAssetCategory: target.assetCategory,
      firstSeenAt: toIso(rel.firstSeenAt),
      lastSeenAt: toIso(rel.lastSeenAt),
      sources: (rel.sources as string[] | undefined) ?? [],
    }));
    return { rows, total: count?.total ?? 0 };
  }
}
