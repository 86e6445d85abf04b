// Scheduled scans remember the last fire time they acted on, so that each fire time of a target's
// cron starts one run, whichever scheduler process sees it first.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.timestamp('last_scheduled_at', { useTz: true }).comment('The latest fire time of the schedule that started (or tried to start) a run');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.dropColumn('last_scheduled_at');
  });
}
