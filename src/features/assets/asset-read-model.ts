// Asset rows as the API shows them (docs/interface.md §2.2): node properties with labels and the derived
// parent block (2.4), resolved for a whole page with two queries (edges, then parent assets).
// Sub-record rows appear as synthesized assets (2.11) when the type filter asks for them: the
// listing pages over graph rows first, then each synthesized type in order (docs/interface.md, decision 5).
import { createHash } from 'node:crypto';
import { BadRequestError } from '../../platform/errors.js';
import type { components } from '../../platform/http/api-types.js';
import { pageWindow, readAcrossParts, windowed, type ListPart, type PageRequest, type PageWindow, type WindowedRows } from '../../platform/http/pagination.js';
import { toIso } from '../../platform/neo4j/neo4j-graph.js';
import { AssetGraphRepository, type AssetWithParent } from './asset-graph-repository.js';
import type { AssetFilter, AssetNode, AssetReads, AssetSort, AssetSummary, ValueField } from './asset-summary.js';
import type { AssetAt, PastAssets } from '../history/past-assets.js';
import { FACT_FIELDS } from '../inventory/asset-facts.js';
import { categoryOf, isVirtual, parentRule, SYNTHESIZED_TYPES, typeLabel, type AssetType } from '../inventory/asset-taxonomy.js';
import { CATEGORIES, type Category } from '../inventory/asset-categories.js';
import type { RelationshipType } from '../inventory/relationship-types.js';
import type { SubRecordColumn } from '../inventory/sub-record-kind.js';
import { kindOfType } from '../inventory/sub-record-kinds.js';
import type { KeyedRow, SynthesizedAssetStore, SynthesizedFilter, SynthesizedRow, SynthesizedType } from './synthesized-asset-store.js';

export type { SynthesizedFilter };

type ApiAsset = components['schemas']['Asset'];

/** A parent block as api.yaml gives it, found by a relationship type. */
export type ParentReference = Omit<components['schemas']['ParentReference'], 'via'> & { via: RelationshipType };

/** An asset as api.yaml gives it, its type and category the taxonomy's. */
export type AssetRow = Omit<ApiAsset, 'assetType' | 'assetCategory' | 'parent'> & { assetType: AssetType; assetCategory: Category; parent?: ParentReference };

type ConnectedTo = NonNullable<ApiAsset['connectedTo']>[number];

const SYNTHESIZED = new Set<string>(SYNTHESIZED_TYPES);
const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The value of the column that a type's rows also show as this field (SubRecordColumn.shownAs), if one is. */
function shownValue(type: SynthesizedType, row: SynthesizedRow, field: NonNullable<SubRecordColumn['shownAs']>): unknown {
  const column = kindOfType(type).columns.find((c) => c.shownAs === field);
  return column && row[column.name];
}
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
// A list field holds a column's one value (an interface's MAC) as a list of one.
const list = (value: unknown): string[] => (Array.isArray(value) ? value : typeof value === 'string' && value ? [value] : []);

/** The type-specific fields of a sub-record (customAttributes, snake_case as in docs/interface.md §2.11). */
function customAttributesOf(row: SynthesizedRow): Record<string, unknown> {
  const { id: _id, assetId: _a, name: _n, firstSeenAt: _f, lastSeenAt: _l, ...rest } = row;
  return rest;
}

