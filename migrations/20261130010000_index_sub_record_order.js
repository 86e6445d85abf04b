// GET /assets lists synthesized rows (packages, processes, services, interfaces) by name, or by
// when they were first seen, then id, and seeks to the row after a cursor: an index on each whole
// order lets a page start where the previous one ended, at 10 million rows, instead of sorting
// the table (a page of processes took over 5 s). Last-seen orders stay unindexed where rescans
// rewrite that column (packages, services, interfaces): updated in place, such a row writes no
// index entry (migration 20261124010000). Interfaces by host name: migration 20261130030000.

const INDEXES = [
  ['software_packages', 'software_packages_name_order_idx', ['package_name', 'id']],
  ['software_packages', 'software_packages_first_seen_order_idx', ['first_seen_at', 'package_name', 'id']],
  ['running_processes', 'running_processes_name_order_idx', ['process_name', 'id']],
  // A process's first and last sighting are the read that listed it.
  ['running_processes', 'running_processes_observed_order_idx', ['observed_at', 'process_name', 'id']],
  ['discovered_services', 'discovered_services_name_order_idx', ['service_name', 'id']],
  ['discovered_services', 'discovered_services_first_seen_order_idx', ['first_seen_at', 'service_name', 'id']],
  ['network_interfaces', 'network_interfaces_name_order_idx', ['name', 'id']],
  ['network_interfaces', 'network_interfaces_first_seen_order_idx', ['first_seen_at', 'name', 'id']],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  // The order by name serves what the index of names alone served.
  await knex.schema.alterTable('software_packages', (t) => t.dropIndex(['package_name'], 'software_packages_name_idx'));
  for (const [table, name, columns] of INDEXES) await knex.schema.alterTable(table, (t) => t.index(columns, name));
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const [table, name, columns] of [...INDEXES].reverse()) await knex.schema.alterTable(table, (t) => t.dropIndex(columns, name));
  await knex.schema.alterTable('software_packages', (t) => t.index(['package_name'], 'software_packages_name_idx'));
}
