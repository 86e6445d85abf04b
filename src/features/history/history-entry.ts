// One entry of an asset's history (GET /assets/{id}/history) and the parts it is read from: the
// changes of the sources' values in PostgreSQL (asset_history), and the status log and edge periods
// in the graph (inventory/status-log.ts). Every part lists its entries newest first by the same
// key, [epoch milliseconds, a text that orders one millisecond's entries], so that the parts merge
// into one list and a cursor seeks in each.
import type { components } from '../../platform/http/api-types.js';
import type { RowKey } from '../../platform/http/pagination.js';

export type HistoryEntry = components['schemas']['AssetHistoryEntry'];

export interface HistoryFilter {
  /** Fact fields, row values, `status`, or relationship types; none: all. */
  fields?: string[];
  /** Epoch milliseconds: from (inclusive) and to (exclusive). */
  from?: number;
  to?: number;
}

/** The entries of a part: `after` and `before` seek from a key, `asc` reads oldest first. */
export interface PartWindow {
  after?: [number, string];
  before?: [number, string];
  asc: boolean;
  limit: number;
}

export interface KeyedEntry {
  key: [number, string];
  entry: HistoryEntry;
}

export interface HistoryPart {
  read(id: string, filter: HistoryFilter, window: PartWindow): Promise<KeyedEntry[]>;
  count(id: string, filter: HistoryFilter): Promise<number>;
}

/** A cursor's key as a history key, or undefined when it is not one. */
export function historyKey(key: RowKey): [number, string] | undefined {
  const [at, text] = key;
  return key.length === 2 && typeof at === 'number' && Number.isSafeInteger(at) && typeof text === 'string' ? [at, text] : undefined;
}

/** Newest first. */
export function compareKeys(a: [number, string], b: [number, string]): number {
  return b[0] - a[0] || (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0);
}
