// Bulk import: a bundle of assets, relationships and sub-records goes through the same steps as
// discovery: validate, reconcile identity (PostgreSQL identity index), load the graph, load the
// sub-records. Assets are taken parents first (a child's identity may depend on its parent's id).
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { BadRequestError, type FieldError } from '../../platform/errors.js';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { categoryOf, GRAPH_TYPES, parentRule, type AssetType } from '../inventory/asset-taxonomy.js';
import { CATEGORIES, type Category } from '../inventory/asset-categories.js';
import { RELATIONSHIP_TYPES, type RelationshipType } from '../inventory/relationship-types.js';
import { identifierKey, identifiersOf, normaliseIp, normaliseMac, resolveIdentity, type KnownIdentifier, type MatchRule } from '../inventory/asset-identity.js';
import { FACT_FIELDS, factValues, importSource, resolve, resolvedType, type FactSet, type ResolvedAsset } from '../inventory/asset-facts.js';
import type { AssetNameStore } from '../inventory/asset-name-store.js';
import type { FactStore, FactWrite } from '../inventory/fact-store.js';
import type { IdentifierRow, IdentityStore } from '../inventory/identity-store.js';
import type { SubRecordBundle, SubRecordCounts, SubRecordLoader } from '../inventory/sub-record-loader.js';
import type { LoadGraphRepository } from '../inventory/load-graph-repository.js';
import type { AssetWrite } from '../inventory/graph-writes.js';

export interface BundleAsset {
  key: string;
  assetType: AssetType;
  displayName?: string;
  hostname?: string;
  fqdn?: string;
  site?: string;
  environment?: string;
  vendor?: string;
  model?: string;
  serialNumber?: string;
  macAddresses?: string[];
  ipAddresses?: string[];
  customAttributes?: Record<string, unknown>;
}

export interface BundleRelationship {
  type: RelationshipType;
  source: string;
  target: string;
}

export interface ImportBundle extends SubRecordBundle {
  source: string;
  /** Fields (or custom.<key>) whose value this source owns: they outrank discovery's. */
  owns?: string[];
  observedAt?: string;
  assets: BundleAsset[];
  relationships?: BundleRelationship[];
}

export interface ImportedAsset {
  key: string;
  id: string;
  created: boolean;
  matchedBy: MatchRule | null;
}

export interface ImportResult {
  assets: ImportedAsset[];
  relationships: number;
  created: number;
  updated: number;
  subRecords: SubRecordCounts;
}

/** How far from now an import's observedAt may lie. */
export interface ObservationWindow {
  /** Older observations would be dropped at the next sweep: the shorter of the fact aging and the sub-record retention, in days. */
  maxAgeDays: number;
  /** How far ahead of the service's clock a sender's may be. */
  clockSkewSeconds: number;
}

/** The most bytes of an asset's customAttributes as JSON (UTF-8): every asset read carries them. */
export const CUSTOM_ATTRIBUTES_MAX_BYTES = 65_536;

// Rows per PostgreSQL transaction and per asset graph write (relationships: twice as many). A
// graph write of 1,000 new assets costs Neo4j about a tenth less CPU per asset than two of 500.
export const IMPORT_BATCH_SIZE = 1000;
const AGED_FACTS_BATCH = 10_000;
// What aging may take off an asset: every fact field but its type and display name.
const REMOVABLE_FIELDS = FACT_FIELDS.filter((f) => f !== 'assetType' && f !== 'displayName');
const GRAPH_TYPE_SET = new Set<string>(GRAPH_TYPES);
const RELATIONSHIP_TYPE_SET = new Set<string>(RELATIONSHIP_TYPES);

// 00:50:56:aa:00:01, 00-50-56-AA-00-01, 005056aa0001, 0050.56aa.0001.
const MAC_ADDRESS = /^(?:[0-9a-f]{2}([:-])(?:[0-9a-f]{2}\1){4}[0-9a-f]{2}|[0-9a-f]{12}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4})$/i;
const isMacAddress = (value: string) => MAC_ADDRESS.test(value.trim());
const isIpAddress = (value: string) => net.isIP(value.trim()) !== 0;
const isInterfaceAddress = (value: string) => {
  const [ip = '', prefix, ...rest] = value.trim().split('/');
  const family = net.isIP(ip);
  return family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)));
};

