// Incremental sync of interfaces and their connections: updated_at moves when an interface's
// values or a connection's confidence change (a sighting alone moves last_seen_at only), so that
// the exports can give a CMDB what changed since its last pull (?updatedAfter=).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  for (const table of ['network_interfaces', 'interface_connections']) {
    await knex.schema.alterTable(table, (t) => {
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was created or a value of it last changed');
      t.index(['updated_at'], `${table}_updated_idx`);
    });
    await knex(table).update({ updated_at: knex.ref('last_seen_at') });
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const table of ['network_interfaces', 'interface_connections']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex(['updated_at'], `${table}_updated_idx`);
      t.dropColumn('updated_at');
    });
  }
}