export function toAssetRow(node: AssetNode): AssetRow {
  const type = node.assetType;
  const category = categoryOf(type);
  return {
    id: node.id,
    displayName: node.displayName,
    assetType: type,
    assetCategory: category,
    assetCategoryLabel: CATEGORIES[category].label,
    assetSubtype: type,
    assetSubtypeLabel: typeLabel(type),
    virtual: isVirtual(type),
    status: node.status,
    vendor: node.vendor ?? null,
    model: node.model ?? null,
    customAttributes: node.customAttributes ?? '{}',
    consecutiveScanFailures: node.consecutiveScanFailures ?? 0,
    lastScanOutcome: node.lastScanOutcome ?? null,
    lastScanAt: toIso(node.lastScanAt),
    hostname: node.hostname ?? null,
    fqdn: node.fqdn ?? null,
    site: node.site ?? null,
    environment: node.environment ?? null,
    serialNumber: node.serialNumber ?? null,
    macAddresses: node.macAddresses ?? [],
    ipAddresses: node.ipAddresses ?? [],
    staleSince: toIso(node.staleSince),
    decommissionedAt: toIso(node.decommissionedAt),
    firstSeenAt: toIso(node.firstSeenAt),
    lastSeenAt: toIso(node.lastSeenAt),
    updatedAt: toIso(node.updatedAt),
    sources: node.sources ?? [],
  };
}

/**
 * The link of a synthesized row to its host, where an edge is asked for (its relationships, the
 * topology): not stored, so its id is derived from the row's (a name-based UUID, stable).
 */
