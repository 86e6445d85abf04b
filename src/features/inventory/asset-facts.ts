// Attribute-level reconciliation, as pure functions. Every fact of an asset (its type, names,
// vendor, model, serial, addresses, each custom attribute) is kept per source that reported it,
// with the time it did. An observation writes only the facts its source reported; the value an
// asset shows for a field is then chosen among the sources by a documented precedence
// (docs/discovery.md), and the losing values stay as evidence (GET /assets/{id}/provenance).
// Facts go only when no source has reported them for service.aging.inactive-after-days. A fact
// whose field is neither a FACT_FIELD nor custom.<key> (DHCP's dhcpLease:<address>, one per lease)
// is evidence only: kept, aged and shown in provenance like the others, never a field of the asset.
// The ranks
// of discovery's methods are data that the inventory's feature module gives (each connector
// declares its own), so that the rules never reach up into discovery.
import type { components } from '../../platform/http/api-types.js';
import type { AssetType } from './asset-taxonomy.js';

/** The fields kept as facts; custom attributes are facts of their own, `custom.<key>`. */
export const FACT_FIELDS = ['assetType', 'displayName', 'hostname', 'fqdn', 'site', 'environment', 'vendor', 'model', 'serialNumber', 'macAddresses', 'ipAddresses'] as const;
export type FactField = (typeof FACT_FIELDS)[number];
/** The value of each fact field, as a bundle's asset gives it (api.yaml's BundleAsset, its type the taxonomy's). */
export type FactValues = Pick<components['schemas']['BundleAsset'], Exclude<FactField, 'assetType'>> & { assetType: AssetType };
export const CUSTOM_PREFIX = 'custom.';

/** Fields whose value is the union of every source's list: addresses are evidence that adds up. */
const UNION_FIELDS = new Set<string>(['macAddresses', 'ipAddresses']);

/** Asset types that only a network-facing source can tell: SNMP's word on them outranks a host's view. */
const DEVICE_TYPES = new Set<string>(['NETWORK_DEVICE', 'PRINTER']);

/** What one source reported of one asset: field → value (custom attributes as `custom.<key>`). */
export interface FactSet {
  source: string;
  values: Record<string, unknown>;
}

export interface Fact {
  field: string;
  source: string;
  value: unknown;
  observedAt: Date;
  /** The importer said it owns this field (an import source's facts otherwise rank low). */
  owned: boolean;
}

/** The source of an import's facts, apart from discovery's methods (an import may be called anything). */
export const importSource = (name: string) => `import:${name}`;

// Ranks of the sources, highest first to win: discovery methods by how directly they see a host
// (given to FactPrecedence), an import below them unless it owns the field, a sweep (a port
// answered) lowest.
const IMPORT_RANK = 20;
const OWNED_RANK = 100;
// Fields where another source knows better: the chassis serial is SNMP's (ENTITY-MIB) first.
const FIELD_RANK: Record<string, Record<string, number>> = { serialNumber: { snmp: 60 } };

export interface ResolvedAsset {
  /** The value of each field some source reported (custom attributes gathered in `customAttributes`). */
  fields: Partial<FactValues>;
  customAttributes: Record<string, unknown>;
}

/** The precedence among the sources of an asset's facts, given the ranks of discovery's methods (by lower-case method name). */
export class FactPrecedence {
  constructor(private readonly sourceRanks: Readonly<Record<string, number>>) {}

  /** How strongly a fact's source speaks for its field. */
  rankOf(fact: Pick<Fact, 'field' | 'source' | 'value' | 'owned'>): number {
    if (fact.owned) return OWNED_RANK;
    if (fact.field === 'assetType' && fact.source === 'snmp' && DEVICE_TYPES.has(String(fact.value))) return OWNED_RANK - 1;
    const base = fact.source.startsWith('import:') ? IMPORT_RANK : (this.sourceRanks[fact.source] ?? IMPORT_RANK);
    return FIELD_RANK[fact.field]?.[fact.source] ?? base;
  }

  /** The facts of a field in order of precedence: rank, then the latest observation, then the source's name. */
  byPrecedence(facts: Fact[]): Fact[] {
    return [...facts].sort((a, b) => this.rankOf(b) - this.rankOf(a) || b.observedAt.getTime() - a.observedAt.getTime() || (a.source < b.source ? -1 : 1));
  }

  /** The value an asset shows for each field, from all the facts of its sources. */
  resolve(facts: Fact[]): ResolvedAsset {
    const byField = new Map<string, Fact[]>();
    for (const fact of facts) byField.set(fact.field, [...(byField.get(fact.field) ?? []), fact]);
    const fields: Record<string, unknown> = {};
    const customAttributes: Record<string, unknown> = {};
    for (const [field, candidates] of [...byField].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const ordered = this.byPrecedence(candidates);
      const value = UNION_FIELDS.has(field)
        ? [...new Set(ordered.flatMap((f) => (Array.isArray(f.value) ? (f.value as unknown[]) : [])))]
        : (ordered[0] as Fact).value;
      if (field.startsWith(CUSTOM_PREFIX)) customAttributes[field.slice(CUSTOM_PREFIX.length)] = value;
      else fields[field] = value;
    }
    // Facts hold what the sources' bundles gave, checked as they were written.
    return { fields: fields as Partial<FactValues>, customAttributes };
  }
}

/** The facts an asset's observation carries: its defined fields and each custom attribute. */
export function factValues(asset: Partial<Record<FactField, unknown>> & { customAttributes?: Record<string, unknown> }): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of FACT_FIELDS) if (asset[field] !== undefined) values[field] = asset[field];
  for (const [key, value] of Object.entries(asset.customAttributes ?? {})) values[`${CUSTOM_PREFIX}${key}`] = value;
  return values;
}

/** The type an asset shows, or undefined when no source classified it. */
export const resolvedType = (resolved: ResolvedAsset) => resolved.fields.assetType;
