// The one writer of the inventory: every source (the HTTP import, discovery, flows) hands it a
// bundle, and it reconciles identity (PostgreSQL identity index), records the facts per source and
// resolves what each asset shows, loads the graph and the sub-records, then retires what the
// scopes the source read completely no longer show (docs/interface.md, decision 7). Aging of facts
// is its upkeep. Every step is keyed by natural identity: a crashed write, done again, converges.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { AuditLog } from '../auth/audit-log.js';
import { CATEGORIES, type Category } from './asset-categories.js';
import { FACT_FIELDS, factValues, importSource, resolvedType, type FactField, type FactPrecedence, type FactSet, type ResolvedAsset } from './asset-facts.js';
import { identifierKey, identifiersOf, normaliseIp, normaliseMac, resolveIdentity, type KnownIdentifier } from './asset-identity.js';
import type { AssetNameStore } from './asset-name-store.js';
import { categoryOf, parentRule, type AssetType } from './asset-taxonomy.js';
import type { FactStore, FactWrite } from './fact-store.js';
import type { AssetProps, AssetWrite, RelationshipWrite } from './graph-writes.js';
import type { IdentifierRow, IdentityStore } from './identity-store.js';
import {
  bundleErrors, refuseInvalid,
  type BundleAsset, type BundleLink, type CompleteReads, type EstateScope, type InventoryBundle, type InventorySource, type LinkEnd, type WriteResult, type WrittenAsset,
} from './inventory-bundle.js';
import type { LoadGraphRepository } from './load-graph-repository.js';
import type { ScopeMemberStore } from './scope-member-store.js';
import type { SubRecordCounts, SubRecordLoader } from './sub-record-loader.js';
import type { SubRecordStore } from './sub-record-store.js';

// Rows per PostgreSQL transaction and per asset graph write (relationships: twice as many). A
// graph write of 1,000 new assets costs Neo4j about a tenth less CPU per asset than two of 500.
const IMPORT_BATCH_SIZE = 1000;
const AGED_FACTS_BATCH = 10_000;
// What aging may take off an asset: every fact field but its type and display name.
const REMOVABLE_FIELDS = FACT_FIELDS.filter((f) => f !== 'assetType' && f !== 'displayName');
const NO_SUB_RECORDS: SubRecordCounts = { packages: 0, services: 0, processes: 0, interfaces: 0, connections: 0, unresolvedNeighbors: 0 };

