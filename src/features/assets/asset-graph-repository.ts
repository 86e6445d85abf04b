// Reads of assets in Neo4j and their lifecycle writes.
import type { PageWindow, RowKey } from '../../platform/http/pagination.js';
import { BadRequestError } from '../../platform/errors.js';
import { conjunction, int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { UnchangedCache, type Versioned } from '../../platform/unchanged-cache.js';
import { ASSET_TYPES, parentRule, type AssetType } from '../inventory/asset-taxonomy.js';
import { CATEGORIES, type Category } from '../inventory/asset-categories.js';
import type { RelationshipType } from '../inventory/relationship-types.js';
import { ACTIVE_AT, ACTIVE_NOW } from '../inventory/status-log.js';
import { toAssetNode, VALUE_FIELDS, type AssetFilter, type AssetNode, type AssetReads, type AssetSort, type AssetSortField, type AssetSummary, type AssetSummaryRef, type ValueField } from './asset-summary.js';

// Filtered totals kept for reuse while the graph is unchanged.
const COUNT_CACHE_ENTRIES = 500;
// The schema listing (all types, or a category's) and single types.
const ATTRIBUTE_KEY_CACHE_ENTRIES = 100;
// Rows per batch of a streamed read (the export's batches of docs/interface.md §4.7).
const STREAM_BATCH = 500;
// The value lists (fields and limits) kept while the graph is unchanged.
const FIELD_VALUE_CACHE_ENTRIES = 20;

/**
 * Sort fields that every asset has, so that a page can seek to the row after (or before) a key
 * (the field's value, the display name, the id) on the field's index; temporal ones are compared
 * as datetimes. Pages sorted on the others (which may be null) are read by offset.
 */
const KEYSET_FIELDS: Partial<Record<AssetSortField, 'string' | 'datetime'>> = {
  displayName: 'string', assetType: 'string', assetCategory: 'string', status: 'string', firstSeenAt: 'datetime', lastSeenAt: 'datetime', updatedAt: 'datetime',
};

export interface AssetWithParent {
  node: AssetNode;
  parent: (AssetSummaryRef & { via: RelationshipType }) | null;
}

/**
 * The parent rules as the page statement takes them: each distinct rule once ($rules), and the
 * index of its rule for every type that has one ($ruleOf). Sent with every page: half the bytes
 * of one rule per type.
 */
const PARENT_RULES = (() => {
  const rules: { via: readonly string[]; direction: string; parentKinds: readonly string[] }[] = [];
  const at = new Map<string, number>();
  const ruleOf: Record<string, ReturnType<typeof int>> = {};
  for (const type of Object.keys(ASSET_TYPES) as AssetType[]) {
    const rule = parentRule(type);
    if (!rule) continue;
    const value = { via: rule.via, direction: rule.direction, parentKinds: rule.parentKinds };
    const key = JSON.stringify(value);
    if (!at.has(key)) at.set(key, rules.push(value) - 1);
    // A list index: an integer to Cypher, not a JS number (a float).
    ruleOf[type] = int(at.get(key) as number);
  }
  return { rules, ruleOf };
})();

/** An asset's parent by its type's rule and the edge type it was found by, or none. */
export type ParentEdge = { id: string; parentId: string; via: RelationshipType } | { id: string; parentId: null; via: null };

// Each filter is a fixed predicate with its own parameter; displayName IS NOT NULL lets the
// planner read the default order from the displayName index when nothing else narrows the scan.
const PREDICATES = {
  types: 'a.assetType IN $types',
  categories: 'a.assetCategory IN $categories',
  statuses: 'a.status IN $statuses',
  sites: 'a.site IN $sites',
  environments: 'a.environment IN $environments',
  q: 'a.searchText CONTAINS $q',
  updatedAfter: 'a.updatedAt > datetime($updatedAfter)',
};

function whereOf({ hostId: _synthesizedOnly, ...filter }: AssetFilter): { filters: string; params: Record<string, unknown> } {
  return conjunction(PREDICATES, { ...filter, q: filter.q?.toLowerCase() }, ['a.displayName IS NOT NULL']);
}

export class AssetGraphRepository implements AssetReads {
  private readonly counts: UnchangedCache<number>;
  // The keys of a type read every asset of the type: kept while the graph is unchanged.
  private readonly attributeKeys: UnchangedCache<Map<string, string[]>>;
  // The values of a field read every asset that has one: kept while the graph is unchanged.
  private readonly valueLists: UnchangedCache<{ value: string; count: number }[]>;

  constructor(private readonly graph: NeoGraph) {
    this.counts = new UnchangedCache(() => graph.bookmark(), COUNT_CACHE_ENTRIES);
    this.attributeKeys = new UnchangedCache(() => graph.bookmark(), ATTRIBUTE_KEY_CACHE_ENTRIES);
    this.valueLists = new UnchangedCache(() => graph.bookmark(), FIELD_VALUE_CACHE_ENTRIES);
    graph.catalog.require(
      'assets/find-assets', 'assets/count-assets', 'assets/count-assets-in-store', 'assets/get-asset', 'assets/find-parent-edges', 'assets/find-asset-summaries',
      'assets/decommission-asset', 'assets/reactivate-asset', 'assets/find-custom-attribute-keys', 'assets/stream-assets', 'assets/find-asset-ids',
      'assets/count-asset-field-values',
    );
  }

  /** Whether pages of this sort can seek by key. */
  static seeks(sort: AssetSort): boolean {
    return KEYSET_FIELDS[sort.field] !== undefined;
  }

  /** The sort key of an asset (the field's value, then the display name and id). */
  static keyOf(node: AssetNode, sort: AssetSort): RowKey {
    // Datetimes come as Cypher's own text, to the nanosecond: a seek lands exactly.
    return sort.field === 'displayName' ? [node.displayName, node.id] : [node[sort.field], node.displayName, node.id];
  }

  /** A page of assets with their parents, read through the window (rows in list order). */
  async page(filter: AssetFilter, sort: AssetSort, window: PageWindow): Promise<AssetWithParent[]> {
    return (await this.readPage(filter, sort, window, 'null')).rows;
  }

  /**
   * A page and the total of its filter. A total that the count store holds comes in the page's
   * own statement; a kept filtered count is checked against the page read's bookmark, so that
   * while the graph is unchanged a page costs one round trip. Without a kept count, the count
   * runs beside the page.
   */
  async pageAndTotal(filter: AssetFilter, sort: AssetSort, window: PageWindow): Promise<{ rows: AssetWithParent[]; total: number }> {
    const fromStore = this.storeTotal(filter);
    if (fromStore) {
      const { rows, total } = await this.readPage(filter, sort, window, fromStore);
      // An empty page carries no total.
      return { rows, total: total ?? (await this.count(filter)) };
    }
    const key = JSON.stringify(filter);
    if (!this.counts.has(key)) {
      const [{ rows }, total] = await Promise.all([this.readPage(filter, sort, window, 'null'), this.count(filter)]);
      return { rows, total };
    }
    const { rows, bookmark } = await this.readPage(filter, sort, window, 'null');
    return { rows, total: await this.counts.at(key, bookmark, () => this.countRead(filter)) };
  }

  private async readPage(filter: AssetFilter, sort: AssetSort, window: PageWindow, total: string): Promise<{ rows: AssetWithParent[]; total?: number; bookmark: string }> {
    const { filters, params } = whereOf(filter);
    // Backwards windows read the list in reverse and turn the rows round.
    const backwards = window.kind === 'before' || window.kind === 'tail';
    const descending = (sort.direction === 'desc') !== backwards;
    const dir = descending ? 'DESC' : 'ASC';
    const order = (sort.field === 'displayName' ? ['a.displayName', 'a.id'] : [`a.${sort.field}`, 'a.displayName', 'a.id']).map((c) => `${c} ${dir}`).join(', ');
    const clauses = [filters];
    if (window.kind === 'after' || window.kind === 'before') {
      const seek = this.seek(sort, window.key, descending ? '<' : '>');
      clauses.push(seek.clause);
      Object.assign(params, seek.params);
    }
    const { rows, bookmark } = await this.graph.readWithBookmark<AssetWithParent & { asset: unknown[]; total: number | null }>(
      'assets/find-assets',
      { ...params, ...PARENT_RULES, skip: int(window.kind === 'offset' ? window.offset : 0), limit: int(window.limit) },
      { filters: clauses.join(' AND '), order, total },
    );
    const out = rows.map((r) => ({ node: toAssetNode(r.asset), parent: r.parent }));
    return { rows: backwards ? out.reverse() : out, total: rows[0]?.total ?? undefined, bookmark };
  }

  /** The rows strictly after `key` in the direction of `cmp`, as a range on the sort field's index plus a filter on its ties. */
  private seek(sort: AssetSort, key: RowKey, cmp: '<' | '>'): { clause: string; params: Record<string, unknown> } {
    const type = KEYSET_FIELDS[sort.field];
    if (!type || key.length !== (sort.field === 'displayName' ? 2 : 3) || key.some((k) => typeof k !== 'string')) {
      throw new BadRequestError('The cursor does not belong to this sort order: follow the links of a list as they are.', [{ path: 'query.cursor', message: 'cursor of another sort order' }]);
    }
    if (sort.field === 'displayName') {
      const [name, id] = key;
      return { clause: `a.displayName ${cmp}= $seekName AND (a.displayName ${cmp} $seekName OR a.id ${cmp} $seekId)`, params: { seekName: name, seekId: id } };
    }
    const [value, name, id] = key;
    const v = type === 'datetime' ? 'datetime($seekValue)' : '$seekValue';
    return {
      clause: `a.${sort.field} ${cmp}= ${v} AND (a.${sort.field} ${cmp} ${v} OR a.displayName ${cmp} $seekName OR (a.displayName = $seekName AND a.id ${cmp} $seekId))`,
      params: { seekValue: value, seekName: name, seekId: id },
    };
  }

  /** Every asset that passes the filter, in (displayName, id) order, read as the consumer takes them. */
  async *streamInNameOrder(filter: AssetFilter): AsyncGenerator<AssetNode[]> {
    const { filters, params } = whereOf(filter);
    for await (const rows of this.graph.stream<{ asset: unknown[] }>('assets/stream-assets', params, { filters }, STREAM_BATCH)) yield rows.map((r) => toAssetNode(r.asset));
  }

  async ids(filter: AssetFilter): Promise<string[]> {
    const { filters, params } = whereOf(filter);
    return (await this.graph.read<{ id: string }>('assets/find-asset-ids', params, { filters })).map((r) => r.id);
  }

  /**
   * The number of assets that pass the filter. Without a filter, or with categories alone, it
   * comes from the count store (no scan); otherwise from a count over the filter's indexes, reused
   * while the graph has not changed since (the bookmark of the read that made it says so).
   */
  async count(filter: AssetFilter): Promise<number> {
    const fromStore = this.storeTotal(filter);
    if (fromStore) {
      const [row] = await this.graph.read<{ total: number }>('assets/count-assets-in-store', {}, { total: fromStore });
      return row?.total ?? 0;
    }
    return this.counts.get(JSON.stringify(filter), () => this.countRead(filter));
  }

  /** The count-store expression of a total that needs no scan (no filter, or categories alone). */
  private storeTotal(filter: AssetFilter): string | undefined {
    const keys = Object.entries(filter).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)).map(([k]) => k);
    if (keys.length === 0) return 'COUNT { MATCH (:Asset) }';
    if (keys.length === 1 && keys[0] === 'categories') return (filter.categories as Category[]).map((c) => `COUNT { MATCH (:${CATEGORIES[c].nodeLabel}) }`).join(' + ');
    return undefined;
  }

  private async countRead(filter: AssetFilter): Promise<Versioned<number>> {
    const { filters, params } = whereOf(filter);
    const { rows: [row], bookmark } = await this.graph.readWithBookmark<{ total: number }>('assets/count-assets', params, { filters });
    return { value: row?.total ?? 0, version: bookmark };
  }

  async get(id: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.read<{ asset: unknown[] }>('assets/get-asset', { id });
    return row && toAssetNode(row.asset);
  }

  /** The parent edge of each asset by its type's rule: one query whatever the number of assets. */
  /** The edge to each asset's parent, by the edges active now, or at `at` (epoch milliseconds). */
  async parentEdges(assets: { id: string; assetType: AssetType }[], at?: number): Promise<ParentEdge[]> {
    const rules = assets.flatMap((a) => {
      const rule = parentRule(a.assetType);
      return rule ? [{ id: a.id, via: rule.via, direction: rule.direction, parentKinds: rule.parentKinds }] : [];
    });
    if (rules.length === 0) return [];
    return at === undefined
      ? this.graph.read<ParentEdge & Record<string, unknown>>('assets/find-parent-edges', { rules }, { active: ACTIVE_NOW })
      : this.graph.read<ParentEdge & Record<string, unknown>>('assets/find-parent-edges', { rules, at: int(at) }, { active: ACTIVE_AT });
  }

  async summaries(ids: string[]): Promise<AssetSummary[]> {
    if (ids.length === 0) return [];
    const rows = await this.graph.read<{ asset: AssetSummary }>('assets/find-asset-summaries', { ids });
    return rows.map((r) => r.asset);
  }

  /** `actor`: who, in the asset's status log (inventory/status-log.ts). */
  async decommission(id: string, actor: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.write<{ asset: unknown[] }>('assets/decommission-asset', { id, actor });
    return row && toAssetNode(row.asset);
  }

  async reactivate(id: string, actor: string): Promise<AssetNode | undefined> {
    const [row] = await this.graph.write<{ asset: unknown[] }>('assets/reactivate-asset', { id, actor });
    return row && toAssetNode(row.asset);
  }

  /** The custom attribute keys of each of these types in the current data (a type no asset holds keys for is left out). */
  async customAttributeKeys(types: string[]): Promise<Map<string, string[]>> {
    return this.attributeKeys.get(JSON.stringify(types), async () => {
      const { rows, bookmark } = await this.graph.readWithBookmark<{ type: string; keys: string[] }>('assets/find-custom-attribute-keys', { types });
      return { value: new Map(rows.map((r) => [r.type, r.keys])), version: bookmark };
    });
  }

  /** The distinct values of `field` with the number of assets holding each, most common first: at most `limit`. */
  async fieldValues(field: ValueField, limit: number): Promise<{ value: string; count: number }[]> {
    return this.valueLists.get(`${field}:${limit}`, async () => {
      const { rows, bookmark } = await this.graph.readWithBookmark<{ value: string; count: number }>(
        'assets/count-asset-field-values',
        { limit: int(limit) },
        // A property of a fixed list, never the request's text.
        { property: `a.${VALUE_FIELDS[field]}` },
      );
      return { value: rows.map((r) => ({ value: String(r.value), count: Number(r.count) })), version: bookmark };
    });
  }
}
