// A digest of everything the stores hold that is data: every row of every PostgreSQL table and
// every node and edge of the graph. Two equal digests around a refused request show that it
// changed nothing.
import { createHash } from 'node:crypto';
import type { TestService } from './test-stores.js';

// Rows that change with any authenticated call, failed or not, and are not data.
const VOLATILE_TABLES = new Set(['http_sessions', 'agenda_jobs', 'knex_migrations', 'knex_migrations_lock']);
// The row counts (migration count_rows_by_group) as the counts they hold: a compaction moves them
// from the changes to the base, and a statement that changed no row appends a change of 0.
const ROW_COUNT_TABLES = new Set(['row_counts', 'row_count_changes', 'row_count_sources']);
const ROW_COUNTS_HELD = `SELECT 'row counts' AS t, md5(coalesce(string_agg(source_table || '/' || group_key || '=' || n, '|' ORDER BY source_table, group_key), '')) AS h
  FROM (SELECT source_table, group_key, sum(n) AS n FROM (SELECT source_table, group_key, row_count AS n FROM row_counts UNION ALL SELECT source_table, group_key, delta FROM row_count_changes) c
        GROUP BY 1, 2 HAVING sum(n) <> 0) held`;
// A refused graph query is audited by design (the trail of what analysts tried): not data.
const AUDITED_REFUSALS: Record<string, string> = { audit_events: "WHERE coalesce(x.details->>'outcome', 'OK') = 'OK'" };

export async function storeSnapshot(service: TestService): Promise<string> {
  const { db, driver } = service.running.container;
  const tables = (await db.raw<{ rows: { t: string }[] }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.t).filter((t) => !VOLATILE_TABLES.has(t) && !ROW_COUNT_TABLES.has(t));
  const sql = [...tables.map((t) => `SELECT '${t}' AS t, md5(coalesce(string_agg((to_jsonb(x) - 'last_used_at')::text, '|' ORDER BY (to_jsonb(x) - 'last_used_at')::text), '')) AS h FROM "${t}" x ${AUDITED_REFUSALS[t] ?? ''}`), ROW_COUNTS_HELD].join(' UNION ALL ');
  const [{ rows }, graph] = await Promise.all([
    db.raw<{ rows: { t: string; h: string }[] }>(sql),
    driver.executeQuery(
      // The change counter is a sequence: a statement that changed nothing may still have drawn a number.
      'MATCH (n) WHERE NOT n:ChangeCounter OPTIONAL MATCH (n)-[r]->() WITH n, collect(properties(r)) AS out ORDER BY elementId(n) RETURN collect([labels(n), properties(n), out]) AS all',
    ),
  ]);
  return createHash('sha256').update(JSON.stringify(rows)).update(JSON.stringify(graph.records[0]?.get('all'))).digest('hex');
}
