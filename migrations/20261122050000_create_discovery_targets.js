// Discovery targets: what to scan (addresses), how (methods, ports, credentials) and when
// (an optional cron schedule).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('discovery_targets', (t) => {
    t.comment('Scopes that discovery scans, on demand or on a schedule');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Target id');
    t.string('name', 100).notNullable().comment('Unique name');
    t.specificType('addresses', 'text[]').notNullable().comment('IPs, IPv4 CIDRs, ranges and host names');
    t.integer('address_count').notNullable().comment('How many addresses they stand for (bounded by a setting)');
    t.specificType('methods', 'text[]').notNullable().comment('SWEEP, SSH, SNMP');
    t.integer('ssh_port').notNullable().defaultTo(22).comment('SSH port');
    t.integer('snmp_port').notNullable().defaultTo(161).comment('SNMP port');
    t.specificType('credential_ids', 'uuid[]').notNullable().defaultTo('{}').comment('Credentials offered besides those whose match pattern covers an address');
    t.string('schedule', 100).comment('Cron expression (UTC) of scheduled scans; none when null');
    t.boolean('enabled').notNullable().defaultTo(true).comment('A disabled target is neither scheduled nor scannable');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was created');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last change');
    t.unique(['name'], { indexName: 'discovery_targets_name_uq' });
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('discovery_targets');
}
