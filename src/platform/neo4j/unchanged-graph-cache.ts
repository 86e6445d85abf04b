// Values computed from the graph (filtered totals of a listing), reused for as long as no
// transaction has committed since they were computed: a read's bookmark names the last committed
// transaction, so equal bookmarks before and after prove the value is still exact. A value is kept
// only when nothing committed while it was computed. The least recently used entries go first.
import type { NeoGraph } from './neo4j-graph.js';

interface Entry<T> {
  value: T;
  bookmark: string;
}

export class UnchangedGraphCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly graph: NeoGraph,
    private readonly maxEntries: number,
  ) {}

  /** The value under `key`, recomputed unless the graph is unchanged since it was. */
  async get(key: string, compute: () => Promise<Entry<T>>): Promise<T> {
    return this.at(key, await this.graph.bookmark(), compute);
  }

  /** Whether a value is kept under `key` (whether it is still exact, a bookmark tells). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * The value under `key` as of an earlier read that returned `bookmark` (a page read before it,
   * so no round trip of its own): the kept value if it was computed at that bookmark; otherwise
   * computed now, and kept only if nothing committed since that read. A value found out of date
   * is dropped, so that a caller that sees no value reads it beside its page rather than after.
   */
  async at(key: string, bookmark: string, compute: () => Promise<Entry<T>>): Promise<T> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry && entry.bookmark === bookmark) {
      this.entries.set(key, entry);
      return entry.value;
    }
    const computed = await compute();
    if (computed.bookmark === bookmark) {
      this.entries.set(key, computed);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return computed.value;
  }
}
