// An asset's names as PostgreSQL keeps a copy of them for the exports, and the upkeep of that
// copy that the retention sweep makes, apart from the store that holds it.

export interface AssetName {
  assetId: string;
  displayName: string;
  hostname: string | null;
}

/** The upkeep of the names' copy by the retention sweep. */
export interface AssetNameIndex {
  upsert(names: AssetName[], options?: { exact?: boolean }): Promise<void>;
  /** Rows of assets outside `existing` (ids after `after`, or from the first, through `through`) written before `before`: the graph no longer has them. */
  deleteMissing(existing: string[], range: { after: string | null; through: string }, before: Date): Promise<number>;
}