/** The key of each asset's parent in the bundle, by the parent rule of its type. */
function parentKeys(bundle: InventoryBundle): Map<string, string> {
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
function levels(bundle: InventoryBundle, parents: Map<string, string>): BundleAsset[][] {
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
function resolvedProps(resolved: ResolvedAsset): AssetProps {
  const props: AssetProps = {};
  const copy = <F extends Exclude<FactField, 'assetType'>>(field: F) => {
    props[field] = resolved.fields[field];
  };
  for (const field of FACT_FIELDS) if (field !== 'assetType' && resolved.fields[field] !== undefined) copy(field);
  const displayName = resolved.fields.displayName ?? resolved.fields.hostname ?? resolved.fields.fqdn;
  if (displayName !== undefined) props.displayName = displayName;
  props.customAttributes = JSON.stringify(resolved.customAttributes);
  props.customAttributeKeys = Object.keys(resolved.customAttributes).sort();
  return props;
}

/** The graph write of an asset from the values its facts resolve to; the bundle's entry stands in where no fact says. */
function toWrite(asset: BundleAsset, id: string, resolved: ResolvedAsset): AssetWrite {
  const type = resolvedType(resolved);
  const values = resolvedProps(resolved);
  const props = { ...values, displayName: values.displayName ?? asset.displayName ?? asset.hostname ?? asset.fqdn ?? asset.key };
  const kindOf = (t: AssetType) => ({ category: categoryOf(t), nodeLabel: CATEGORIES[categoryOf(t)].nodeLabel as string });
  return {
    id,
    type: type ?? null,
    ...(type ? kindOf(type) : { category: null, nodeLabel: null }),
    fallbackType: asset.assetType,
    fallbackCategory: kindOf(asset.assetType).category,
    fallbackLabel: kindOf(asset.assetType).nodeLabel,
    fallbackName: props.displayName,
    props,
  };
}

export class InventoryWriter {
  constructor(
    private readonly db: Database,
    private readonly identities: IdentityStore,
    private readonly facts: FactStore,
    private readonly precedence: FactPrecedence,
    private readonly names: AssetNameStore,
    private readonly graph: LoadGraphRepository,
    private readonly subRecordLoader: SubRecordLoader,
    private readonly subRecords: SubRecordStore,
    private readonly scopeMembers: ScopeMemberStore,
    private readonly audit: AuditLog,
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
        const props = resolvedProps(this.precedence.resolve(remaining.get(id) ?? []));
        return { id, props, removed: REMOVABLE_FIELDS.filter((f) => props[f] === undefined) };
      });
      await this.graph.setResolved(rows);
      await this.names.upsert(rows.flatMap((r) => (r.props.displayName ? [{ assetId: r.id, displayName: r.props.displayName, hostname: r.props.hostname ?? null }] : [])), { exact: true });
      assets += affected.length;
    }
  }

  /**
   * Writes what a source observed: the bundle's assets, relationships and sub-records, then its
   * links and the known assets it saw again, then the retirement of what the scopes it read
   * completely (`reads`) no longer show. A bundle with a problem is refused whole (400).
   */
  async apply(source: InventorySource, bundle: InventoryBundle, reads: CompleteReads = {}): Promise<WriteResult> {
    refuseInvalid(bundleErrors(bundle));
    const observedAt = bundle.observedAt ?? new Date().toISOString();
    const written = await this.load(source, bundle, observedAt);
    const ids = new Map(written.assets.map((a) => [a.key, a.id]));
    const idsOf = (keys: string[] | undefined) => (keys ?? []).flatMap((key) => ids.get(key) ?? []);
    const at = new Date(observedAt);
    // The graph's steps and the sub-record tables' retirement touch different stores: side by side.
    await Promise.all([
      (async () => {
        await this.graph.touch(bundle.seen ?? [], source.name, observedAt);
        await this.link(bundle.links ?? [], ids, source.name, observedAt);
        await this.graph.retireCommunications(idsOf(reads.communications), source.name, observedAt);
      })(),
      this.subRecords.retirePackages(idsOf(reads.software), source.name, at),
      ...(reads.services ?? []).map((scope) => this.subRecords.retireServices(idsOf(scope.assets), scope.connector, at)),
    ]);
    for (const estate of reads.estates ?? []) await this.retireEstate(estate, idsOf, source.name, observedAt);
    return written;
  }

  /**
   * Loads the assets (parents first: a child's identity may depend on its parent's id), their
   * relationships and sub-records. Each asset's facts are those of its entry, as the source
   * reported them, unless the source gives them by key (discovery: one set per method).
   */
  private async load(source: InventorySource, bundle: InventoryBundle, observedAt: string): Promise<WriteResult> {
    // A system source that found nothing (a run that reached no host) leaves no trace.
    if (bundle.assets.length === 0 && source.actor.kind === 'SYSTEM') return { assets: [], relationships: 0, created: 0, updated: 0, subRecords: NO_SUB_RECORDS };
    const owned = new Set(source.owns ?? []);
    const factsOf = (asset: BundleAsset): FactSet[] => source.factSets?.get(asset.key) ?? [{ source: importSource(source.name), values: factValues(asset) }];
    const parents = parentKeys(bundle);
    const ids = new Map<string, string>();
    const results: WrittenAsset[] = [];
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
        graphWrite = this.graph.mergeAssets(rows, source.name, observedAt);
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
              factWrites.push({ assetId: id, field, source: set.source, value: normalisedValue(field, value), owned: set.source === importSource(source.name) && owned.has(field) });
            }
          }
          results.push({ key: asset.key, id, created: !match, matchedBy: match?.matchedBy ?? null });
        }
        // Facts, identity and names first, in one transaction (all of a batch or none): a failure
        // before the graph write is repaired by importing again, which finds the same ids.
        const writes = await this.db.transaction(async (trx) => {
          const facts = await this.facts.record(factWrites, batchIds, new Date(observedAt), trx);
          const assetWrites = withIds.map(({ asset }, i) => toWrite(asset, batchIds[i] as string, this.precedence.resolve(facts.get(batchIds[i] as string) ?? [])));
          // The identity index keeps the category the asset shows, which its facts decide.
          const shown = new Map(assetWrites.map((w) => [w.id, (w.category ?? categories.get(w.id)) as Category]));
          await this.identities.upsert(identifierRows.map((r) => ({ ...r, category: shown.get(r.assetId) ?? r.category })), trx);
          await this.names.upsert(assetWrites.map((w) => ({ assetId: w.id, displayName: w.props.displayName, hostname: w.props.hostname ?? null })), {}, trx);
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
      for (let i = 0; i < rels.length; i += IMPORT_BATCH_SIZE * 2) merged += await this.graph.mergeRelationships(rels.slice(i, i + IMPORT_BATCH_SIZE * 2), source.name, observedAt);
      return merged;
    };
    const sites = new Map(bundle.assets.flatMap((a) => (a.site ? [[a.key, a.site] as const] : [])));
    const [relationships, subRecords] = await Promise.all([mergeRelationships(), this.subRecordLoader.load(bundle, ids, sites, source.name, new Date(observedAt))]);
    const order = new Map(bundle.assets.map((a, i) => [a.key, i]));
    results.sort((a, b) => (order.get(a.key) as number) - (order.get(b.key) as number));
    const created = results.filter((r) => r.created).length;
    await this.audit.record(source.actor, { action: 'asset.import', details: { source: source.name, assets: results.length, created, relationships, subRecords } });
    return { assets: results, relationships, created, updated: results.length - created, subRecords };
  }

  /** Links whose ends are known: an address names the asset that holds it; one edge per pair and type. */
  private async link(links: BundleLink[], ids: Map<string, string>, source: string, observedAt: string): Promise<void> {
    const addresses = [...new Set(links.flatMap((l) => [l.source, l.target]).flatMap((end) => ('ipAddress' in end ? [end.ipAddress] : [])))];
    const known = await this.identities.lookup(addresses.map((value) => ({ rule: 'IP_ADDRESS' as const, value })));
    const idOf = (end: LinkEnd) => ('key' in end ? ids.get(end.key) : 'id' in end ? end.id : known.get(`IP_ADDRESS:${end.ipAddress}`)?.assetId);
    const edges = new Map<string, RelationshipWrite>();
    for (const link of links) {
      const [from, to] = [idOf(link.source), idOf(link.target)];
      if (from && to && from !== to) edges.set(`${link.type}:${from}>${to}`, { type: link.type, source: from, target: to });
    }
    await this.graph.mergeRelationships([...edges.values()], source, observedAt);
  }

  /**
   * The assets an estate showed join its scope, and those whose processes it read keep only these;
   * after a complete read, those of the scope it no longer showed become INACTIVE and the edges
   * among its assets it did not see again are retired (only those at the assets it no longer
   * showed, for a part of an estate whose other parts failed). A partial read retires nothing.
   */
  private async retireEstate(estate: EstateScope, idsOf: (keys: string[] | undefined) => string[], source: string, observedAt: string): Promise<void> {
    const seen = idsOf(estate.members);
    await this.scopeMembers.record(estate.scope, seen, observedAt);
    if (estate.processes) await this.subRecords.retireProcesses(idsOf(estate.processes.assets), estate.processes.connector, new Date(observedAt));
    if (estate.services) await this.subRecords.retireServices(idsOf(estate.services.assets), estate.services.connector, new Date(observedAt));
    if (!estate.retire) return;
    const unseen = await this.scopeMembers.unseen(estate.scope, observedAt);
    await this.graph.retireRelationships(estate.retire.unseenOnly ? unseen : [...seen, ...unseen], estate.retire.relationshipTypes, source, observedAt);
    await this.graph.retireAssets(unseen, source, observedAt);
    await this.scopeMembers.forget(estate.scope, unseen);
  }
}
