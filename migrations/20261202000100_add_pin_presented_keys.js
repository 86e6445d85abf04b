// A pinned SSH host key or TLS certificate that a host no longer presents is refused
// (HOST_KEY_CHANGED, CERTIFICATE_CHANGED) and the new one is kept beside the pin, so that an
// administrator can accept exactly that one (POST /api/v1/discovery/pins/accept) instead of
// deleting the pin, which would trust whatever answers next.

const PINS = [
  { table: 'ssh_host_keys', detail: 'presented_key_type', what: 'Key algorithm of the key presented' },
  { table: 'tls_certificate_pins', detail: 'presented_subject', what: 'Subject of the certificate presented' },
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  for (const { table, detail, what } of PINS) {
    await knex.schema.alterTable(table, (t) => {
      t.string('presented_fingerprint', 128).comment('Fingerprint of the other key or certificate the host presented last, refused (null: none)');
      t.string(detail, 500).comment(what);
      t.timestamp('presented_at', { useTz: true }).comment('When it was presented last');
    });
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const { table, detail } of PINS) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('presented_fingerprint');
      t.dropColumn(detail);
      t.dropColumn('presented_at');
    });
  }
}
