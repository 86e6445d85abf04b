// The credentials a run offered to its hosts, so that its diagnosis can name their kinds (never
// their secrets) even when they came from match patterns rather than the target's list.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.specificType('credentials_tried', 'uuid[]').notNullable().defaultTo('{}').comment('Credentials the run offered to its hosts (listed on the target or matched by pattern)');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropColumn('credentials_tried');
  });
}
