// What a source hands the inventory writer: a bundle of assets by key, relationships among them
// (or to known assets by address), sub-records, and the scopes it read completely, so that what
// such a read no longer shows is retired. The checks every bundle passes live here; a caller from
// outside (the HTTP import) adds its own.
import { BadRequestError, type FieldError } from '../../platform/errors.js';
import type { components } from '../../platform/http/api-types.js';
import type { Actor } from '../auth/audit-log.js';
import { GRAPH_TYPES, type AssetType } from './asset-taxonomy.js';
import type { FactSet } from './asset-facts.js';
import type { MatchRule } from './asset-identity.js';
import { RELATIONSHIP_TYPES, type RelationshipType } from './relationship-types.js';
import type { SubRecordBundle, SubRecordCounts } from './sub-record-loader.js';

/** An asset of a bundle as api.yaml gives it, its type one the taxonomy knows (bundleErrors checks it). */
export type BundleAsset = Omit<components['schemas']['BundleAsset'], 'assetType'> & { assetType: AssetType };

export interface BundleRelationship {
  type: RelationshipType;
  source: string;
  target: string;
}

/** An end of a link: an asset of the bundle by key, or a known asset by its id or one of its addresses. */
export type LinkEnd = { key: string } | { id: string } | { ipAddress: string };

/** A relationship that may end at an asset outside the bundle (a host a host talked to); left out when an end is unknown or both are one asset. */
export interface BundleLink {
  type: RelationshipType;
  source: LinkEnd;
  target: LinkEnd;
}

export interface InventoryBundle extends SubRecordBundle {
  /** When the source observed it (ISO 8601); now when left out. */
  observedAt?: string;
  assets: BundleAsset[];
  relationships?: BundleRelationship[];
  /** Written after the assets, their relationships and sub-records. */
  links?: BundleLink[];
  /** Known assets (by id) the source saw again without reading them: their lastSeenAt and the source are stamped. */
  seen?: string[];
}

/** Who writes: the name its graph writes carry, and the facts it reports. */
export interface InventorySource {
  /** The source stamped on assets and relationships (discovery, flow, an import's name). */
  name: string;
  /** Audited as the writer of the bundle. */
  actor: Actor;
  /** Fields (or custom.<key>) whose value this source owns: they outrank discovery's. */
  owns?: string[];
  /** The facts of each asset by key, one set per method that observed it (discovery); otherwise those of its entry, as `import:<name>`. */
  factSets?: Map<string, FactSet[]>;
}

/** The sub-records a connector read in full for some assets (by bundle key): those it reported before and not now go. */
export interface SubRecordScope {
  assets: string[];
  /** The connector named in the rows. */
  connector: string;
}

/** A connector scope (a vCenter) as read: its assets join it; a complete read retires what it no longer shows. */
export interface EstateScope {
  scope: string;
  /** Its assets, by bundle key. */
  members: string[];
  /** Members whose processes it read: those that showed none lose theirs (by the connector that read them). */
  processes?: SubRecordScope;
  /** Members whose discovered services it read in full: those it no longer shows go (by the connector that read them). */
  services?: SubRecordScope;
  /**
   * Read in full: members it no longer shows become INACTIVE, and edges of these types at its
   * members that it did not see again are retired (`unseenOnly`: only at those it no longer shows,
   * a part read in full of an estate read in part).
   */
  retire?: { relationshipTypes: RelationshipType[]; unseenOnly?: boolean };
}

/** The scopes a source read completely. A partial or failed read names none, and retires nothing. */
export interface CompleteReads {
  /** Assets whose package list the source read in full: the packages it reported before and not now go. */
  software?: string[];
  /** Per connector: the assets whose services it read in full. */
  services?: SubRecordScope[];
  /** Assets whose connections it read: their COMMUNICATES_WITH edges it did not see again are retired. */
  communications?: string[];
  estates?: EstateScope[];
}

export interface WrittenAsset {
  key: string;
  id: string;
  created: boolean;
  matchedBy: MatchRule | null;
}

export interface WriteResult {
  assets: WrittenAsset[];
  relationships: number;
  created: number;
  updated: number;
  subRecords: SubRecordCounts;
}

const GRAPH_TYPE_SET = new Set<string>(GRAPH_TYPES);
const RELATIONSHIP_TYPE_SET = new Set<string>(RELATIONSHIP_TYPES);

/** Every problem of a bundle's shape at once, by path: unknown types, duplicate and dangling keys. */
export function bundleErrors(bundle: InventoryBundle): FieldError[] {
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
  return errors;
}

/** Refuses a bundle with problems, naming them all: nothing of it is written. */
export function refuseInvalid(errors: FieldError[]): void {
  if (errors.length) throw new BadRequestError(`The bundle has ${errors.length} invalid entr${errors.length === 1 ? 'y' : 'ies'}; nothing was imported.`, errors);
}
