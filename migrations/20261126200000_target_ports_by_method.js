// A target's ports and connector settings keyed by discovery method, so that a new connector
// needs no column of its own: ports {"SSH": 22, "SNMP": 161, ...} (a method left out uses its
// connector's default port) and settings {"VCENTER": {...}} (validated by the connector).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.jsonb('ports').notNullable().defaultTo('{}').comment('Port per discovery method; a method left out uses its default port');
    t.jsonb('settings').notNullable().defaultTo('{}').comment("Connector settings per discovery method (for example VCENTER's certificate check)");
  });
  await knex.raw(`UPDATE discovery_targets SET ports = jsonb_build_object('SSH', ssh_port, 'SNMP', snmp_port)`);
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.dropColumn('ssh_port');
    t.dropColumn('snmp_port');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.integer('ssh_port').notNullable().defaultTo(22).comment('SSH port');
    t.integer('snmp_port').notNullable().defaultTo(161).comment('SNMP port');
  });
  await knex.raw(`UPDATE discovery_targets SET ssh_port = coalesce((ports->>'SSH')::int, 22), snmp_port = coalesce((ports->>'SNMP')::int, 161)`);
  await knex.schema.alterTable('discovery_targets', (t) => {
    t.dropColumn('ports');
    t.dropColumn('settings');
  });
}
