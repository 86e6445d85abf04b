// Remote scanners: processes in networks the service cannot reach, holding no store credentials,
// that take the chunks of their group's targets over the API. Each is known by a token (svcs_),
// kept as a keyed hash in api_tokens like the other tokens, so that its revocation reaches every
// API process as theirs does (auth_changes); this table holds what a scanner is beyond its token.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`COMMENT ON COLUMN api_tokens.kind IS 'USER_TOKEN, INTEGRATION_KEY or SCANNER_TOKEN'`);
  await knex.schema.createTable('scanners', (t) => {
    t.comment('Remote scanners: processes that take chunks of the targets of their group over the API');
    t.uuid('id').primary().references('id').inTable('api_tokens').onDelete('CASCADE').comment('Scanner id, the id of its token');
    t.string('name', 100).notNullable().comment('Name given at creation, unique');
    t.string('scanner_group', 64).notNullable().comment('Group whose targets it scans (a target names it in scannerGroup)');
    t.timestamp('last_contact_at', { useTz: true }).comment('Its last request');
    t.string('version', 64).comment('Version it reported at its last claim');
    t.integer('chunks_done').notNullable().defaultTo(0).comment('Chunks it has ended (DONE or CANCELLED)');
    t.unique(['name'], { indexName: 'scanners_name_key' });
    t.index(['scanner_group'], 'scanners_group_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('scanners');
  await knex.raw(`COMMENT ON COLUMN api_tokens.kind IS 'USER_TOKEN or INTEGRATION_KEY'`);
}
