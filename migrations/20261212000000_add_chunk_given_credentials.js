// The credentials a remote scanner's claim of a chunk gave it (their ids, by method), kept with the
// chunk at that attempt: its reports may name only those (a credential that worked, those it
// tried), whatever happens to the credentials and the target while the chunk runs.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_run_chunks', (t) => {
    t.jsonb('given_credentials').comment("Ids of the credentials a remote scanner's claim gave at the current attempt, by method; null: taken by a central worker");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_run_chunks', (t) => {
    t.dropColumn('given_credentials');
  });
}