/**
 * Every problem of a bundle at once, by path: unknown types, duplicate and dangling keys; for a
 * caller's bundle (`window` given) also addresses, the size of custom attributes and the
 * observation time.
 */
function validateBundle(bundle: ImportBundle, window: ObservationWindow | undefined): void {
  const errors: FieldError[] = [];
  const firstIndex = new Map<string, number>();
  bundle.assets.forEach((asset, i) => {
    if (!GRAPH_TYPE_SET.has(asset.assetType)) errors.push({ path: `body.assets.${i}.assetType`, message: `${asset.assetType} is not an asset type that can be imported` });
    const seen = firstIndex.get(asset.key);
    if (seen !== undefined) errors.push({ path: `body.assets.${i}.key`, message: `duplicate key "${asset.key}" (first at assets.${seen})` });
    else firstIndex.set(asset.key, i);
  });
  (bundle.relationships ?? []).forEach((rel, i) => {
    if (!RELATIONSHIP_TYPE_SET.has(rel.type)) errors.push({ path: `body.relationships.${i}.type`, message: `${rel.type} is not a relationship type` });
    for (const end of ['source', 'target'] as const) {
      if (!firstIndex.has(rel[end])) errors.push({ path: `body.relationships.${i}.${end}`, message: `no asset with key "${rel[end]}" in the bundle` });
    }
    if (rel.source === rel.target) errors.push({ path: `body.relationships.${i}`, message: 'an asset cannot be related to itself' });
  });
  const types = new Map(bundle.assets.map((a) => [a.key, a.assetType]));
  const keyed: [string, { asset: string }[] | undefined][] = [
    ['software', bundle.software], ['services', bundle.services], ['processes', bundle.processes],
    ['interfaces', bundle.interfaces], ['neighbors', bundle.neighbors], ['fdb', bundle.fdb],
  ];
  for (const [array, entries] of keyed) {
    (entries ?? []).forEach((entry, i) => {
      if (!types.has(entry.asset)) errors.push({ path: `body.${array}.${i}.asset`, message: `no asset with key "${entry.asset}" in the bundle` });
    });
  }
  (bundle.processes ?? []).forEach((p, i) => {
    if (p.software !== undefined && types.get(p.software) !== 'SOFTWARE') errors.push({ path: `body.processes.${i}.software`, message: `"${p.software}" is not the key of a SOFTWARE asset of the bundle` });
  });
  (bundle.neighbors ?? []).forEach((n, i) => {
    if (n.remoteAsset !== undefined && !types.has(n.remoteAsset)) errors.push({ path: `body.neighbors.${i}.remoteAsset`, message: `no asset with key "${n.remoteAsset}" in the bundle` });
  });
  if (window) {
    checkAddresses(bundle, errors);
    checkCallerBounds(bundle, window, errors);
  }
  if (errors.length) throw new BadRequestError(`The bundle has ${errors.length} invalid entr${errors.length === 1 ? 'y' : 'ies'}; nothing was imported.`, errors);
}

/** Every address of a bundle that is none, by path: a MAC in any usual notation (normalised later), an IP address. */
function checkAddresses(bundle: ImportBundle, errors: FieldError[]): void {
  const address = (path: string, value: string | undefined, valid: (v: string) => boolean, what: string) => {
    if (value !== undefined && !valid(value)) errors.push({ path, message: `${JSON.stringify(value.slice(0, 64))} is not ${what}` });
  };
  bundle.assets.forEach((asset, i) => {
    asset.macAddresses?.forEach((mac, k) => address(`body.assets.${i}.macAddresses.${k}`, mac, isMacAddress, 'a MAC address'));
    asset.ipAddresses?.forEach((ip, k) => address(`body.assets.${i}.ipAddresses.${k}`, ip, isIpAddress, 'an IP address'));
  });
  (bundle.interfaces ?? []).forEach((nic, i) => {
    address(`body.interfaces.${i}.macAddress`, nic.macAddress ?? undefined, isMacAddress, 'a MAC address');
    nic.ipAddresses?.forEach((ip, k) => address(`body.interfaces.${i}.ipAddresses.${k}`, ip, isInterfaceAddress, 'an IP address (with an optional /prefix)'));
  });
  (bundle.fdb ?? []).forEach((e, i) => address(`body.fdb.${i}.macAddress`, e.macAddress, isMacAddress, 'a MAC address'));
}

