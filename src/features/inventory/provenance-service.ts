// GET /assets/{id}/provenance: for each fact of an asset, the value it shows and the source that
// set it, and the other sources' values kept as evidence, in order of precedence (asset-facts.ts).
import type { Fact, FactPrecedence } from './asset-facts.js';
import type { FactStore } from './fact-store.js';

export interface FactOrigin {
  source: string;
  value: unknown;
  observedAt: string;
  owned: boolean;
}

export interface FieldProvenance extends FactOrigin {
  field: string;
  /** The other sources' values, in order of precedence; for address lists, the value is their union. */
  candidates: FactOrigin[];
}

const origin = (f: Fact): FactOrigin => ({ source: f.source, value: f.value, observedAt: f.observedAt.toISOString(), owned: f.owned });

export class ProvenanceService {
  constructor(
    private readonly facts: FactStore,
    private readonly precedence: FactPrecedence,
  ) {}

  async of(assetId: string): Promise<FieldProvenance[]> {
    const facts = (await this.facts.of([assetId])).get(assetId) ?? [];
    const byField = new Map<string, Fact[]>();
    for (const fact of facts) byField.set(fact.field, [...(byField.get(fact.field) ?? []), fact]);
    return [...byField].sort(([a], [b]) => (a < b ? -1 : 1)).map(([field, candidates]) => {
      const [winner, ...others] = this.precedence.byPrecedence(candidates) as [Fact, ...Fact[]];
      return { field, ...origin(winner), candidates: others.map(origin) };
    });
  }
}
