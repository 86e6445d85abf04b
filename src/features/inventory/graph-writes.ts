// The graph writes of the inventory writer: an asset's and a relationship's values, apart from the
// repository that runs them.
import type { FactValues } from './asset-facts.js';
import type { RelationshipType } from './relationship-types.js';

/** The node properties of what an asset's facts resolve to: the fact fields a source gave, custom attributes as JSON text with their keys. */
export type AssetProps = Partial<Omit<FactValues, 'assetType'>> & { customAttributes?: string; customAttributeKeys?: string[] };

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
  props: AssetProps & { displayName: string };
}

export interface RelationshipWrite {
  type: RelationshipType;
  source: string;
  target: string;
}
