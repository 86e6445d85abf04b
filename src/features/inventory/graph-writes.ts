// The graph writes shared by import and discovery: an asset's and a relationship's values, and
// the relationship merge that discovery makes, apart from the repository that runs them.
import type { RelationshipType } from './relationship-types.js';

/** An asset's graph write: the type its facts resolve to (null: keep the asset's own, or take the fallback for a new one), and its other values. */
export interface AssetWrite {
  id: string;
  type: string | null;
  category: string | null;
  nodeLabel: string | null;
  fallbackType: string;
  fallbackCategory: string;
  fallbackLabel: string;
  fallbackName: string;
  props: Record<string, unknown>;
}

export interface RelationshipWrite {
  type: RelationshipType;
  source: string;
  target: string;
}

/** MERGEs relationships by their natural keys; answers how many were written. */
export interface RelationshipMerge {
  mergeRelationships(rows: RelationshipWrite[], source: string, observedAt: string): Promise<number>;
}
