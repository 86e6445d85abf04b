// An import writes an asset's identity rows, facts and name before its graph write, so that a retry
// finds the same ids; a crash between the two leaves them behind for an asset that was never
// written, and a later import would then match an asset that does not exist. This sweep removes
// them: after a crash at the next start (nothing else writes then), and in the retention sweep
// for the rows of a crash of another process, once they are older than any import in flight.
import type { NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { IdentityStore } from './identity-store.js';

const BATCH = 10_000;

export class UnwrittenAssetSweep {
  constructor(
    private readonly identities: IdentityStore,
    private readonly graph: NeoGraph,
    private readonly batch = BATCH,
  ) {
    graph.catalog.require('assets/find-existing-asset-ids');
  }

  /** Removes the rows of assets missing from the graph whose identity rows were all written before `before`; answers how many assets. */
  async run(before: Date): Promise<number> {
    let removed = 0;
    for (let after: string | null = null; ;) {
      const ids = await this.identities.assetsWrittenBefore(after, before, this.batch);
      if (ids.length === 0) return removed;
      const existing = new Set((await this.graph.read<{ id: string }>('assets/find-existing-asset-ids', { ids })).map((r) => r.id));
      const unwritten = ids.filter((id) => !existing.has(id));
      if (unwritten.length) removed += await this.identities.deleteUnwritten(unwritten, before);
      after = ids.at(-1) as string;
    }
  }
}
