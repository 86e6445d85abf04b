// The facts of each asset, per source that reported them (attribute-level reconciliation): when
// one scan method fails, the facts another method supplied stay, and the value an asset shows for
// a field is chosen among its sources by precedence (src/features/import/asset-facts.ts). A fact
// goes when no source has reported it for service.aging.inactive-after-days (the aging sweep).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('asset_facts', (t) => {
    t.comment('What each source (ssh, snmp, sweep, vcenter, import:<name>) last reported of each field of an asset');
    t.uuid('asset_id').notNullable().comment('Asset (Neo4j Asset.id)');
    t.text('field').notNullable().comment('assetType, displayName, hostname, fqdn, site, environment, vendor, model, serialNumber, macAddresses, ipAddresses, or custom.<key>');
    t.text('source').notNullable().comment('Who reported it: a discovery method (ssh, snmp, sweep, vcenter) or import:<bundle source>');
    t.jsonb('value').notNullable().comment('The value reported (JSON)');
    t.boolean('owned').notNullable().defaultTo(false).comment('The importer said it owns the field: its value outranks discovery');
    t.timestamp('observed_at', { useTz: true }).notNullable().comment('The latest observation that reported it (aging counts from it)');
    t.primary(['asset_id', 'field', 'source'], { constraintName: 'asset_facts_pk' });
    t.index(['observed_at'], 'asset_facts_observed_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('asset_facts');
}
