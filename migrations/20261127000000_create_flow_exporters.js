// Flow exporters (issue 13): what each collector heard from each exporter, added up across
// collectors and restarts (the decoder's counters live in one process's memory), the interface
// names exporters announced in options records, and the assets an exporter stands for. The API
// process reads them for GET /flow/exporters; the flow-inventory job turns them into
// FLOW_EXPORTER assets.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('flow_exporters', (t) => {
    t.comment('One row per exporter address; counters are sums of what every collector counted');
    t.specificType('address', 'inet').primary().comment('Address the exporter sends from (sFlow: its agent address)');
    t.string('protocol', 16).comment('Protocol of its latest datagram: netflow-v5, netflow-v9, ipfix, sflow-v5');
    t.timestamp('first_datagram_at', { useTz: true }).notNullable().comment('First datagram any collector received from it');
    t.timestamp('last_datagram_at', { useTz: true }).notNullable().comment('Latest datagram');
    t.bigInteger('datagrams').notNullable().defaultTo(0).comment('Datagrams received');
    t.bigInteger('flows').notNullable().defaultTo(0).comment('Flow records decoded');
    t.bigInteger('decode_errors').notNullable().defaultTo(0).comment('Datagrams dropped as malformed, truncated or of an unknown version');
    t.bigInteger('missing_templates').notNullable().defaultTo(0).comment('Data sets skipped because their template was not known');
    t.bigInteger('templates_refused').notNullable().defaultTo(0).comment('Templates refused because the exporter held its cap');
    t.uuid('asset_id').comment('Its FLOW_EXPORTER asset (set by the flow-inventory job)');
    t.uuid('device_asset_id').comment('The host or network device at the same address, which the FLOW_EXPORTER asset RUNS_ON');
    t.timestamp('asset_synced_at', { useTz: true }).comment('When the flow-inventory job last loaded its asset');
    t.index(['last_datagram_at'], 'flow_exporters_last_datagram_idx');
  });
  await knex.schema.createTable('flow_exporter_interfaces', (t) => {
    t.comment('Interface names an exporter announced in options records (NetFlow v9/IPFIX IE 82)');
    t.specificType('exporter', 'inet').notNullable().references('address').inTable('flow_exporters').onDelete('CASCADE').comment('The exporter');
    t.bigInteger('if_index').notNullable().comment('SNMP ifIndex, as flows name it in input/output interface');
    t.string('name', 256).notNullable().comment('Interface name (ifName)');
    t.timestamp('updated_at', { useTz: true }).notNullable().comment('When it was last announced');
    t.primary(['exporter', 'if_index'], { constraintName: 'flow_exporter_interfaces_pk' });
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('flow_exporter_interfaces');
  await knex.schema.dropTable('flow_exporters');
}
