// Flow analytics (issue 13): raw flow records and three rollups, each a table partitioned by day
// on its time column, so that retention drops whole partitions (never deletes rows) and a BRIN
// index on time serves the time windows at a fraction of a B-tree's size. Partitions are created by
// the flow store as flows arrive (src/features/flows/flow-store.ts). Bytes and packets are stored
// already multiplied by the sampling rate: estimates of the real traffic.

const ROLLUPS = [
  // 1 minute keeps every dimension a filter can name (ports and interfaces included).
  { table: 'flow_rollup_1m', ports: true, interfaces: true, label: '1-minute' },
  // 5 minutes drops ports, keeps interfaces.
  { table: 'flow_rollup_5m', ports: false, interfaces: true, label: '5-minute' },
  // 1 hour keeps conversations only: exporter, addresses, protocol.
  { table: 'flow_rollup_1h', ports: false, interfaces: false, label: '1-hour' },
];

// COMMENT takes no bind parameters: the texts are this file's constants, quoted here.
const literal = (text) => `'${text.replace(/'/g, "''")}'`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`
    CREATE TABLE flow_records (
      flow_start timestamptz NOT NULL,
      flow_end timestamptz NOT NULL,
      exporter inet NOT NULL,
      observation_domain bigint NOT NULL,
      input_interface bigint NOT NULL,
      output_interface bigint NOT NULL,
      src_addr inet NOT NULL,
      dst_addr inet NOT NULL,
      src_port integer NOT NULL,
      dst_port integer NOT NULL,
      protocol smallint NOT NULL,
      tcp_flags smallint NOT NULL,
      bytes bigint NOT NULL,
      packets bigint NOT NULL,
      sampling_rate real NOT NULL
    ) PARTITION BY RANGE (flow_start)`);
  await knex.raw(`COMMENT ON TABLE flow_records IS 'Raw flow records as exporters sent them (one row per unidirectional flow), partitioned by day of flow_start'`);
  const columns = {
    flow_start: 'First packet of the flow (exporter clock)',
    flow_end: 'Last packet of the flow',
    exporter: 'Address the exporter sent from (sFlow: its agent address)',
    observation_domain: 'NetFlow v9 source id, IPFIX observation domain, sFlow sub-agent; 0 for v5',
    input_interface: 'SNMP ifIndex the flow entered the exporter by (0 unknown)',
    output_interface: 'SNMP ifIndex the flow left the exporter by (0 unknown)',
    src_addr: 'Source address',
    dst_addr: 'Destination address',
    src_port: 'Source port (0 when the protocol has none)',
    dst_port: 'Destination port (0 when the protocol has none)',
    protocol: 'IP protocol number',
    tcp_flags: 'OR of the TCP flags seen',
    bytes: 'Bytes, multiplied by the sampling rate (an estimate when sampled)',
    packets: 'Packets, multiplied by the sampling rate',
    sampling_rate: '1 in N packets was sampled (1 unsampled)',
  };
  for (const [column, comment] of Object.entries(columns)) await knex.raw(`COMMENT ON COLUMN flow_records.${column} IS ${literal(comment)}`);
  await knex.raw('CREATE INDEX flow_records_start_brin ON flow_records USING brin (flow_start)');

  for (const { table, ports, interfaces, label } of ROLLUPS) {
    const keys = ['bucket', 'exporter', ...(interfaces ? ['input_interface', 'output_interface'] : []), 'src_addr', 'dst_addr', 'protocol', ...(ports ? ['src_port', 'dst_port'] : [])];
    await knex.raw(`
      CREATE TABLE ${table} (
        bucket timestamptz NOT NULL,
        exporter inet NOT NULL,
        ${interfaces ? 'input_interface bigint NOT NULL, output_interface bigint NOT NULL,' : ''}
        src_addr inet NOT NULL,
        dst_addr inet NOT NULL,
        protocol smallint NOT NULL,
        ${ports ? 'src_port integer NOT NULL, dst_port integer NOT NULL,' : ''}
        bytes bigint NOT NULL,
        packets bigint NOT NULL,
        flows bigint NOT NULL
      ) PARTITION BY RANGE (bucket)`);
    await knex.raw(`COMMENT ON TABLE ${table} IS ${literal(`${label} rollup of flow_records (flows counted by their start), partitioned by day of bucket`)}`);
    await knex.raw(`COMMENT ON COLUMN ${table}.bucket IS 'Start of the ${label} bucket'`);
    await knex.raw(`COMMENT ON COLUMN ${table}.bytes IS 'Estimated bytes (sampling applied)'`);
    await knex.raw(`COMMENT ON COLUMN ${table}.packets IS 'Estimated packets (sampling applied)'`);
    await knex.raw(`COMMENT ON COLUMN ${table}.flows IS 'Flow records summed into the row'`);
    // The key the collector's upserts add into (ON CONFLICT); it includes the partition key.
    await knex.raw(`CREATE UNIQUE INDEX ${table}_key ON ${table} (${keys.join(', ')})`);
    await knex.raw(`CREATE INDEX ${table}_bucket_brin ON ${table} USING brin (bucket)`);
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const { table } of ROLLUPS) await knex.raw(`DROP TABLE ${table}`);
  await knex.raw('DROP TABLE flow_records');
}
