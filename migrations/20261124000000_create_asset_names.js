// The name of each asset beside its sub-records: the streamed exports of software, processes and
// services are ordered by asset name (spec 4.7) and carry the asset's display and host names, so
// PostgreSQL keeps a copy of both, written by the load step with each asset (before its graph
// write) and reconciled with the graph by the retention sweep. One ordered SQL statement then
// serves a whole export, instead of a walk of the graph that joins PostgreSQL page by page.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('asset_names', (t) => {
    t.comment('Display and host name of every asset (a copy of the graph, kept by the load step), for exports in asset-name order');
    t.uuid('asset_id').primary({ constraintName: 'asset_names_pk' }).comment('Asset (Neo4j Asset.id)');
    // Code-point order, as Neo4j orders strings: an export lists assets in the order of GET /assets.
    t.specificType('display_name', 'text COLLATE "C"').notNullable().comment('Asset.displayName');
    t.text('hostname').comment('Asset.hostname');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('Last write by the load step or the reconciliation');
    t.index(['display_name', 'asset_id'], 'asset_names_order_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('asset_names');
}
