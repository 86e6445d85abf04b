// The team-chat alert of a run that finished with errors and the outcome of its delivery, which
// is retried with back-off by jobs of its own: a webhook that is down never touches the run.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('run_alerts', (t) => {
    t.comment('Delivery of the team-chat alert of a discovery run that finished with errors');
    t.uuid('run_id').primary().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run the alert is about');
    t.string('status', 12).notNullable().comment('PENDING (to be tried, or retried), DELIVERED or FAILED (attempts used up)');
    t.string('format', 8).notNullable().comment('Message format: slack or teams');
    t.integer('attempts').notNullable().defaultTo(0).comment('Deliveries tried');
    t.timestamp('last_attempt_at', { useTz: true }).comment('When the last delivery was tried');
    t.timestamp('next_attempt_at', { useTz: true }).comment('When the next retry is due (PENDING after a failed try)');
    t.timestamp('delivered_at', { useTz: true }).comment('When the webhook accepted it');
    t.string('last_error', 500).comment('Why the last try failed, without the webhook address');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When the alert was raised');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('run_alerts');
}
