// Server certificates pinned at first contact by the connectors that speak HTTPS (VCENTER): a
// later contact with another certificate is refused, as a changed SSH host key is.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('tls_certificate_pins', (t) => {
    t.comment('TLS server certificates pinned at first contact, per address and port');
    t.string('address', 253).notNullable().comment('Address or host name connected to');
    t.integer('port').notNullable().comment('TCP port');
    t.string('fingerprint', 100).notNullable().comment('SHA-256 fingerprint of the certificate (hex pairs, as openssl prints it)');
    t.string('subject', 500).notNullable().comment('Subject of the certificate, for people');
    t.timestamp('pinned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('First contact');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last contact with this certificate');
    t.primary(['address', 'port']);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('tls_certificate_pins');
}
