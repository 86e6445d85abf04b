// A client that walks a long list by its next links (a CMDB sync taking every row) waits for each
// page's read, then the service waits for the client: read ahead, the next page is read while this
// one is sent and taken in. A page read ahead is served only if nothing has committed since it was
// read (every bookmark of its reads equals the database's bookmark when it is asked for), so the
// answer is the one a fresh read would give; otherwise it is read again. Bounded: a few pages,
// each taken once and dropped after a short time.
import type { NeoGraph } from './neo4j-graph.js';

export interface ReadWithBookmarks<T> {
  value: T;
  /** The bookmark after each statement of the read. */
  bookmarks: string[];
}

interface Pending<T> {
  read: Promise<ReadWithBookmarks<T>>;
  startedAt: number;
}

export type ReadAheadOutcome = 'served' | 'stale';

export class ReadAhead<T> {
  private readonly pending = new Map<string, Pending<T>>();

  constructor(
    private readonly graph: NeoGraph,
    private readonly maxPages: number,
    private readonly keepMs: number,
    private readonly counted: (outcome: ReadAheadOutcome) => void = () => undefined,
  ) {}

  /** The value read ahead under `key`, if one was and it is still exact; each is taken once. */
  async take(key: string): Promise<T | undefined> {
    const entry = this.pending.get(key);
    if (!entry) return undefined;
    this.pending.delete(key);
    if (Date.now() - entry.startedAt > this.keepMs) return undefined;
    // The bookmark is read after the request came: a commit before it shows as a difference.
    const [read, now] = await Promise.all([entry.read.catch(() => undefined), this.graph.bookmark()]);
    const exact = read !== undefined && read.bookmarks.length > 0 && read.bookmarks.every((b) => b === now);
    this.counted(exact ? 'served' : 'stale');
    return exact ? read.value : undefined;
  }

  /** Starts reading `key` in the background, unless it is being read already; the read either way. */
  start(key: string, read: () => Promise<ReadWithBookmarks<T>>): Promise<ReadWithBookmarks<T>> {
    const pending = this.pending.get(key);
    if (pending) return pending.read;
    const started = read();
    // A failed read ahead is only a page to read again when asked for.
    started.catch(() => undefined);
    this.pending.set(key, { read: started, startedAt: Date.now() });
    const cutoff = Date.now() - this.keepMs;
    for (const [k, p] of this.pending) if (p.startedAt < cutoff || this.pending.size > this.maxPages) this.pending.delete(k);
    return started;
  }
}
