// q over the audit trail (GET /audit-events?q=...) matches a part of the action, the actor's name,
// the target's id or the details with ILIKE '%q%': a trigram index on them (pg_trgm, created by
// migration 20261130020000) finds the events that can match instead of reading the whole trail.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE INDEX audit_events_search_idx ON audit_events USING gin (
    action gin_trgm_ops, actor_name gin_trgm_ops, target_id gin_trgm_ops, (details::text) gin_trgm_ops)`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX audit_events_search_idx');
}