export function parentLinkOf(row: AssetRow): { id: string; type: RelationshipType; source: string; target: string } | undefined {
  const parent = row.parent;
  if (!parent) return undefined;
  const hash = createHash('sha1').update(`parent-link:${row.id}`).digest('hex');
  const id = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-${((parseInt(hash.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hash.slice(18, 20)}-${hash.slice(20, 32)}`;
  // RUNS_ON points at the host; HAS_INTERFACE from it.
  return parent.via === 'HAS_INTERFACE' ? { id, type: parent.via, source: parent.id, target: row.id } : { id, type: parent.via, source: row.id, target: parent.id };
}

/**
 * An asset's node as it was: its facts then (a field no source held then is null), its status then,
 * and none of what history does not keep (seen and scan times, failures).
 */
function nodeAt(node: AssetNode, was: AssetAt): AssetNode {
  const { fields, customAttributes } = was.resolved;
  return {
    ...node,
    ...Object.fromEntries(FACT_FIELDS.map((f) => [f, null])),
    ...fields,
    displayName: fields.displayName ?? node.displayName,
    assetType: fields.assetType ?? node.assetType,
    customAttributes: JSON.stringify(customAttributes),
    status: was.status as AssetNode['status'],
    staleSince: was.staleSince,
    decommissionedAt: was.decommissionedAt,
    updatedAt: was.changedAt,
    lastSeenAt: null,
    lastScanAt: null,
    lastScanOutcome: null,
    consecutiveScanFailures: 0,
  };
}

function toRowWithParent({ node, parent }: AssetWithParent): AssetRow {
  const row = toAssetRow(node);
  if (parent) row.parent = parent;
  return row;
}

/**
 * What an asset filter selects of synthesized rows (the listing's and the exports'): q also matches
 * rows of hosts whose name matches; site and environment select hosts.
 */
export async function synthesizedFilterOf(assets: Pick<AssetReads, 'ids'>, filter: AssetFilter): Promise<SynthesizedFilter> {
  const q = filter.q?.toLowerCase();
  const byPlace = filter.sites?.length || filter.environments?.length;
  const placed = byPlace ? await assets.ids({ sites: filter.sites, environments: filter.environments }) : undefined;
  const host = filter.hostId;
  return {
    q,
    hostsMatchingQ: q ? await assets.ids({ q }) : undefined,
    hostIds: host !== undefined ? (placed && !placed.includes(host) ? [] : [host]) : placed,
  };
}

export class AssetReadModel {
  constructor(
    private readonly assets: AssetGraphRepository,
    private readonly synthesized: SynthesizedAssetStore,
    private readonly past: PastAssets,
  ) {}

  /**
   * The distinct values of a field with their counts (a pick list's choices), most common first: at
   * most `limit`, and whether more were left out. Graph assets only: a synthesized row has its host's.
   */
  async values(field: ValueField, limit: number): Promise<{ rows: { value: string; count: number }[]; capped: boolean }> {
    const found = await this.assets.fieldValues(field, limit + 1);
    return { rows: found.slice(0, limit), capped: found.length > limit };
  }

  /** Synthesized rows with their host as parent and, for the ends of connections (interfaces), what they are connected to. */
  private async synthesizedRows(type: SynthesizedType, rows: SynthesizedRow[]): Promise<AssetRow[]> {
    const connected = kindOfType(type).connected;
    const connections = connected ? await this.synthesized.connections(rows.map((r) => r.id)) : [];
    const hostIds = [...new Set([...rows.map((r) => r.assetId), ...connections.map((c) => c.otherAssetId)])];
    const hosts = new Map((await this.assets.summaries(hostIds)).map((h) => [h.id, h]));
    const category = categoryOf(type);
    const via = parentRule(type)?.via[0] as RelationshipType;
    return rows.map((row) => {
      const custom = customAttributesOf(row);
      const host = hosts.get(row.assetId);
      const out: AssetRow = {
        id: row.id,
        displayName: row.name,
        assetType: type,
        assetCategory: category,
        assetCategoryLabel: CATEGORIES[category].label,
        assetSubtype: type,
        assetSubtypeLabel: typeLabel(type),
        virtual: null,
        status: 'ACTIVE',
        vendor: text(shownValue(type, row, 'vendor')),
        model: text(shownValue(type, row, 'model')),
        customAttributes: JSON.stringify(custom),
        consecutiveScanFailures: 0,
        lastScanOutcome: null,
        lastScanAt: null,
        macAddresses: list(shownValue(type, row, 'macAddresses')),
        ipAddresses: list(shownValue(type, row, 'ipAddresses')),
        firstSeenAt: iso(row.firstSeenAt),
        lastSeenAt: iso(row.lastSeenAt),
      };
      if (connected) {
        out.connectedTo = connections
          .filter((c) => c.interfaceId === row.id)
          .map((c): ConnectedTo => ({
            assetId: c.otherAssetId,
            assetDisplayName: hosts.get(c.otherAssetId)?.displayName ?? null,
            interfaceId: c.otherInterfaceId,
            port: c.otherPort,
            discoveredVia: c.discoveredVia,
            confidence: c.confidence,
          }));
      }
      if (host) out.parent = { id: host.id, displayName: host.displayName, assetType: host.assetType, assetCategory: host.assetCategory, via };
      return out;
    });
  }

  /** Adds the parent block to rows that have a parent (omitted entirely otherwise). */
  async withParents(nodes: AssetNode[]): Promise<AssetRow[]> {
    const edges = await this.assets.parentEdges(nodes);
    const found = edges.filter((e) => e.parentId !== null);
    const parents = new Map((await this.assets.summaries([...new Set(found.map((e) => e.parentId))])).map((p) => [p.id, p]));
    const byChild = new Map(found.map((e) => [e.id, e]));
    return nodes.map((node) => {
      const row = toAssetRow(node);
      const edge = byChild.get(node.id);
      const parent = edge && parents.get(edge.parentId);
      if (parent && edge) row.parent = { id: parent.id, displayName: parent.displayName, assetType: parent.assetType, assetCategory: parent.assetCategory, via: edge.via };
      return row;
    });
  }

  /**
   * A page of the listing and its total. Graph assets alone are read through a keyset window when
   * their sort allows it (the answer then carries what the cursor links need), the total beside
   * the page. A listing of synthesized rows, alone or after graph rows, pages by offset over the
   * concatenation of its parts.
   */
  async page(filter: AssetFilter, sort: AssetSort, request: PageRequest): Promise<{ rows: AssetRow[]; total: number; nav?: WindowedRows<AssetRow> }> {
    const requested = filter.types;
    const graphTypes = requested?.filter((t) => !SYNTHESIZED.has(t));
    const synthTypes = SYNTHESIZED_TYPES.filter(
      (t) =>
        requested?.includes(t) &&
        (!filter.categories?.length || filter.categories.includes(categoryOf(t))) &&
        (!filter.statuses?.length || filter.statuses.includes('ACTIVE')),
    );
    const graphFilter = { ...filter, types: graphTypes };
    if (filter.hostId !== undefined && (synthTypes.length === 0 || graphTypes?.length)) {
      throw new BadRequestError(`hostId selects the rows of a host among synthesized types only (${SYNTHESIZED_TYPES.join(', ')}).`, [{ path: 'query.hostId', message: 'needs synthesized types only' }]);
    }
    if (synthTypes.length && filter.updatedAfter !== undefined) {
      throw new BadRequestError('updatedAfter applies to graph assets only: synthesized rows keep no change times.', [{ path: 'query.updatedAfter', message: 'not accepted with synthesized types' }]);
    }
    if (synthTypes.length === 0) return this.graphPage(requested && !graphTypes?.length ? undefined : graphFilter, sort, request);

    // Graph rows (when the type asks for graph types too), then each synthesized type: parts of
    // one list, whose keys name their part, with one total.
    const seeks = AssetGraphRepository.seeks(sort);
    if (request.cursor && !seeks) throw new BadRequestError('This sort order pages by page number only.', [{ path: 'query.cursor', message: `not accepted with sort=${sort.field}` }]);
    const synthFilter = await synthesizedFilterOf(this.assets, filter);
    for (const type of synthTypes) this.synthesized.assertSortable(type, sort, filter.hostId !== undefined);
    const withGraph = !requested || Boolean(graphTypes?.length);
    const sizes = await Promise.all([
      ...(withGraph ? [this.assets.count(graphFilter)] : []),
      ...synthTypes.map((type) => this.synthesized.count(type, synthFilter)),
    ]);
    const parts: ListPart<AssetRow>[] = [
      ...(withGraph ? [{
        name: 'GRAPH',
        read: async (window: PageWindow) => (await this.assets.page(graphFilter, sort, window)).map((r) => ({ item: toRowWithParent(r), key: AssetGraphRepository.keyOf(r.node, sort) })),
      }] : []),
      ...synthTypes.map((type) => ({
        name: type,
        read: async (window: PageWindow) => {
          const keyed = await this.synthesized.rows(type, synthFilter, sort, window);
          const rows = await this.synthesizedRows(type, keyed.map((k) => k.row));
          return rows.map((item, i) => ({ item, key: (keyed[i] as KeyedRow).key }));
        },
      })),
    ].map((part, i) => ({ ...part, size: sizes[i] as number }));
    const total = sizes.reduce((a, b) => a + b, 0);
    const window = pageWindow(request, total);
    const page = windowed(window, await readAcrossParts(parts, window), (r) => r.key);
    const rows = page.rows.map((r) => r.item);
    return { rows, total, nav: seeks ? { ...page, rows } : { rows, more: page.more } };
  }

  /** Graph assets only (none when `filter` is undefined: the types asked for are all synthesized and none passed). */
  private async graphPage(filter: AssetFilter | undefined, sort: AssetSort, request: PageRequest): Promise<{ rows: AssetRow[]; total: number; nav?: WindowedRows<AssetRow> }> {
    if (!filter) return { rows: [], total: 0 };
    const seeks = AssetGraphRepository.seeks(sort);
    if (request.cursor && !seeks) throw new BadRequestError('This sort order pages by page number only.', [{ path: 'query.cursor', message: `not accepted with sort=${sort.field}` }]);
    // The last page needs the total to know its size; any other reads it with the page.
    const last = request.cursor !== undefined && 'tail' in request.cursor ? await this.assets.count(filter) : undefined;
    const window = pageWindow(request, last);
    const { rows: read, total } = last !== undefined ? { rows: await this.assets.page(filter, sort, window), total: last } : await this.assets.pageAndTotal(filter, sort, window);
    const page = windowed(window, read, (r) => AssetGraphRepository.keyOf(r.node, sort));
    const rows = page.rows.map(toRowWithParent);
    return { rows, total, nav: seeks ? { ...page, rows } : { rows, more: page.more } };
  }

  /** The row of a synthesized asset (with its host as parent), or undefined for any other id. */
  async synthesizedRow(id: string): Promise<AssetRow | undefined> {
    const found = await this.synthesized.find(id);
    return found ? (await this.synthesizedRows(found.type, [found.row]))[0] : undefined;
  }

  /** Whether an asset (graph or synthesized) has this id, without building its row. */
  async exists(id: string): Promise<boolean> {
    return (await this.assets.get(id)) !== undefined || (await this.synthesized.find(id)) !== undefined;
  }

  /**
   * The asset as it was at `at` (its facts, status and parent then), or undefined where it did not
   * exist then; a synthesized row with its values then. 410 before the history's horizon.
   */
  async getAt(id: string, at: Date): Promise<AssetRow | undefined> {
    await this.past.requireKept(at);
    const node = await this.assets.get(id);
    if (!node) return this.synthesizedRowAt(id, at);
    const was = (await this.past.assetsAt([id], at)).get(id);
    if (!was) return undefined;
    const row = toAssetRow(nodeAt(node, was));
    const [edge] = (await this.assets.parentEdges([row], at.getTime())).filter((e) => e.parentId !== null);
    const [parent] = edge ? await this.summariesAt(await this.assets.summaries([edge.parentId]), at) : [];
    if (edge && parent) row.parent = { id: parent.id, displayName: parent.displayName, assetType: parent.assetType as AssetType, assetCategory: parent.assetCategory as Category, via: edge.via };
    return row;
  }

  /**
   * Assets as they were at `at` (name, type, category and status then), from their summaries now;
   * those that did not exist then are left out. `statusThen`: their status is already the one they
   * had then (null: not yet there), as an as-of walk gives it.
   */
  async summariesAt<S extends AssetSummary>(summaries: S[], at: Date, statusThen = false): Promise<S[]> {
    const ids = summaries.map((s) => s.id);
    const [names, statuses] = statusThen
      ? [await this.past.namesAt(ids, at), new Map(summaries.flatMap((s) => (s.status ? [[s.id, s.status] as const] : [])))]
      : await this.past.assetsAt(ids, at, ['displayName', 'assetType']).then((then) => [
        new Map([...then].map(([id, was]) => [id, was.resolved.fields])),
        new Map([...then].map(([id, was]) => [id, was.status])),
      ] as const);
    return summaries.flatMap((s) => {
      const status = statuses.get(s.id);
      if (!status) return [];
      const type = names.get(s.id)?.assetType ?? (s.assetType as AssetType);
      return [{ ...s, displayName: names.get(s.id)?.displayName ?? s.displayName, assetType: type, assetCategory: categoryOf(type), status }];
    });
  }

  /** A synthesized row with the values it had at `at`, or undefined where it was not yet seen then. */
  private async synthesizedRowAt(id: string, at: Date): Promise<AssetRow | undefined> {
    const found = await this.synthesized.find(id);
    if (!found || new Date(found.row.firstSeenAt) > at) return undefined;
    const columns = kindOfType(found.type).columns;
    for (const [api, value] of await this.past.valuesBefore(id, at)) {
      const column = columns.find((c) => c.api === api);
      if (column) found.row[column.name] = value;
    }
    return (await this.synthesizedRows(found.type, [found.row]))[0];
  }

  async get(id: string): Promise<AssetRow | undefined> {
    const node = await this.assets.get(id);
    if (node) return (await this.withParents([node]))[0];
    const found = await this.synthesized.find(id);
    return found ? (await this.synthesizedRows(found.type, [found.row]))[0] : undefined;
  }
}
