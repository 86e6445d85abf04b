// What discovery remembers per address between runs (the SSH host key pinned at first contact,
// the credential that last worked) and what each run found at each address (the asset it became
// and the identity rule that matched it).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('ssh_host_keys', (t) => {
    t.comment('SSH host keys pinned at first contact; a different key later is refused');
    t.string('address', 255).notNullable().comment('Address the key was seen at');
    t.integer('port').notNullable().comment('SSH port');
    t.string('key_type', 64).notNullable().comment('Key algorithm, e.g. ssh-ed25519');
    t.string('fingerprint', 128).notNullable().comment('SHA256 fingerprint, base64 as OpenSSH prints it');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was pinned');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it last matched');
    t.primary(['address', 'port']);
  });
  await knex.schema.createTable('discovery_address_credentials', (t) => {
    t.comment('The credential that last worked at an address, per method: offered first next time');
    t.string('address', 255).notNullable().comment('Address');
    t.string('method', 16).notNullable().comment('SSH or SNMP');
    t.uuid('credential_id').notNullable().references('id').inTable('credentials').onDelete('CASCADE').comment('Credential that worked');
    t.timestamp('succeeded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it last worked');
    t.primary(['address', 'method']);
  });
  await knex.schema.createTable('discovery_run_hosts', (t) => {
    t.comment('Each host a run reached: the asset it became and how its identity was matched');
    t.uuid('run_id').notNullable().references('id').inTable('discovery_runs').onDelete('CASCADE').comment('Run');
    t.string('address', 255).notNullable().comment('Address scanned');
    t.uuid('asset_id').notNullable().comment('Asset the host was loaded as');
    t.boolean('created').notNullable().comment('Whether the run created the asset');
    t.string('matched_by', 32).comment('Identity rule that matched an existing asset (null when created)');
    t.specificType('methods', 'text[]').notNullable().comment('Methods that observed the host');
    t.string('outcome', 16).notNullable().comment('SUCCESS, PARTIAL or FAILED');
    t.primary(['run_id', 'address']);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('discovery_run_hosts');
  await knex.schema.dropTable('discovery_address_credentials');
  await knex.schema.dropTable('ssh_host_keys');
}
