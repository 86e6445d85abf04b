// Assets as they were at a time (as-of reads): each one's facts then, resolved by today's
// precedence among its sources, and its status then, from the history kept in PostgreSQL and in
// the graph. A time before the history's horizon answers 410 with the earliest time kept.
import { GoneError } from '../../platform/errors.js';
import { CUSTOM_PREFIX, type FactPrecedence, type ResolvedAsset } from '../inventory/asset-facts.js';
import type { HistoryGraphRepository } from './history-graph-repository.js';
import type { HistoryStore } from './history-store.js';

export interface AssetAt {
  status: string;
  /** When it became STALE (kept while INACTIVE), or null. */
  staleSince: string | null;
  decommissionedAt: string | null;
  resolved: ResolvedAsset;
  /** The time of its last change by then (a value or its status). */
  changedAt: string | null;
}

export class PastAssets {
  constructor(
    private readonly store: HistoryStore,
    private readonly graph: HistoryGraphRepository,
    private readonly precedence: FactPrecedence,
  ) {}

  /** Throws 410 for a time before the history's horizon. */
  async requireKept(at: Date): Promise<void> {
    const keptFrom = await this.store.keptFrom();
    if (at < keptFrom) throw new GoneError(`History is kept from ${keptFrom.toISOString()} (service.history.retention-days): ask for a time at or after it.`);
  }

  /** The assets among these that existed at `at`, each as it was then (only these fields of its facts, when named). */
  async assetsAt(ids: string[], at: Date, fields?: string[]): Promise<Map<string, AssetAt>> {
    const [logs, facts] = await Promise.all([this.graph.statusLogsAt(ids, at.getTime()), this.store.factsAt(ids, at, fields)]);
    const out = new Map<string, AssetAt>();
    for (const [id, log] of logs) {
      const last = log.to.length - 1;
      if (last < 0) continue;
      const status = log.to[last] as string;
      const since = (i: number) => new Date(log.at[i] as number).toISOString();
      // The entry that began the run of STALE and INACTIVE it is in.
      let stale = last;
      while (stale > 0 && ['STALE', 'INACTIVE'].includes(log.to[stale - 1] as string)) stale--;
      const { facts: asserted = [], changedAt = null } = facts.get(id) ?? {};
      const lastChange = Math.max(log.at[last] as number, changedAt?.getTime() ?? 0);
      out.set(id, {
        status,
        staleSince: ['STALE', 'INACTIVE'].includes(status) ? since(stale) : null,
        decommissionedAt: status === 'DECOMMISSIONED' ? since(last) : null,
        resolved: this.precedence.resolve(asserted),
        changedAt: new Date(lastChange).toISOString(),
      });
    }
    return out;
  }

  /** The name and type each of these assets' facts gave it at `at` (where any did). */
  async namesAt(ids: string[], at: Date): Promise<Map<string, Pick<ResolvedAsset['fields'], 'displayName' | 'assetType'>>> {
    const facts = await this.store.factsAt(ids, at, ['displayName', 'assetType']);
    return new Map([...facts].map(([id, { facts: asserted }]) => [id, this.precedence.resolve(asserted).fields]));
  }

  /** A synthesized row's values that changed after `at`, each with the value it had then (by API name). */
  valuesBefore(id: string, at: Date): Promise<Map<string, unknown>> {
    return this.store.valuesBefore(id, at);
  }
}

/** The fields whose values differ between two states of an asset (fact fields, custom.<key>, status), in name order. */
export function changedFields(a: AssetAt, b: AssetAt): string[] {
  const values = (s: AssetAt): Record<string, unknown> => ({
    ...s.resolved.fields,
    ...Object.fromEntries(Object.entries(s.resolved.customAttributes).map(([k, v]) => [`${CUSTOM_PREFIX}${k}`, v])),
    status: s.status,
  });
  const [x, y] = [values(a), values(b)];
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => JSON.stringify(x[k] ?? null) !== JSON.stringify(y[k] ?? null)).sort();
}
