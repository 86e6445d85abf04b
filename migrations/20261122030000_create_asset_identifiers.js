// The identity index of assets: each identifier an asset was seen with (serial number, MAC, cloud
// instance id, FQDN, host name at a site, IP, name within its parent), pointing at the asset id.
// Import and discovery reconcile against it before they write to the graph, so a host seen again,
// or by another connector, updates the same asset instead of creating a twin.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('asset_identifiers', (t) => {
    t.comment('Identifiers by which an asset is recognised across scans, connectors and imports');
    t.string('rule', 32).notNullable().comment('SERIAL_NUMBER, MAC_ADDRESS, CLOUD_INSTANCE_ID, FQDN, HOSTNAME_SITE, IP_ADDRESS or NAME_IN_PARENT');
    t.string('value', 512).notNullable().comment('Normalised identifier value');
    t.uuid('asset_id').notNullable().comment('Asset (Neo4j Asset.id) that holds it now');
    t.string('asset_category', 32).notNullable().comment('Category of that asset, to keep a VM from matching its hypervisor by a shared address');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last observation that set it');
    t.primary(['rule', 'value'], { constraintName: 'asset_identifiers_pk' });
    t.index(['asset_id'], 'asset_identifiers_asset_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('asset_identifiers');
}
