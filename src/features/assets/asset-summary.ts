// An asset as other features see it (a summary, a node, a filter of the list) and the reads they
// make of assets, apart from the repository that answers them.
import type { components } from '../../platform/http/api-types.js';
import type { AssetType } from '../inventory/asset-taxonomy.js';

type ApiAsset = components['schemas']['Asset'];

/** The fields of an asset that the statements return (_asset-fields.cypher), in its order: every one the API shows or sorts by. */
const ASSET_FIELDS = [
  'id', 'displayName', 'assetType', 'assetCategory', 'status', 'vendor', 'model', 'customAttributes',
  'consecutiveScanFailures', 'lastScanOutcome', 'lastScanAt', 'hostname', 'fqdn', 'site',
  'environment', 'serialNumber', 'macAddresses', 'ipAddresses', 'staleSince',
  'decommissionedAt', 'firstSeenAt', 'lastSeenAt', 'updatedAt',
  'sources',
] as const;

/**
 * An asset as the statements return it: api.yaml's fields that the node holds, each null where the
 * node lacks the property (datetimes as Cypher's text), but the id, name, type and status every asset has.
 */
export type AssetNode = { [K in (typeof ASSET_FIELDS)[number]]: NonNullable<ApiAsset[K]> | null } & { id: string; displayName: string; assetType: AssetType; status: ApiAsset['status'] };

/** An asset from the list a statement returns (_asset-fields.cypher); a property the asset lacks is null. */
export function toAssetNode(values: unknown[]): AssetNode {
  const node: Record<string, unknown> = {};
  ASSET_FIELDS.forEach((field, i) => {
    node[field] = values[i];
  });
  return node as AssetNode;
}

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
  /** Only assets whose facts or status changed after this time (ISO 8601). */
  updatedAfter?: string;
  /** Synthesized rows only: those of this host. */
  hostId?: string;
}

/** The fields whose distinct values are listed (a pick list's choices: GET /assets/values), each the asset property it reads. */
export const VALUE_FIELDS = { site: 'site', environment: 'environment' } as const;
export type ValueField = keyof typeof VALUE_FIELDS;

export type AssetSummaryRef = Pick<AssetSummary, 'id' | 'displayName' | 'assetType' | 'assetCategory'>;

export const ASSET_SORT_FIELDS = ['displayName', 'assetType', 'assetCategory', 'status', 'site', 'environment', 'firstSeenAt', 'lastSeenAt', 'lastScanAt', 'updatedAt'] as const;
export type AssetSortField = (typeof ASSET_SORT_FIELDS)[number];
export type AssetSort = { field: AssetSortField; direction: 'asc' | 'desc' };

/** The reads of assets that other features make: exports, insights, schema and topology. */
export interface AssetReads {
  summaries(ids: string[]): Promise<AssetSummary[]>;
  /** The custom attribute keys of each of these types in the current data (a type no asset holds keys for is left out). */
  customAttributeKeys(types: string[]): Promise<Map<string, string[]>>;
  /** Every asset that passes the filter, in display-name order, in batches. */
  streamInNameOrder(filter: AssetFilter): AsyncGenerator<AssetNode[]>;
  /** The ids of every asset that passes the filter. */
  ids(filter: AssetFilter): Promise<string[]>;
}
