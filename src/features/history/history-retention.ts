// The history's retention (service.history.retention-days), run by the retention sweep: what no
// read at or after the cutoff needs goes from both stores, and history answers from the cutoff on.
import type { HistoryGraphRepository } from './history-graph-repository.js';
import type { HistoryStore } from './history-store.js';

export class HistoryRetention {
  constructor(
    private readonly store: HistoryStore,
    private readonly graph: HistoryGraphRepository,
  ) {}

  /** Entries removed: rows of PostgreSQL, then status log entries and edge period bounds of the graph. */
  async removeOlder(cutoff: Date, batch: number): Promise<number> {
    return (await this.graph.removeOlder(cutoff.getTime(), batch)) + (await this.store.removeOlder(cutoff, batch));
  }
}
