// GET /discovery/runs lists runs newest first (queued_at, then id) and seeks to the row after a
// cursor: indexes on the whole order, alone and behind each filter, let every page start where
// the previous one ended instead of counting past the rows before it.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropIndex(['queued_at'], 'discovery_runs_queued_idx');
    t.dropIndex(['target_id', 'queued_at'], 'discovery_runs_target_idx');
    t.dropIndex(['status'], 'discovery_runs_status_idx');
    t.index(['queued_at', 'id'], 'discovery_runs_order_idx');
    t.index(['target_id', 'queued_at', 'id'], 'discovery_runs_target_order_idx');
    t.index(['status', 'queued_at', 'id'], 'discovery_runs_status_order_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropIndex(['status', 'queued_at', 'id'], 'discovery_runs_status_order_idx');
    t.dropIndex(['target_id', 'queued_at', 'id'], 'discovery_runs_target_order_idx');
    t.dropIndex(['queued_at', 'id'], 'discovery_runs_order_idx');
    t.index(['status'], 'discovery_runs_status_idx');
    t.index(['target_id', 'queued_at'], 'discovery_runs_target_idx');
    t.index(['queued_at'], 'discovery_runs_queued_idx');
  });
}
