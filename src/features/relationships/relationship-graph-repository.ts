// Relationship rows (docs/interface.md §2.5) for GET /relationships and GET /assets/{id}/relationships.
//
// The bulk list is ordered by relationship type (in the order of the taxonomy), then id, so that
// each type's part is read from that type's id index: a page seeks to the row after the cursor
// and walks on into the next types until it is full. Totals come from the count store where the
// filter allows (minus the inactive edges, found on each type's active index), otherwise from a
// count reused while the graph is unchanged.
import { foreignCursor, type PageWindow } from '../../platform/http/pagination.js';
import { conjunction, int, toIso, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { ReadAhead, type ReadAheadOutcome, type ReadWithBookmarks } from '../../platform/neo4j/read-ahead.js';
import { UnchangedCache } from '../../platform/unchanged-cache.js';
import { RELATIONSHIP_TYPES, type RelationshipType } from '../inventory/relationship-types.js';
import { relationshipKey, toRelationshipRow, type RawRelationshipRow, type RelationshipFilter, type RelationshipReads, type RelationshipRow } from './relationship-row.js';

const PREDICATES = {
  sourceCategories: 's.assetCategory IN $sourceCategories',
  targetCategories: 't.assetCategory IN $targetCategories',
  updatedAfter: 'r.updatedAt > datetime($updatedAfter)',
};

/**
 * The filter as Cypher: retired edges are out unless a poller asks what changed since a time (an
 * active edge is never retired: retiring makes it inactive, and a merge that brings it back clears retiredAt).
 */
function whereOf(filter: RelationshipFilter): { filters: string; params: Record<string, unknown> } {
  const always = ['r.id IS NOT NULL', filter.activeOnly ? 'r.active' : 'true'];
  if (filter.updatedAfter === undefined && !filter.activeOnly) always.push('r.retiredAt IS NULL');
  return conjunction(PREDICATES, { sourceCategories: filter.sourceCategories, targetCategories: filter.targetCategories, updatedAfter: filter.updatedAfter }, always);
}

// Filtered totals kept for reuse while the graph is unchanged.
const COUNT_CACHE_ENTRIES = 500;
// Rows per batch of a streamed read (the export's batches of docs/interface.md §4.7).
const STREAM_BATCH = 500;

// Pages of at least this many rows are read ahead (ReadAhead): the sizes of walks in bulk, not of
// pages a person reads. Two ahead of the page being served, one after the other, so that Neo4j
// reads one while the service takes in the other; at most a few, each kept briefly.
const READ_AHEAD_MIN_ROWS = 500;
const READ_AHEAD_DEPTH = 2;
const READ_AHEAD_PAGES = 8;
const READ_AHEAD_KEEP_MS = 15_000;

interface CountedPage {
  rows: RelationshipRow[];
  counts: Map<RelationshipType, number>;
}

const aheadKey = (filter: RelationshipFilter, window: PageWindow) => JSON.stringify([filter, window]);

/** The window of the page after a full forward page of `limit` rows (one more than the page's size), if there is one. */
function nextWindow(page: CountedPage, limit: number): PageWindow | undefined {
  const last = page.rows[limit - 2];
  return page.rows.length === limit && last ? { kind: 'after', key: relationshipKey(last), limit } : undefined;
}

/** Counts by type from the count store, in the order of the filter's types (see storeCounts). */
interface StoreCounts {
  totals: number[] | null;
  inactive: number[] | null;
}

export class RelationshipGraphRepository implements RelationshipReads {
  private readonly counts: UnchangedCache<number>;
  private readonly ahead: ReadAhead<CountedPage>;

  constructor(private readonly graph: NeoGraph, readAheads?: (outcome: ReadAheadOutcome) => void) {
    graph.catalog.require(
      'relationships/find-relationships-of-type', 'relationships/find-relationships-of-type-with-counts', 'relationships/count-relationships-of-type', 'relationships/count-relationships-by-type',
      'relationships/find-asset-relationships', 'relationships/count-asset-relationships',
    );
    this.counts = new UnchangedCache(() => graph.bookmark(), COUNT_CACHE_ENTRIES);
    this.ahead = new ReadAhead(graph, READ_AHEAD_PAGES, READ_AHEAD_KEEP_MS, readAheads);
  }

  /** The types a filter lists, in list order. */
  private typesOf(filter: RelationshipFilter): RelationshipType[] {
    return RELATIONSHIP_TYPES.filter((t) => !filter.types?.length || filter.types.includes(t));
  }

  /**
   * The count-store expressions of the counts by type (`totals`, and `inactive` to take off) of a
   * filter that needs no scan: none but types and activeOnly. Inactive edges (retired ones among
   * them), or retired ones only, are each found on their type's index.
   */
  private storeCounts(filter: RelationshipFilter): string | undefined {
    if (filter.sourceCategories?.length || filter.targetCategories?.length || filter.updatedAfter !== undefined) return undefined;
    const types = this.typesOf(filter);
    const left = (t: string) => (filter.activeOnly ? `COUNT { MATCH ()-[r:${t}]->() WHERE r.active = false }` : `COUNT { MATCH ()-[r:${t}]->() WHERE r.retiredAt IS NOT NULL }`);
    return `[${types.map((t) => `COUNT { MATCH ()-[:${t}]->() }`).join(', ')}] AS totals, [${types.map(left).join(', ')}] AS inactive`;
  }

  private countsFrom(filter: RelationshipFilter, { totals, inactive }: StoreCounts): Map<RelationshipType, number> {
    return new Map(this.typesOf(filter).map((t, i) => [t, (totals?.[i] ?? 0) - (inactive?.[i] ?? 0)]));
  }

  /** The number of rows of each type that pass the filter. */
  async countsByType(filter: RelationshipFilter): Promise<Map<RelationshipType, number>> {
    const fromStore = this.storeCounts(filter);
    if (fromStore) {
      const [row] = await this.graph.read<StoreCounts>('relationships/count-relationships-by-type', {}, { counts: fromStore });
      return this.countsFrom(filter, row ?? { totals: null, inactive: null });
    }
    const types = this.typesOf(filter);
    const { filters, params } = whereOf(filter);
    const counts = await Promise.all(types.map((type) =>
      this.counts.get(JSON.stringify([type, filter]), async () => {
        const { rows: [row], bookmark } = await this.graph.readWithBookmark<{ total: number }>('relationships/count-relationships-of-type', params, { type, filters });
        return { value: row?.total ?? 0, version: bookmark };
      })));
    return new Map(types.map((t, i) => [t, counts[i] as number]));
  }

  /**
   * A page through a window that needs no counts to place it (a seek, or the first rows), and the
   * counts by type: read by the page's first statement where the count store holds them (one
   * round trip), else beside the page.
   */
  async pageAndCounts(filter: RelationshipFilter, window: PageWindow): Promise<CountedPage> {
    const fromStore = this.storeCounts(filter);
    if (!fromStore) {
      const [counts, { rows }] = await Promise.all([this.countsByType(filter), this.read(filter, window)]);
      return { rows, counts };
    }
    const page = (window.kind === 'after' && (await this.ahead.take(aheadKey(filter, window)))) || (await this.countedPage(filter, window, fromStore)).value;
    // A forward page of a walk in bulk: the next ones are read while this one goes out.
    const next = (window.kind === 'after' || window.kind === 'offset') && window.limit > READ_AHEAD_MIN_ROWS ? nextWindow(page, window.limit) : undefined;
    if (next) this.readAhead(filter, next, fromStore, READ_AHEAD_DEPTH);
    return page;
  }

  /** Reads the page of `window` ahead, unless it is being read already, and then the `depth - 1` pages after it. */
  private readAhead(filter: RelationshipFilter, window: PageWindow, fromStore: string, depth: number): void {
    this.ahead.start(aheadKey(filter, window), () => this.countedPage(filter, window, fromStore)).then(
      ({ value }) => {
        const next = depth > 1 ? nextWindow(value, window.limit) : undefined;
        if (next) this.readAhead(filter, next, fromStore, depth - 1);
      },
      // A failed read ahead is only a page to read again when asked for.
      () => undefined,
    );
  }

  /** A page that the count store counts, read with its counts, and the bookmarks of its reads. */
  private async countedPage(filter: RelationshipFilter, window: PageWindow, fromStore: string): Promise<ReadWithBookmarks<CountedPage>> {
    const { rows, counts, bookmarks } = await this.read(filter, window, undefined, fromStore);
    if (!counts) throw new Error('the counted page statement returned no counts');
    return { value: { rows, counts: this.countsFrom(filter, counts) }, bookmarks };
  }

  /**
   * A page of the list through the window (rows in list order); `counts` place an offset among the
   * types (any other window reads each type in turn until the page is full).
   */
  async page(filter: RelationshipFilter, window: PageWindow, counts?: Map<RelationshipType, number>): Promise<RelationshipRow[]> {
    return (await this.read(filter, window, counts)).rows;
  }

  /** The rows of a page, and the count-store counts that `withCounts` asks the first statement to read. */
  private async read(filter: RelationshipFilter, window: PageWindow, counts?: Map<RelationshipType, number>, withCounts?: string): Promise<{ rows: RelationshipRow[]; counts?: StoreCounts; bookmarks: string[] }> {
    if (window.kind === 'offset' && window.offset > 0 && !counts) throw new Error('an offset page needs the counts by type');
    const backwards = window.kind === 'before' || window.kind === 'tail';
    let types = this.typesOf(filter);
    let skip = window.kind === 'offset' ? window.offset : 0;
    let seekId: string | undefined;
    if (window.kind === 'after' || window.kind === 'before') {
      const [type, id] = window.key;
      const at = types.indexOf(type as RelationshipType);
      if (at === -1 || typeof id !== 'string') throw foreignCursor();
      types = backwards ? types.slice(0, at + 1) : types.slice(at);
      seekId = id;
    }
    if (backwards) types = [...types].reverse();
    // r.id IS NOT NULL lets the planner read the order from the type's id index when nothing seeks.
    const { filters, params } = whereOf(filter);
    const rows: RelationshipRow[] = [];
    const bookmarks: string[] = [];
    let storeCounts: StoreCounts | undefined;
    for (const [i, type] of types.entries()) {
      const count = counts?.get(type);
      if (count !== undefined && skip >= count && window.kind === 'offset') {
        skip -= count;
        continue;
      }
      const seek = i === 0 && seekId !== undefined ? ` AND r.id ${backwards ? '<' : '>'} $seekId` : '';
      const counted = i === 0 && withCounts !== undefined;
      const { rows: raw, bookmark } = await this.graph.readWithBookmark<{ row: RawRelationshipRow | null } & StoreCounts>(
        counted ? 'relationships/find-relationships-of-type-with-counts' : 'relationships/find-relationships-of-type',
        { ...params, seekId, skip: int(skip), limit: int(window.limit - rows.length) },
        { type, filters: filters + seek, dir: backwards ? 'DESC' : 'ASC', ...(counted ? { counts: withCounts } : {}) },
      );
      bookmarks.push(bookmark);
      for (const r of raw) {
        // The counted statement's row of counts.
        if (r.row === null) storeCounts = r;
        else rows.push(toRelationshipRow(r.row));
      }
      skip = 0;
      if (rows.length >= window.limit) break;
    }
    return { rows: backwards ? rows.reverse() : rows, counts: storeCounts, bookmarks };
  }

  /** Every relationship that passes the filter (of one asset, when given), in list order, as the consumer takes them. */
  async *stream(filter: RelationshipFilter, assetId?: string): AsyncGenerator<RelationshipRow[]> {
    const all = int(Number.MAX_SAFE_INTEGER);
    if (assetId !== undefined) {
      const { filters, params } = conjunction({ types: 'type(r) IN $types', updatedAfter: 'r.updatedAt > datetime($updatedAfter)' }, { types: filter.types, updatedAfter: filter.updatedAfter },
        [filter.activeOnly ? 'r.active' : 'true', ...(filter.updatedAfter === undefined ? ['r.retiredAt IS NULL'] : [])]);
      for await (const rows of this.graph.stream<{ row: RawRelationshipRow }>('relationships/find-asset-relationships', { ...params, assetId, skip: int(0), limit: all }, { filters }, STREAM_BATCH)) {
        yield rows.map((r) => toRelationshipRow(r.row));
      }
      return;
    }
    const { filters, params } = whereOf(filter);
    for (const type of this.typesOf(filter)) {
      for await (const rows of this.graph.stream<{ row: RawRelationshipRow }>('relationships/find-relationships-of-type', { ...params, skip: int(0), limit: all }, { type, filters, dir: 'ASC' }, STREAM_BATCH)) {
        yield rows.map((r) => toRelationshipRow(r.row));
      }
    }
  }

  /** A page of the relationships of one asset, by offset, and their total. */
  async ofAsset(assetId: string, filter: { types?: string[]; activeOnly: boolean }, skip: number, limit: number): Promise<{ rows: RelationshipRow[]; total: number }> {
    const { filters, params } = conjunction({ types: 'type(r) IN $types' }, { types: filter.types }, [filter.activeOnly ? 'r.active' : 'true', 'r.retiredAt IS NULL']);
    const [raw, [count]] = await Promise.all([
      this.graph.read<{ row: RawRelationshipRow }>('relationships/find-asset-relationships', { ...params, assetId, skip: int(skip), limit: int(limit) }, { filters }),
      this.graph.read<{ total: number }>('relationships/count-asset-relationships', { ...params, assetId }, { filters }),
    ]);
    return { rows: raw.map((r) => toRelationshipRow(r.row)), total: count?.total ?? 0 };
  }
}
