// Who ran each chunk of a run, as people know them, and when it was taken: the run's chunk list
// (GET /discovery/runs/{id}/chunks) names the central worker (host:pid) or the remote scanner (its
// name, kept even once the scanner is revoked) of its latest attempt.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_run_chunks', (t) => {
    t.string('worker_name', 100).comment('Name of the central worker (host:pid) or remote scanner that holds or last held it');
    t.timestamp('taken_at', { useTz: true }).comment('When its latest attempt was taken');
  });
  await knex.raw(`UPDATE discovery_run_chunks c SET worker_name = coalesce(s.name, c.worker)
    FROM discovery_run_chunks c2 LEFT JOIN scanners s ON c2.worker = 'scanner:' || s.id::text
    WHERE c2.id = c.id AND c.worker IS NOT NULL`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_run_chunks', (t) => {
    t.dropColumn('worker_name');
    t.dropColumn('taken_at');
  });
}
