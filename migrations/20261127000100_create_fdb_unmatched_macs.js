// Unmanaged endpoints on switch ports (issue 13): the MACs a switch forwarding table places on an
// access port that match no known interface. FDB connections (interface_connections) only hold
// MACs that match an interface, so without this table the insight feed unmanaged-port-endpoints
// could never list an endpoint that no discovery knows. Replaced per switch at each FDB read.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('fdb_unmatched_macs', (t) => {
    t.comment('MACs on switch access ports (forwarding tables) that no known interface has; rows of a switch are replaced at each read of its table');
    t.uuid('switch_asset_id').notNullable().comment('The switch (asset id, Neo4j)');
    t.string('port', 256).notNullable().comment('The switch port (interface name) whose forwarding table holds the MAC');
    t.string('mac_address', 17).notNullable().comment('The MAC, normalised (aa:bb:cc:dd:ee:ff)');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().comment('First read that showed it');
    t.timestamp('last_seen_at', { useTz: true }).notNullable().comment('Latest read that showed it');
    t.primary(['switch_asset_id', 'port', 'mac_address'], { constraintName: 'fdb_unmatched_macs_pk' });
    t.index(['mac_address'], 'fdb_unmatched_macs_mac_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('fdb_unmatched_macs');
}
