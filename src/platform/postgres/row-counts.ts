// Exact counts of the counted tables without a scan (migration 20261130000000_count_rows_by_group):
// a count is the compacted base in row_counts plus the changes appended since, both read in one
// statement so that they are the same snapshot. The SQL here is meant to be a column of the
// statement that reads a page, so that a page and its total cost one round trip.
import type { Knex } from 'knex';
import { likeLiteral, type CountedTotal, type Database } from './postgres-client.js';

/** The groups whose rows to count: the whole table, groups by key, or groups by a key's prefix. */
export type CountedGroups = { all: true } | { keys: string[] } | { prefixes: string[] };

/** The groups of a table's total. */
export const ALL_ROWS: CountedGroups = { all: true };

/**
 * SQL that holds for every group of `table` that has rows (and perhaps for some that no longer
 * do, until the next compaction): the group key `keySql` is in the base or among the changes. A
 * statement that walks candidates of groups (the names of all assets) then probes the table
 * only for those that can have rows.
 */
export function mayHaveRowsSql(table: string, keySql: string): string {
  // Written into the text, as the name of a table of the code's own.
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a counted table: ${table}`);
  const among = (relation: string) => `EXISTS (SELECT 1 FROM ${relation} c WHERE c.source_table = '${table}' AND c.group_key = ${keySql})`;
  return `(${among('row_counts')} OR ${among('row_count_changes')})`;
}

export class RowCounts {
  constructor(private readonly db: Database) {}

  /** The groups of `table` that pass `where` (SQL over group_key, with its bindings), each row a part of its count: the base and the changes since. */
  private held(table: string, where: string, values: unknown[]): Knex.Raw {
    return this.db.raw(
      `SELECT group_key, row_count AS n FROM row_counts WHERE source_table = ? AND ${where}
       UNION ALL SELECT group_key, delta FROM row_count_changes WHERE source_table = ? AND ${where}`,
      [table, ...values, table, ...values] as Knex.RawBinding[],
    );
  }

  /** A scalar subquery: the rows of `table` in `groups`. */
  countSql(table: string, groups: CountedGroups): Knex.Raw {
    const [where, values] =
      'all' in groups ? ["group_key = ''", []]
      : 'keys' in groups ? ['group_key = ANY(?::text[])', [groups.keys]]
      // Over the table's groups (few, where prefixes are asked for: the runs').
      : ['group_key LIKE ANY(?::text[])', [groups.prefixes.map((p) => `${likeLiteral(p)}%`)]];
    return this.db.raw('(SELECT coalesce(sum(n), 0)::float8 FROM (?) counted)', [this.held(table, where, values)]);
  }

  /**
   * A scalar subquery: the state of `table` as text. Two snapshots that give the same text hold the
   * same rows (each writing statement appends a change of the total; only a compaction, which it
   * counts, removes them).
   */
  versionSql(table: string): Knex.Raw {
    return this.db.raw(
      `(SELECT compactions || '.' || (SELECT count(*) FROM row_count_changes WHERE source_table = ? AND group_key = '') FROM row_count_sources WHERE source_table = ?)`,
      [table, table],
    );
  }

  /** The rows of `table` in `groups`, as the total of a page (keysetPage). */
  total(table: string, groups: CountedGroups): CountedTotal {
    return { sql: this.countSql(table, groups), read: () => this.count(table, groups) };
  }

  async count(table: string, groups: CountedGroups): Promise<number> {
    const { rows } = await this.db.raw('SELECT ? AS n', [this.countSql(table, groups)]);
    return Number(rows[0].n);
  }

  /** The rows of each group of `table` that holds rows. */
  async groups(table: string): Promise<Map<string, number>> {
    const { rows } = await this.db.raw('SELECT group_key, sum(n)::float8 AS n FROM (?) counted GROUP BY group_key HAVING sum(n) > 0', [this.held(table, "group_key <> ''", [])]);
    return new Map(rows.map((r: { group_key: string; n: number }) => [r.group_key, r.n]));
  }

  /** Folds the changes appended so far into the base; answers how many it folded. */
  async compact(): Promise<number> {
    const { rows } = await this.db.raw('SELECT compact_row_counts() AS folded');
    return Number(rows[0].folded);
  }
}