/** What a schema cannot say of a caller's bundle: customAttributes by their encoded size, observedAt against the clock. */
function checkCallerBounds(bundle: ImportBundle, window: ObservationWindow, errors: FieldError[]): void {
  bundle.assets.forEach((asset, i) => {
    const bytes = asset.customAttributes === undefined ? 0 : Buffer.byteLength(JSON.stringify(asset.customAttributes));
    if (bytes > CUSTOM_ATTRIBUTES_MAX_BYTES) errors.push({ path: `body.assets.${i}.customAttributes`, message: `is ${bytes} bytes as JSON; the most is ${CUSTOM_ATTRIBUTES_MAX_BYTES}` });
  });
  if (bundle.observedAt === undefined) return;
  const now = Date.now();
  const at = Date.parse(bundle.observedAt);
  if (at < now - window.maxAgeDays * 86_400_000 || at > now + window.clockSkewSeconds * 1000) {
    errors.push({
      path: 'body.observedAt',
      message: `must be within the last ${window.maxAgeDays} days (older facts and sub-records go at the next sweep: service.aging.inactive-after-days, service.retention.sub-asset-days) and at most ${window.clockSkewSeconds} s ahead of the service's clock (service.import.clock-skew-seconds)`,
    });
  }
}

/** The key of each asset's parent in the bundle, by the parent rule of its type. */
function parentKeys(bundle: ImportBundle): Map<string, string> {
  const types = new Map(bundle.assets.map((a) => [a.key, a.assetType]));
  const parents = new Map<string, string>();
  for (const rel of bundle.relationships ?? []) {
    for (const [child, parent, direction] of [[rel.target, rel.source, 'IN'], [rel.source, rel.target, 'OUT']] as const) {
      const rule = parentRule(types.get(child) as AssetType);
      if (rule && rule.direction === direction && rule.via.includes(rel.type) && !parents.has(child)) parents.set(child, parent);
    }
  }
  return parents;
}

/** Assets grouped by depth in the bundle's parent chains (roots first). */
function levels(bundle: ImportBundle, parents: Map<string, string>): BundleAsset[][] {
  const depth = new Map<string, number>();
  const depthOf = (key: string, trail: Set<string>): number => {
    const known = depth.get(key);
    if (known !== undefined) return known;
    const parent = parents.get(key);
    const d = parent && !trail.has(parent) ? depthOf(parent, new Set(trail).add(key)) + 1 : 0;
    depth.set(key, d);
    return d;
  };
  const out: BundleAsset[][] = [];
  for (const asset of bundle.assets) (out[depthOf(asset.key, new Set())] ??= []).push(asset);
  return out.filter(Boolean);
}

/** An observed value as facts keep it: MACs and addresses normalised, an FQDN in lower case, a serial trimmed. */
function normalisedValue(field: string, value: unknown): unknown {
  if (field === 'macAddresses' && Array.isArray(value)) return value.map((m: string) => normaliseMac(m) ?? m.toLowerCase());
  if (field === 'ipAddresses' && Array.isArray(value)) return value.map((ip: string) => normaliseIp(ip) ?? ip);
  if (field === 'fqdn' && typeof value === 'string') return value.toLowerCase();
  if (field === 'serialNumber' && typeof value === 'string') return value.trim();
  return value;
}

/** The node properties of what an asset's facts resolve to (its type apart); a display name only where a fact gives one. */
function resolvedProps(resolved: ResolvedAsset): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const field of FACT_FIELDS) if (field !== 'assetType' && resolved.fields[field] !== undefined) props[field] = resolved.fields[field];
  const displayName = resolved.fields.displayName ?? resolved.fields.hostname ?? resolved.fields.fqdn;
  if (displayName !== undefined) props.displayName = displayName;
  props.customAttributes = JSON.stringify(resolved.customAttributes);
  props.customAttributeKeys = Object.keys(resolved.customAttributes).sort();
  return props;
}

