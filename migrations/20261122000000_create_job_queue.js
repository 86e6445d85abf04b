// The job queue of agenda (scheduled scans, sweeps, diagnoses), created here rather than by the
// backend at connect time: several processes starting together would race to create it.
// The SQL is the backend's own (the package version is pinned in package.json).
import { getCreateIndexesSQL, getCreateTableSQL, getUpdateTimestampTriggerSQL } from '@agendajs/postgres-backend';

const TABLE = 'agenda_jobs';

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(getCreateTableSQL(TABLE));
  for (const sql of getCreateIndexesSQL(TABLE)) await knex.raw(sql);
  await knex.raw(getUpdateTimestampTriggerSQL(TABLE));
  await knex.raw(`COMMENT ON TABLE ${TABLE} IS 'Queued, scheduled and recurring jobs of agenda (one row per job)'`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`DROP TABLE IF EXISTS ${TABLE}`);
  await knex.raw(`DROP FUNCTION IF EXISTS update_${TABLE}_updated_at()`);
}
