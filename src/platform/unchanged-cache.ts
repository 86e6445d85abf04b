// Values computed from a store (filtered totals of a listing), reused for as long as the store is
// unchanged. A version names the store's state: a Neo4j bookmark names the last committed
// transaction, a PostgreSQL table's row-count version its writes (row-counts.ts); equal versions
// before and after prove the value still exact. A value is kept only when nothing changed while it
// was computed. The least recently used entries go first.

export interface Versioned<T> {
  value: T;
  version: string;
}

export class UnchangedCache<T> {
  private readonly entries = new Map<string, Versioned<T>>();

  constructor(
    /** The store's version now. */
    private readonly currentVersion: () => Promise<string>,
    private readonly maxEntries: number,
  ) {}

  /** The value under `key`, recomputed unless the store is unchanged since it was. */
  async get(key: string, compute: () => Promise<Versioned<T>>): Promise<T> {
    return this.at(key, await this.currentVersion(), compute);
  }

  /** Whether a value is kept under `key` (whether it is still exact, a version tells). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * The value under `key` as of an earlier read that returned `version` (a page read before it,
   * so no round trip of its own): the kept value if it was computed at that version; otherwise
   * computed now, and kept only if nothing changed since that read. A value found out of date is
   * dropped, so that a caller that sees no value reads it beside its page rather than after.
   */
  async at(key: string, version: string, compute: () => Promise<Versioned<T>>): Promise<T> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry && entry.version === version) {
      this.entries.set(key, entry);
      return entry.value;
    }
    const computed = await compute();
    if (computed.version === version) {
      this.entries.set(key, computed);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return computed.value;
  }
}