/** The graph write of an asset from the values its facts resolve to; the bundle's entry stands in where no fact says. */
function toWrite(asset: BundleAsset, id: string, resolved: ResolvedAsset): AssetWrite {
  const type = resolvedType(resolved);
  const props = resolvedProps(resolved);
  props.displayName ??= asset.displayName ?? asset.hostname ?? asset.fqdn ?? asset.key;
  const kindOf = (t: AssetType) => ({ category: categoryOf(t), nodeLabel: CATEGORIES[categoryOf(t)].nodeLabel as string });
  return {
    id,
    type: type ?? null,
    ...(type ? kindOf(type) : { category: null, nodeLabel: null }),
    fallbackType: asset.assetType,
    fallbackCategory: kindOf(asset.assetType).category,
    fallbackLabel: kindOf(asset.assetType).nodeLabel,
    fallbackName: props.displayName as string,
    props,
  };
}

export class ImportService {
  constructor(
    private readonly db: Database,
    private readonly identities: IdentityStore,
    private readonly facts: FactStore,
    private readonly names: AssetNameStore,
    private readonly load: LoadGraphRepository,
    private readonly subRecords: SubRecordLoader,
    private readonly audit: AuditLog,
    private readonly window: ObservationWindow,
  ) {}

  /**
   * Drops the facts no source has reported since `cutoff` (aging), and gives the assets that lost
   * some the values their remaining facts resolve to; a field no fact supports any more is removed
   * (the type and the display name stay). Answers the number of assets changed.
   */
  async dropAgedFacts(cutoff: Date): Promise<number> {
    let assets = 0;
    for (;;) {
      const affected = await this.facts.dropOlder(cutoff, AGED_FACTS_BATCH);
      if (affected.length === 0) return assets;
      const remaining = await this.facts.of(affected);
      const rows = affected.map((id) => {
        const props = resolvedProps(resolve(remaining.get(id) ?? []));
        return { id, props, removed: REMOVABLE_FIELDS.filter((f) => props[f] === undefined) };
      });
      await this.load.setResolved(rows);
      await this.names.upsert(rows.flatMap((r) => (r.props.displayName ? [{ assetId: r.id, displayName: r.props.displayName as string, hostname: (r.props.hostname as string | undefined) ?? null }] : [])), { exact: true });
      assets += affected.length;
    }
  }

