// Rescans rewrite the last_seen_at of every package and service they see again. With an index on
// that column each such update writes a new row version elsewhere in the table and a new index
// entry, so over time an asset's rows scatter over the table, and the exports, which read them
// asset by asset, pay a random read per row. Without it, and with room left in each page, these
// updates stay in place (heap-only tuples). The retention sweep reads the table whole instead,
// once a day.

const TABLES = [
  ['software_packages', 'software_packages_last_seen_idx'],
  ['discovered_services', 'discovered_services_last_seen_idx'],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  for (const [table, index] of TABLES) {
    await knex.raw('DROP INDEX IF EXISTS ??', [index]);
    await knex.raw('ALTER TABLE ?? SET (fillfactor = 90)', [table]);
  }
  await knex.raw('ALTER TABLE network_interfaces SET (fillfactor = 90)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('ALTER TABLE network_interfaces RESET (fillfactor)');
  for (const [table, index] of TABLES) {
    await knex.raw('ALTER TABLE ?? RESET (fillfactor)', [table]);
    await knex.raw('CREATE INDEX ?? ON ?? (last_seen_at)', [index, table]);
  }
}
