// Runs the insight feeds that live on PostgreSQL (sql/insights/, one statement per file, read
// once at boot: a missing file is a start-up error), with named parameters (:name).
import { readFileSync } from 'node:fs';
import type { Database } from '../../platform/postgres/postgres-client.js';
import { fromProjectRoot } from '../../platform/project-root.js';

export interface FeedRow {
  assetIds: string[];
  evidence: Record<string, unknown>;
}

export class InsightStore {
  private readonly statements = new Map<string, string>();

  constructor(private readonly db: Database) {}

  /** Reads the statements' files. */
  require(statements: string[]): void {
    for (const name of statements) this.statements.set(name, readFileSync(fromProjectRoot('sql', `${name}.sql`), 'utf8'));
  }

  async run(statement: string, params: Record<string, unknown>): Promise<FeedRow[]> {
    const text = this.statements.get(statement);
    if (text === undefined) throw new Error(`SQL statement "${statement}" was not loaded: expected sql/${statement}.sql`);
    const result = await this.db.raw<{ rows: FeedRow[] }>(text, params as Record<string, never>);
    return result.rows;
  }
}