  /**
   * Loads a bundle. Each asset's facts are those of its entry, as the bundle's source reported
   * them, unless `factSets` gives them by key (discovery: one set per method that observed it).
   */
  async import(actor: Actor, bundle: ImportBundle, { factSets }: { factSets?: Map<string, FactSet[]> } = {}): Promise<ImportResult> {
    // A caller's bundle is checked whole; discovery (which gives fact sets) reports what hosts
    // hold, odd addresses included (an InfiniBand address), at its own time, and must not fail a run on one.
    validateBundle(bundle, factSets === undefined ? this.window : undefined);
    const owned = new Set(bundle.owns ?? []);
    const factsOf = (asset: BundleAsset): FactSet[] => factSets?.get(asset.key) ?? [{ source: importSource(bundle.source), values: factValues(asset) }];
    const observedAt = bundle.observedAt ?? new Date().toISOString();
    const parents = parentKeys(bundle);
    const ids = new Map<string, string>();
    const results: ImportedAsset[] = [];
    // Identifiers given out in this import, so that two entries for one asset become one.
    const local = new Map<string, KnownIdentifier>();

    // Each graph write runs while the next batch is reconciled in PostgreSQL; an asset's identity
    // rows and names are always written before its graph write. The graph writes are gathered
    // across levels into batches of full size (a host and its applications are one write): each
    // write is a transaction of its own, and graph writes take the change counter one at a time.
    let graphWrite: Promise<void> = Promise.resolve();
    let unwritten: AssetWrite[] = [];
    const writeGraph = async (all: boolean) => {
      while (unwritten.length >= (all ? 1 : IMPORT_BATCH_SIZE)) {
        await graphWrite;
        const rows = unwritten.slice(0, IMPORT_BATCH_SIZE);
        unwritten = unwritten.slice(IMPORT_BATCH_SIZE);
        graphWrite = this.load.mergeAssets(rows, bundle.source, observedAt);
        // Awaited by the next write or at the end; handled now so that a failure while the next
        // batch is being reconciled is not an unhandled rejection.
        graphWrite.catch(() => undefined);
      }
    };
    for (const level of levels(bundle, parents)) {
      for (let i = 0; i < level.length; i += IMPORT_BATCH_SIZE) {
        const batch = level.slice(i, i + IMPORT_BATCH_SIZE);
        const withIds = batch.map((asset) => {
          const parentKey = parents.get(asset.key);
          return { asset, identifiers: identifiersOf(asset, parentKey ? ids.get(parentKey) : undefined) };
        });
        const known = await this.identities.lookup(withIds.flatMap((x) => x.identifiers));
        const batchIds: string[] = [];
        const categories = new Map<string, Category>();
        const identifierRows: IdentifierRow[] = [];
        const factWrites: FactWrite[] = [];
        for (const { asset, identifiers } of withIds) {
          const category: Category = categoryOf(asset.assetType);
          const match = resolveIdentity(identifiers, category, (key) => local.get(key) ?? known.get(key));
          const id = ids.get(asset.key) ?? match?.assetId ?? randomUUID();
          ids.set(asset.key, id);
          for (const identifier of identifiers) {
            local.set(identifierKey(identifier), { assetId: id, category });
            identifierRows.push({ ...identifier, assetId: id, category });
          }
          categories.set(id, category);
          batchIds.push(id);
          for (const set of factsOf(asset)) {
            for (const [field, value] of Object.entries(set.values)) {
              factWrites.push({ assetId: id, field, source: set.source, value: normalisedValue(field, value), owned: set.source === importSource(bundle.source) && owned.has(field) });
            }
          }
          results.push({ key: asset.key, id, created: !match, matchedBy: match?.matchedBy ?? null });
        }
        // Facts, identity and names first, in one transaction (all of a batch or none): a failure
        // before the graph write is repaired by importing again, which finds the same ids.
        const writes = await this.db.transaction(async (trx) => {
          const facts = await this.facts.record(factWrites, batchIds, new Date(observedAt), trx);
          const assetWrites = withIds.map(({ asset }, i) => toWrite(asset, batchIds[i] as string, resolve(facts.get(batchIds[i] as string) ?? [])));
          // The identity index keeps the category the asset shows, which its facts decide.
          const shown = new Map(assetWrites.map((w) => [w.id, (w.category ?? categories.get(w.id)) as Category]));
          await this.identities.upsert(identifierRows.map((r) => ({ ...r, category: shown.get(r.assetId) ?? r.category })), trx);
          await this.names.upsert(assetWrites.map((w) => ({ assetId: w.id, displayName: w.props.displayName as string, hostname: (w.props.hostname as string | undefined) ?? null })), {}, trx);
          return assetWrites;
        });
        unwritten.push(...writes);
        await writeGraph(false);
      }
      // A child's edges to its parent are written once every level is in the graph; the next level only needs ids.
    }
    await writeGraph(true);
    await graphWrite;

    // Relationships go to Neo4j and sub-records to PostgreSQL: both need only the asset ids, so they load side by side.
    const rels = (bundle.relationships ?? []).map((r) => ({ type: r.type, source: ids.get(r.source) as string, target: ids.get(r.target) as string }));
    const mergeRelationships = async () => {
      let merged = 0;
      for (let i = 0; i < rels.length; i += IMPORT_BATCH_SIZE * 2) merged += await this.load.mergeRelationships(rels.slice(i, i + IMPORT_BATCH_SIZE * 2), bundle.source, observedAt);
      return merged;
    };
    const sites = new Map(bundle.assets.flatMap((a) => (a.site ? [[a.key, a.site] as const] : [])));
    const [relationships, subRecords] = await Promise.all([mergeRelationships(), this.subRecords.load(bundle, ids, sites, bundle.source, new Date(observedAt))]);
    const order = new Map(bundle.assets.map((a, i) => [a.key, i]));
    results.sort((a, b) => (order.get(a.key) as number) - (order.get(b.key) as number));
    const created = results.filter((r) => r.created).length;
    await this.audit.record(actor, { action: 'asset.import', details: { source: bundle.source, assets: results.length, created, relationships, subRecords } });
    return { assets: results, relationships, created, updated: results.length - created, subRecords };
  }
}
