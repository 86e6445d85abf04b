// Runs the insight feeds that live on Neo4j (cypher/insights/), read-only.
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { FeedRow } from './insight-store.js';

export class InsightGraphRepository {
  constructor(private readonly graph: NeoGraph) {}

  /** Checks at boot that every statement exists. */
  require(statements: string[]): void {
    this.graph.catalog.require(...statements);
  }

  /** Integers go as Neo4j integers (LIMIT and duration() want them), the rest as they are. */
  run(statement: string, params: Record<string, unknown>): Promise<FeedRow[]> {
    const bound = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Number.isInteger(v) ? int(v as number) : v]));
    return this.graph.read<FeedRow>(statement, bound);
  }
}
