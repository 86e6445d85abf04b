// The graph's part of an asset's history: its status log and the active periods of its edges
// (inventory/status-log.ts), read by cypher/history/.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { RelationshipType } from '../inventory/relationship-types.js';
import { parseStatusLogActor } from '../inventory/status-log.js';
import type { HistoryEntry, HistoryFilter, HistoryPart, KeyedEntry, PartWindow } from './history-entry.js';

interface GraphEntry {
  at: number;
  key: string;
  field: string;
  by: string | null;
  // A status entry.
  from?: string | null;
  to?: string;
  // An edge entry.
  added?: boolean;
  relationship?: string;
  outgoing?: boolean;
  other?: { id: string; displayName: string | null; assetType: string | null };
}

/** Who: a source goes in `source`, anyone else in `actor`. */
function who(by: string | null): Pick<HistoryEntry, 'source' | 'actor'> {
  if (!by) return { source: null, actor: null };
  const actor = parseStatusLogActor(by);
  return actor.kind === 'SOURCE' ? { source: actor.name, actor: null } : { source: null, actor };
}

function toEntry(e: GraphEntry): HistoryEntry {
  const changedAt = new Date(e.at).toISOString();
  if (e.relationship === undefined) {
    return { changedAt, kind: 'STATUS', field: 'status', oldValue: e.from ?? null, newValue: e.to ?? null, ...who(e.by), relationship: null };
  }
  return {
    changedAt, kind: e.added ? 'RELATIONSHIP_ADDED' : 'RELATIONSHIP_RETIRED', field: e.field, oldValue: null, newValue: null, ...who(e.by),
    relationship: { id: e.relationship, type: e.field as RelationshipType, direction: e.outgoing ? 'OUTGOING' : 'INCOMING', otherAsset: e.other ?? null },
  };
}

const params = (id: string, { fields, from, to }: HistoryFilter) => ({
  id, fields: fields ?? null, from: from === undefined ? null : int(from), to: to === undefined ? null : int(to),
});

export class HistoryGraphRepository implements HistoryPart {
  constructor(private readonly graph: NeoGraph) {
    graph.catalog.require('history/find-asset-graph-history', 'history/count-asset-graph-history', 'history/find-status-logs-at', 'history/trim-status-logs', 'history/trim-active-periods');
  }

  async read(id: string, filter: HistoryFilter, window: PartWindow): Promise<KeyedEntry[]> {
    const seek = (key?: [number, string]) => (key ? [int(key[0]), key[1]] : null);
    const rows = await this.graph.read<{ entry: GraphEntry }>('history/find-asset-graph-history', {
      ...params(id, filter), after: seek(window.after), before: seek(window.before), asc: window.asc, limit: int(window.limit),
    });
    return rows.map(({ entry }) => ({ key: [Number(entry.at), entry.key], entry: toEntry(entry) }));
  }

  /** The status log of each of these assets up to `at` (epoch milliseconds): times and statuses, empty for one that did not exist yet. */
  async statusLogsAt(ids: string[], at: number): Promise<Map<string, { at: number[]; to: string[] }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.graph.read<{ id: string; at: number[]; to: string[] }>('history/find-status-logs-at', { ids, at: int(at) });
    return new Map(rows.map((r) => [r.id, { at: r.at.map(Number), to: r.to }]));
  }

  /** Removes the status log entries and edge periods older than the cutoff (epoch milliseconds) that no read at or after it needs. */
  async removeOlder(cutoff: number, batch: number): Promise<number> {
    let removed = 0;
    for (const statement of ['history/trim-status-logs', 'history/trim-active-periods']) {
      for (;;) {
        const [row] = await this.graph.write<{ trimmed: number; removed: number }>(statement, { cutoff: int(cutoff), batch: int(batch) });
        removed += Number(row?.removed ?? 0);
        if (Number(row?.trimmed ?? 0) < batch) break;
      }
    }
    return removed;
  }

  async count(id: string, filter: HistoryFilter): Promise<number> {
    const [row] = await this.graph.read<{ total: number }>('history/count-asset-graph-history', params(id, filter));
    return Number(row?.total ?? 0);
  }
}
