// A target may name the group of remote scanners that scan it (scannerGroup): its chunks are then
// taken only by scanners of that group, never by the central workers, which take only the chunks
// of targets without one. A run keeps the group its target named when it was started, so that a
// change of the target meanwhile does not move the chunks of a run under way.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.string('scanner_group', 64).comment('Group of remote scanners that scan it; null: the central workers');
  });
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.string('scanner_group', 64).comment("Group of remote scanners that take its chunks (its target's when it started); null: the central workers");
  });
  // A scanner's claim looks for the running runs of its group.
  await knex.raw(`CREATE INDEX discovery_runs_scanner_group_idx ON discovery_runs (scanner_group, queued_at) WHERE status = 'RUNNING' AND scanner_group IS NOT NULL`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX discovery_runs_scanner_group_idx');
  await knex.schema.alterTable('discovery_runs', (t) => {
    t.dropColumn('scanner_group');
  });
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.dropColumn('scanner_group');
  });
}
