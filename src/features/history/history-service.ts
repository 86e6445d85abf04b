// An asset's history (GET /assets/{id}/history): the entries of its parts merged newest first and
// paged with full links. A page that seeks (after or before a cursor) reads `limit` entries from
// each part and keeps the nearest; the last page reads each part's oldest; a page by offset
// reads each part's first offset + limit.
import { foreignCursor, type PageWindow } from '../../platform/http/pagination.js';
import { compareKeys, historyKey, type HistoryFilter, type HistoryPart, type KeyedEntry, type PartWindow } from './history-entry.js';

export const HISTORY_PAGE = { default: 50, max: 1000 } as const;

export class HistoryService {
  constructor(private readonly parts: HistoryPart[]) {}

  async count(id: string, filter: HistoryFilter): Promise<number> {
    const counts = await Promise.all(this.parts.map((p) => p.count(id, filter)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** The entries of a window, in list order (newest first), as pagination.windowed expects them. */
  async read(id: string, filter: HistoryFilter, window: PageWindow): Promise<KeyedEntry[]> {
    const seek = (key: unknown[]) => historyKey(key as never) ?? (() => { throw foreignCursor(); })();
    const partWindow: PartWindow = window.kind === 'offset' ? { asc: false, limit: window.offset + window.limit }
      : window.kind === 'after' ? { after: seek(window.key), asc: false, limit: window.limit }
        : window.kind === 'before' ? { before: seek(window.key), asc: true, limit: window.limit }
          : { asc: true, limit: window.limit };
    const merged = (await Promise.all(this.parts.map((p) => p.read(id, filter, partWindow)))).flat().sort((a, b) => compareKeys(a.key, b.key));
    if (window.kind === 'offset') return merged.slice(window.offset, window.offset + window.limit);
    return partWindow.asc ? merged.slice(-window.limit) : merged.slice(0, window.limit);
  }
}
