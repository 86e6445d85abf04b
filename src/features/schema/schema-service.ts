// Schema introspection (docs/interface.md §2.7): the taxonomy's entries plus the customAttributes keys seen in
// the current data for each type.
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import type { components } from '../../platform/http/api-types.js';
import { ALL_TYPES, isAssetType, schemaEntry, SYNTHESIZED_TYPES, type SchemaEntry } from '../inventory/asset-taxonomy.js';
import { isListedCategory, LISTED_CATEGORIES } from '../inventory/asset-categories.js';
import type { AssetReads } from '../assets/asset-summary.js';
import { SUB_RECORD_KINDS } from '../inventory/sub-record-kinds.js';

export type SchemaEntryWithKeys = SchemaEntry & Pick<components['schemas']['SchemaEntry'], 'customAttributeKeys' | 'export'>;

// Keys of the rows built from PostgreSQL (docs/interface.md §2.11 rule 4): fixed by their kinds' models.
const SYNTHESIZED_KEYS: Record<string, string[]> = Object.fromEntries(
  SUB_RECORD_KINDS.map((k) => [k.assetType, k.columns.filter((c) => c.schemaKey).map((c) => c.name).sort()]),
);
// The export holding the rows of each synthesized type; the graph's types are in `assets`.
const SYNTHESIZED_EXPORTS: Record<string, string> = Object.fromEntries(SUB_RECORD_KINDS.map((k) => [k.assetType, k.dataset]));

export class SchemaService {
  constructor(private readonly assets: AssetReads) {}

  async list(category?: string): Promise<SchemaEntryWithKeys[]> {
    let types = ALL_TYPES;
    if (category !== undefined) {
      const wanted = category.toUpperCase();
      if (!isListedCategory(wanted)) {
        throw new BadRequestError(`Unknown category "${category}".`, [{ path: 'query.category', message: `must be one of ${LISTED_CATEGORIES.join(', ')} (any case)` }]);
      }
      types = types.filter((t) => schemaEntry(t).category === wanted);
    }
    return this.entries(types);
  }

  async get(type: string): Promise<SchemaEntryWithKeys> {
    if (!isAssetType(type)) throw new NotFoundError(`No asset type ${type}.`);
    return (await this.entries([type]))[0] as SchemaEntryWithKeys;
  }

  /** The entries of these types, the keys of the graph's types read in one pass. */
  private async entries(types: readonly (typeof ALL_TYPES)[number][]): Promise<SchemaEntryWithKeys[]> {
    const synthesized = new Set<string>(SYNTHESIZED_TYPES);
    const graphTypes = types.filter((t) => !synthesized.has(t));
    const keys = graphTypes.length ? await this.assets.customAttributeKeys(graphTypes) : new Map<string, string[]>();
    return types.map((t) => ({ ...schemaEntry(t), customAttributeKeys: (synthesized.has(t) ? SYNTHESIZED_KEYS[t] : keys.get(t)) ?? [], export: SYNTHESIZED_EXPORTS[t] ?? 'assets' }));
  }
}
