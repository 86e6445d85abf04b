// The daily aging sweeper (docs/interface.md §3.1): ACTIVE assets not observed for service.aging.stale-after-days
// become STALE (staleSince set), STALE ones not observed for service.aging.inactive-after-days
// become INACTIVE. DECOMMISSIONED assets are never touched; an observation brings an asset back.
// Facts that no source has reported for service.aging.inactive-after-days go too.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';

export interface AgingSummary {
  movedToStale: number;
  movedToInactive: number;
  assetsWithFactsDropped: number;
}

const BATCH = 10_000;

export class AgingSweep {
  constructor(
    private readonly graph: NeoGraph,
    private readonly writer: InventoryWriter,
    private readonly staleAfterDays: number,
    private readonly inactiveAfterDays: number,
  ) {
    graph.catalog.require('assets/age-active-assets', 'assets/age-stale-assets');
  }

  async run(now = new Date()): Promise<AgingSummary> {
    const before = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
    // Inactive first, so that an asset is moved one step per sweep.
    const movedToInactive = await this.drain('assets/age-stale-assets', { cutoff: before(this.inactiveAfterDays), now: now.toISOString() });
    const movedToStale = await this.drain('assets/age-active-assets', { cutoff: before(this.staleAfterDays), now: now.toISOString() });
    const assetsWithFactsDropped = await this.writer.dropAgedFacts(new Date(before(this.inactiveAfterDays)));
    return { movedToStale, movedToInactive, assetsWithFactsDropped };
  }

  private async drain(statement: string, params: Record<string, unknown>): Promise<number> {
    let moved = 0;
    for (;;) {
      const [row] = await this.graph.write<{ moved: number }>(statement, { ...params, batch: int(BATCH) });
      moved += row?.moved ?? 0;
      if ((row?.moved ?? 0) < BATCH) return moved;
    }
  }
}
