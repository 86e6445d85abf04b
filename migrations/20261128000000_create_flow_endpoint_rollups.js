// Flow analytics (issue 13), the second storage step:
// - Endpoint rollups at 1 minute, 5 minutes and 1 hour: one row per exporter, address and protocol
//   with what the address sent and what it received. Top talkers read them instead of the
//   conversation rollups: a bucket holds as many rows as there are talking addresses, not pairs.
//   They are filled from the conversation rollups already kept, so that answers stay the same.
// - The 1-minute conversation rollup loses its unique key: the collector appends each batch's
//   aggregates to it (readers sum), since with ports nearly every flow is a key of its own and
//   the upsert cost a lookup in an index as wide as the row for each flow.
// Partitions are created by the flow store as flows arrive (src/features/flows/flow-store.ts).

const ENDPOINTS = [
  { table: 'flow_endpoint_1m', from: 'flow_rollup_1m', label: '1-minute' },
  { table: 'flow_endpoint_5m', from: 'flow_rollup_5m', label: '5-minute' },
  { table: 'flow_endpoint_1h', from: 'flow_rollup_1h', label: '1-hour' },
];
const TOTALS = ['bytes', 'packets', 'flows'];
const ONE_MINUTE_KEY = ['bucket', 'exporter', 'input_interface', 'output_interface', 'src_addr', 'dst_addr', 'protocol', 'src_port', 'dst_port'];

// COMMENT takes no bind parameters: the texts are this file's constants, quoted here.
const literal = (text) => `'${text.replace(/'/g, "''")}'`;

/** The day partitions of a table, as [name suffix, from, to]. */
async function partitionsOf(knex, table) {
  const { rows } = await knex.raw(
    `SELECT substring(c.relname FROM '_p([0-9]{8})$') AS day FROM pg_inherits JOIN pg_class c ON c.oid = inhrelid WHERE inhparent = CAST(? AS regclass)`,
    [table],
  );
  return rows.filter((r) => r.day).map((r) => {
    const from = new Date(`${r.day.slice(0, 4)}-${r.day.slice(4, 6)}-${r.day.slice(6, 8)}T00:00:00Z`);
    return [r.day, from.toISOString(), new Date(from.getTime() + 86_400_000).toISOString()];
  });
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  for (const { table, from, label } of ENDPOINTS) {
    await knex.raw(`
      CREATE TABLE ${table} (
        bucket timestamptz NOT NULL,
        exporter inet NOT NULL,
        address inet NOT NULL,
        protocol smallint NOT NULL,
        sent_bytes bigint NOT NULL,
        sent_packets bigint NOT NULL,
        sent_flows bigint NOT NULL,
        received_bytes bigint NOT NULL,
        received_packets bigint NOT NULL,
        received_flows bigint NOT NULL
      ) PARTITION BY RANGE (bucket)`);
    await knex.raw(`COMMENT ON TABLE ${table} IS ${literal(`${label} rollup of flow_records per address (no peer, port or interface; flows counted by their start), partitioned by day of bucket`)}`);
    const columns = {
      bucket: `Start of the ${label} bucket`,
      exporter: 'Exporter of the flows',
      address: 'An address at one end of the flows',
      protocol: 'IP protocol number',
      sent_bytes: 'Estimated bytes of the flows the address was the source of (sampling applied)',
      sent_packets: 'Estimated packets of the flows the address was the source of',
      sent_flows: 'Flow records the address was the source of',
      received_bytes: 'Estimated bytes of the flows the address was the destination of',
      received_packets: 'Estimated packets of the flows the address was the destination of',
      received_flows: 'Flow records the address was the destination of',
    };
    for (const [column, comment] of Object.entries(columns)) await knex.raw(`COMMENT ON COLUMN ${table}.${column} IS ${literal(comment)}`);
    // The key the collector's upserts add into (ON CONFLICT); it includes the partition key.
    await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (bucket, exporter, address, protocol)`);
    await knex.raw(`CREATE INDEX ${table}_bucket_brin ON ${table} USING brin (bucket)`);
    // What the conversation rollup of the same width holds, day by day.
    for (const [day, dayFrom, dayTo] of await partitionsOf(knex, from)) {
      await knex.raw(`CREATE TABLE ${table}_p${day} PARTITION OF ${table} FOR VALUES FROM ('${dayFrom}') TO ('${dayTo}') WITH (fillfactor = 70)`);
      await knex.raw(`
        INSERT INTO ${table} (bucket, exporter, address, protocol, sent_bytes, sent_packets, sent_flows, received_bytes, received_packets, received_flows)
        SELECT bucket, exporter, address, protocol, sum(sb), sum(sp), sum(sf), sum(rb), sum(rp), sum(rf)
          FROM (SELECT bucket, exporter, src_addr AS address, protocol, bytes AS sb, packets AS sp, flows AS sf, 0 AS rb, 0 AS rp, 0 AS rf FROM ${from}_p${day}
                UNION ALL
                SELECT bucket, exporter, dst_addr, protocol, 0, 0, 0, bytes, packets, flows FROM ${from}_p${day}) AS ends
         GROUP BY bucket, exporter, address, protocol`);
    }
  }
  await knex.raw('DROP INDEX flow_rollup_1m_key');
  await knex.raw(`COMMENT ON TABLE flow_rollup_1m IS ${literal('1-minute rollup of flow_records (flows counted by their start), partitioned by day of bucket; each batch appends its own aggregates, so a key may have several rows: sum them')}`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const { table } of ENDPOINTS) await knex.raw(`DROP TABLE ${table}`);
  // One row per key again before the key comes back.
  await knex.raw(`CREATE TEMPORARY TABLE flow_rollup_1m_merged AS
    SELECT ${ONE_MINUTE_KEY.join(', ')}, ${TOTALS.map((t) => `sum(${t}) AS ${t}`).join(', ')} FROM flow_rollup_1m GROUP BY ${ONE_MINUTE_KEY.join(', ')}`);
  await knex.raw('TRUNCATE flow_rollup_1m');
  await knex.raw(`INSERT INTO flow_rollup_1m (${ONE_MINUTE_KEY.join(', ')}, ${TOTALS.join(', ')}) SELECT ${ONE_MINUTE_KEY.join(', ')}, ${TOTALS.join(', ')} FROM flow_rollup_1m_merged`);
  await knex.raw('DROP TABLE flow_rollup_1m_merged');
  await knex.raw(`CREATE UNIQUE INDEX flow_rollup_1m_key ON flow_rollup_1m (${ONE_MINUTE_KEY.join(', ')})`);
  await knex.raw(`COMMENT ON TABLE flow_rollup_1m IS ${literal('1-minute rollup of flow_records (flows counted by their start), partitioned by day of bucket')}`);
}
