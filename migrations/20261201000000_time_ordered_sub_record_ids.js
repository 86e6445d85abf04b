// New sub-record rows take time-ordered ids (the layout of UUID version 7: milliseconds since the
// epoch, then random bits) instead of random ones. The list orders end on the row id (name, id;
// migration 20261130010000), and a name is shared by thousands of hosts' rows: with a random id
// each new row landed on a random page of its name's run, one index page read and written per
// row. At 10 million packages, one new host's 462 packages took 63-127 ms to insert, 26-48 ms
// with time-ordered ids, which land where the last host's did. Processes, replaced at every
// scan, are new rows each time. The function is ours rather than PostgreSQL 18's uuidv7() so that
// every supported server has it; within a millisecond the order is random, which costs nothing here.

const TABLES = ['software_packages', 'running_processes', 'discovered_services', 'network_interfaces'];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`
    CREATE FUNCTION time_ordered_uuid() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
      SELECT encode(
        -- version 7: bits 52 and 53 turn version 4's 0100 into 0111
        set_bit(set_bit(
          overlay(uuid_send(gen_random_uuid())
            PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
            FROM 1 FOR 6),
          52, 1), 53, 1),
        'hex')::uuid
    $$`);
  for (const table of TABLES) await knex.raw('ALTER TABLE ?? ALTER COLUMN id SET DEFAULT time_ordered_uuid()', [table]);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const table of TABLES) await knex.raw('ALTER TABLE ?? ALTER COLUMN id SET DEFAULT gen_random_uuid()', [table]);
  await knex.raw('DROP FUNCTION time_ordered_uuid()');
}
