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
    const before = await this.graph.bookmark();
    const entry = this.entries.get(key);
    if (entry && entry.bookmark === before) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    const computed = await compute();
    this.entries.delete(key);
    if (computed.bookmark === before) {
      this.entries.set(key, computed);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return computed.value;
  }
}
