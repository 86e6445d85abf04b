// When a run began loading what it found: from then on a cancel is refused (409), so that a run the
// API said it would stop never loads anyway (a cancel between the last progress report and the load
// used to be accepted, and the run then completed).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.timestamp('loading_started_at', { useTz: true }).comment('When the run began loading its results; a cancel is refused from then on');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropColumn('loading_started_at');
  });
}
