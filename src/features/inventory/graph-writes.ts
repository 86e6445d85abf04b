// The graph writes of the inventory writer: an asset's and a relationship's values, apart from the
// repository that runs them.
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
