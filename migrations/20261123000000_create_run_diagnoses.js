// The diagnosis of a run that finished with errors: one row per run, replaced by each attempt
// (POST .../diagnosis or the follow-up job), so that GET answers the outcome of the last attempt.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('run_diagnoses', (t) => {
    t.comment('The last diagnosis attempt of a discovery run that finished with errors');
    t.uuid('run_id').primary().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run diagnosed');
    t.string('status', 8).notNullable().comment('OK (a diagnosis) or ERROR (the last attempt failed)');
    t.text('summary').comment('What went wrong, in a few sentences (OK only)');
    t.jsonb('likely_causes').comment('Array of likely causes, most likely first (OK only)');
    t.jsonb('recommended_actions').comment('Array of recommended actions, first to try first (OK only)');
    t.string('confidence', 8).comment('LOW, MEDIUM or HIGH (OK only)');
    t.string('model', 200).notNullable().comment('Model that answered or was asked (rules-v1 for the built-in rules)');
    t.string('reason', 500).comment('Why the last attempt failed, safe to show (ERROR only)');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When the attempt ended');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('run_diagnoses');
}
