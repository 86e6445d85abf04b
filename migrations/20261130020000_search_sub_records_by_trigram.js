// q over synthesized rows (GET /assets?type=SOFTWARE_PACKAGE&q=...) matches a part of the row's
// name or of its searched column (publisher, command line, display name, MAC) with ILIKE '%q%',
// which read the whole table: at 10 million packages, 5.4 s for a count, so every such request
// failed at the store time-out. A trigram index on those columns (pg_trgm, shipped with
// PostgreSQL and trusted since 13) finds the rows that can match instead. A search of fewer than
// three characters gives no trigram and still reads the table. Names and searched columns do not
// change when a rescan updates a row in place, so those updates stay heap-only.

const INDEXES = [
  ['software_packages', 'software_packages_search_idx', ['package_name', 'publisher']],
  ['running_processes', 'running_processes_search_idx', ['process_name', 'command_line']],
  ['discovered_services', 'discovered_services_search_idx', ['service_name', 'display_name']],
  ['network_interfaces', 'network_interfaces_search_idx', ['name', 'mac_address']],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  for (const [table, name, columns] of INDEXES) {
    await knex.raw(`CREATE INDEX ?? ON ?? USING gin (${columns.map(() => '?? gin_trgm_ops').join(', ')})`, [name, table, ...columns]);
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const [, name] of INDEXES) await knex.raw('DROP INDEX ??', [name]);
  // The extension stays: another database object may use it.
}
