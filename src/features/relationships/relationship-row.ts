// A relationship row (docs/interface.md §2.5) and the reads other features and the routers make of
// relationships, apart from the repository that answers them.
import type { components } from '../../platform/http/api-types.js';
import type { PageWindow, RowKey } from '../../platform/http/pagination.js';
import { toIso } from '../../platform/neo4j/neo4j-graph.js';
import { categoryOf, type AssetType } from '../inventory/asset-taxonomy.js';
import type { RelationshipType } from '../inventory/relationship-types.js';

export interface RelationshipFilter {
  types?: string[];
  sourceCategories?: string[];
  targetCategories?: string[];
  activeOnly: boolean;
  /** Only edges changed after this time (ISO 8601); retired edges are then listed too, so that a poller learns of them. */
  updatedAfter?: string;
}

/** A relationship as api.yaml gives it, with every field: the service always knows when it changed and whether it is retired. */
export type RelationshipRow = Required<components['schemas']['Relationship']>;

/** A relationship as the Cypher statements return it (_relationship-row.cypher), one column per field. */
export type RawRelationshipRow = [string, RelationshipType, boolean, string | null, string | null, string[] | null, string, string, AssetType, string, string, AssetType, string | null, string | null];

export function toRelationshipRow(raw: RawRelationshipRow): RelationshipRow {
  const [id, type, active, firstSeenAt, lastSeenAt, sources, sId, sName, sType, tId, tName, tType, updatedAt, retiredAt] = raw;
  return {
    id, relationshipType: type, active: active === true,
    // An asset's category is written from its type, always together (merge-assets.cypher).
    sourceAssetId: sId, sourceDisplayName: sName, sourceAssetType: sType, sourceAssetCategory: categoryOf(sType),
    targetAssetId: tId, targetDisplayName: tName, targetAssetType: tType, targetAssetCategory: categoryOf(tType),
    firstSeenAt: toIso(firstSeenAt), lastSeenAt: toIso(lastSeenAt), sources: sources ?? [], updatedAt: toIso(updatedAt), retiredAt: toIso(retiredAt),
  };
}

/** Page size of relationship lists (the list's and an asset's): default 200, values above 1000 capped (docs/interface.md §4.5). */
export const RELATIONSHIP_PAGE = { default: 200, max: 1000 } as const;

/** The number of rows over all types, from the counts by type. */
export const countsTotal = (counts: Map<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

/** The row key of the list order: the type, then the id. */
export const relationshipKey = (row: RelationshipRow): RowKey => [row.relationshipType, row.id];

/** The relationship reads of the routers and the exports. */
export interface RelationshipReads {
  /** The number of rows of each type that pass the filter. */
  countsByType(filter: RelationshipFilter): Promise<Map<RelationshipType, number>>;
  /** A page through a window that needs no counts to place it, and the counts by type. */
  pageAndCounts(filter: RelationshipFilter, window: PageWindow): Promise<{ rows: RelationshipRow[]; counts: Map<RelationshipType, number> }>;
  page(filter: RelationshipFilter, window: PageWindow, counts?: Map<RelationshipType, number>): Promise<RelationshipRow[]>;
  stream(filter: RelationshipFilter, assetId?: string): AsyncGenerator<RelationshipRow[]>;
  ofAsset(assetId: string, filter: { types?: string[]; activeOnly: boolean }, skip: number, limit: number): Promise<{ rows: RelationshipRow[]; total: number }>;
}
