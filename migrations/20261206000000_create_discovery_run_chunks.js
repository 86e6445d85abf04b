// A run is split into chunks of addresses that any worker may take, each held by its own lease,
// so that a worker lost mid-run costs only the chunk it held, which goes back to the queue. What a
// chunk has scanned is kept per address until the run loads it, so that a retried chunk scans
// only the addresses it has not done, and the load (with its retirement) waits for every chunk.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('discovery_run_chunks', (t) => {
    t.comment('A slice of the addresses of a discovery run, taken by one worker at a time');
    t.bigIncrements('id').comment('Chunk number');
    t.uuid('run_id').notNullable().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run');
    t.integer('seq').notNullable().comment('Place of the chunk in the run, from 0');
    t.specificType('entries', 'text[]').notNullable().comment('Its addresses as target entries: single addresses, host names and IPv4 ranges');
    t.string('first_address', 255).notNullable().comment('First address of the chunk, to name it');
    t.string('last_address', 255).notNullable().comment('Last address of the chunk, to name it');
    t.integer('size').notNullable().comment('Addresses in the chunk');
    t.integer('done').notNullable().defaultTo(0).comment('Addresses scanned so far');
    t.string('status', 16).notNullable().defaultTo('QUEUED').comment('QUEUED, RUNNING, DONE, FAILED or CANCELLED');
    t.integer('attempts').notNullable().defaultTo(0).comment('Times a worker took it');
    t.string('worker', 100).comment('Worker that holds or last held it');
    t.timestamp('lease_expires_at', { useTz: true }).comment('A RUNNING chunk whose lease has expired goes back to the queue, or fails after its last attempt');
    t.timestamp('finished_at', { useTz: true }).comment('When it ended');
    t.unique(['run_id', 'seq'], { indexName: 'discovery_run_chunks_run_seq_key' });
  });
  await knex.raw(`CREATE INDEX discovery_run_chunks_active_idx ON discovery_run_chunks (run_id, seq) WHERE status IN ('QUEUED', 'RUNNING')`);
  await knex.raw(`CREATE INDEX discovery_run_chunks_lease_idx ON discovery_run_chunks (lease_expires_at) WHERE status = 'RUNNING'`);
  await knex.schema.createTable('discovery_run_results', (t) => {
    t.comment('What a chunk learnt of each address it scanned, kept until its run loads it');
    t.bigIncrements('id').comment('Result number, in the order they were kept');
    t.uuid('run_id').notNullable().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run');
    t.bigInteger('chunk_id').notNullable().references('id').inTable('discovery_run_chunks').onDelete('CASCADE').comment('Chunk that scanned it');
    t.string('address', 255).notNullable().comment('Address as the chunk lists it (a host name before resolution)');
    t.jsonb('result').notNullable().comment('The scan result of the address, as the loader takes it');
    t.unique(['chunk_id', 'address'], { indexName: 'discovery_run_results_chunk_address_key' });
    t.index(['run_id', 'id'], 'discovery_run_results_run_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('discovery_run_results');
  await knex.schema.dropTable('discovery_run_chunks');
}
