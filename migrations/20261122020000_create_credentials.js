// The credentials vault of discovery: metadata in credentials, each secret field encrypted
// (AES-256-GCM) in its own row of credential_secrets, with the key version that encrypted it.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('credentials', (t) => {
    t.comment('Credentials offered to discovery targets; their secrets live encrypted in credential_secrets');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Credential id');
    t.string('name', 100).notNullable().comment('Unique name');
    t.string('kind', 30).notNullable().comment('SSH_PASSWORD, SSH_KEY, SNMP_V2C, SNMP_V3, WINRM, HTTP_BASIC or CLOUD_ACCESS_KEY');
    t.string('description', 1000).comment('Free text');
    t.specificType('match_patterns', 'text[]').notNullable().defaultTo('{}').comment('CIDRs or host patterns of the addresses it is offered to');
    t.jsonb('settings').notNullable().defaultTo('{}').comment('Non-secret fields of the kind (user name, protocols, port)');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('When it was created');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last change');
    t.unique(['name'], { indexName: 'credentials_name_uq' });
    t.index(['kind'], 'credentials_kind_idx');
  });
  await knex.schema.createTable('credential_secrets', (t) => {
    t.comment('One encrypted secret field of a credential (AES-256-GCM; associated data binds id, field and key version)');
    t.uuid('credential_id').notNullable().references('id').inTable('credentials').onDelete('CASCADE').comment('Credential it belongs to');
    t.string('field', 40).notNullable().comment('Name of the secret field, e.g. password, privateKey');
    t.integer('key_version').notNullable().comment('Version of the vault key that encrypted it');
    t.binary('iv').notNullable().comment('12-byte GCM nonce');
    t.binary('ciphertext').notNullable().comment('Encrypted value');
    t.binary('auth_tag').notNullable().comment('16-byte GCM tag');
    t.primary(['credential_id', 'field'], { constraintName: 'credential_secrets_pk' });
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('credential_secrets');
  await knex.schema.dropTable('credentials');
}
