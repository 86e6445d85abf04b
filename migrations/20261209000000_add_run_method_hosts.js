// The hosts each method with a per-run limit (FINGERPRINT's maxHosts) was tried at in a run, by
// method: a run's chunks run on any worker, so the count is kept with the run.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.jsonb('method_hosts').notNullable().defaultTo('{}').comment('Hosts tried per method with a per-run limit, by method name');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropColumn('method_hosts');
  });
}
