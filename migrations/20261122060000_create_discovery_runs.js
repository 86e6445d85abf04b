// Discovery runs and their error records. At most one QUEUED or RUNNING run per target (a
// partial unique index); a worker holds a RUNNING run by a lease that it renews, so that a run
// left by a crashed worker can be failed once its lease has expired.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('discovery_runs', (t) => {
    t.comment('One scan of a discovery target');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Run id');
    t.uuid('target_id').references('id').inTable('discovery_targets').onDelete('SET NULL').comment('Target scanned (null once deleted)');
    t.string('target_name', 100).notNullable().comment('Name of the target at the time of the run');
    t.string('trigger', 16).notNullable().comment('MANUAL or SCHEDULED');
    t.string('status', 24).notNullable().comment('QUEUED, RUNNING, COMPLETED, COMPLETED_WITH_ERRORS, FAILED or CANCELLED');
    t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was asked for');
    t.timestamp('started_at', { useTz: true }).comment('When a worker took it');
    t.timestamp('finished_at', { useTz: true }).comment('When it ended');
    t.integer('progress_done').notNullable().defaultTo(0).comment('Addresses done');
    t.integer('progress_total').notNullable().defaultTo(0).comment('Addresses in scope');
    t.integer('hosts_responding').notNullable().defaultTo(0).comment('Addresses that answered');
    t.integer('assets_created').notNullable().defaultTo(0).comment('Assets the run created');
    t.integer('assets_updated').notNullable().defaultTo(0).comment('Known assets the run observed');
    t.integer('error_count').notNullable().defaultTo(0).comment('Error records of the run');
    t.string('worker', 100).comment('Worker that holds or held it');
    t.timestamp('lease_expires_at', { useTz: true }).comment('A RUNNING run whose lease has expired is failed by the sweeper');
    t.boolean('cancel_requested').notNullable().defaultTo(false).comment('Set by POST .../cancel on a RUNNING run');
    t.string('failure_reason', 1000).comment('Why a FAILED run failed');
    t.index(['queued_at'], 'discovery_runs_queued_idx');
    t.index(['target_id', 'queued_at'], 'discovery_runs_target_idx');
    t.index(['status'], 'discovery_runs_status_idx');
  });
  await knex.raw(`CREATE UNIQUE INDEX discovery_runs_one_active_per_target ON discovery_runs (target_id) WHERE status IN ('QUEUED', 'RUNNING')`);
  await knex.schema.createTable('discovery_run_errors', (t) => {
    t.comment('What went wrong during a run, per address, method and stage');
    t.bigIncrements('id').comment('Error number');
    t.uuid('run_id').notNullable().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run');
    t.string('address', 255).comment('Address concerned, if any');
    t.string('method', 16).notNullable().comment('SWEEP, SSH or SNMP; RUN for the run as a whole');
    t.string('stage', 32).notNullable().comment('resolve, connect, authenticate, collect, load, ...');
    t.string('code', 48).notNullable().comment('Stable error code (DNS_FAILURE, CONNECTION_REFUSED, TIMEOUT, ...)');
    t.string('message', 1000).notNullable().comment('What happened, for people');
    t.index(['run_id'], 'discovery_run_errors_run_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('discovery_run_errors');
  await knex.schema.dropTable('discovery_runs');
}
