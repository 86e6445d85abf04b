// Flow collector under hostile input (issue 35): a flow record that cannot be stored is dropped on
// its own, not with its batch, and every such drop is counted per exporter by reason, beside the
// records stored, so that GET /flow/exporters shows where an exporter's records went. Interface
// names expire (service.flows.interface-name-ttl-days): the index finds the stale ones.

const DROP_COLUMNS = [
  ['records_dropped_field_width', 'Flow records dropped alone: a field wider than any value it may hold (a number over 8 bytes, an address not of 4 or 16)'],
  ['records_dropped_field_range', 'Flow records dropped alone: a value its column cannot hold (a port over 65535, bytes beyond 2^53 once sampled)'],
  ['records_dropped_out_of_window', 'Flow records dropped: dated before the raw retention or more than an hour ahead'],
  ['records_dropped_queue_overflow', 'Flow records dropped: the collector held its most waiting flows (PostgreSQL slow or down)'],
  ['records_dropped_write_failed', 'Flow records PostgreSQL refused, each found by splitting its batch, or whose batch failed whole (store down)'],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable('flow_exporters', (t) => {
    t.bigInteger('records_stored').notNullable().defaultTo(0).comment('Flow records stored');
    for (const [column, comment] of DROP_COLUMNS) t.bigInteger(column).notNullable().defaultTo(0).comment(comment);
  });
  await knex.schema.alterTable('flow_exporter_interfaces', (t) => {
    t.index(['updated_at'], 'flow_exporter_interfaces_updated_idx');
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable('flow_exporter_interfaces', (t) => {
    t.dropIndex(['updated_at'], 'flow_exporter_interfaces_updated_idx');
  });
  await knex.schema.alterTable('flow_exporters', (t) => {
    t.dropColumn('records_stored');
    for (const [column] of DROP_COLUMNS) t.dropColumn(column);
  });
}
