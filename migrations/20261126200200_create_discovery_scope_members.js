// The assets a connector scope (for example one vCenter) reported, and when it last did: after a
// complete read of the scope, the members it no longer reports are retired; after a partial read,
// nothing is.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('discovery_scope_members', (t) => {
    t.comment('Assets each connector scope reported, for retiring those a complete read no longer shows');
    t.string('scope', 400).notNullable().comment('The scope, for example VCENTER:10.0.0.5:443');
    t.uuid('asset_id').notNullable().comment('Asset id (Neo4j)');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Observation time of the last run that reported it');
    t.primary(['scope', 'asset_id']);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('discovery_scope_members');
}
