// The product and version that answer on a discovered service's port, as credential-free
// fingerprinting (nmap's service detection) names them: for hosts that no SSH reaches, they are all
// that is known of what runs there.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('discovered_services', (t) => {
    t.text('product').comment('The product that answers on the port (nmap -sV: OpenSSH, nginx, CUPS), when a fingerprint named it');
    t.text('version').comment('Its version as the answer gave it, when named');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('discovered_services', (t) => {
    t.dropColumn('product');
    t.dropColumn('version');
  });
}
