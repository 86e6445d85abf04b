// The history of what the sources reported (GET /assets/{id}/history): every change of a source's
// value of an asset's fact (first report, new value, gone), and every change of a value of a
// package, service or interface row, one row each. Triggers write it in the statement that makes
// the change, so that no writer can change a value without its history, and set-wise (transition
// tables), so that a bulk load pays one extra insert per statement, not per row. Changes of
// status and of relationships are kept in the graph with the asset and the edge (statusAt..., activePeriods).
// The rows of a package, service or interface that come and go are not history of their own (their
// first and last sighting are on the row); their value changes are.

/** The value columns of each sub-record table whose changes are history, with their API names. */
const SUB_RECORD_VALUES = {
  software_packages: { source: 'source', columns: { version: 'version', publisher: 'publisher', install_date: 'installDate', package_manager: 'packageManager' } },
  discovered_services: { source: 'source_connector', columns: { display_name: 'displayName', state: 'state', start_mode: 'startMode', listen_ports: 'listenPorts', product: 'product', version: 'version' } },
  network_interfaces: { source: null, columns: { if_index: 'ifIndex', mac_address: 'macAddress', ip_addresses: 'ipAddresses', speed_mbps: 'speedMbps', oper_status: 'operStatus', mtu: 'mtu', description: 'description' } },
};

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`
    CREATE TABLE asset_history (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      asset_id uuid NOT NULL,
      changed_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
      field text NOT NULL,
      source text,
      old_value jsonb,
      new_value jsonb
    )`);
  await knex.raw(`COMMENT ON TABLE asset_history IS 'Each change of a value a source reported of an asset (asset_facts) or of a package, service or interface row, written by triggers; removed after service.history.retention-days'`);
  await knex.raw(`COMMENT ON COLUMN asset_history.asset_id IS 'The asset (Neo4j Asset.id) or the synthesized row (its table''s id)'`);
  await knex.raw(`COMMENT ON COLUMN asset_history.field IS 'The fact (hostname, custom.<key>, ...) or the row''s value by its API name (version, ...)'`);
  await knex.raw(`COMMENT ON COLUMN asset_history.old_value IS 'Null: the source reported it first'`);
  await knex.raw(`COMMENT ON COLUMN asset_history.new_value IS 'Null: the fact went (no source reports it any more)'`);
  await knex.raw('CREATE INDEX asset_history_asset_idx ON asset_history (asset_id, changed_at DESC, id DESC)');
  // The facts held now are where history starts: an as-of read at or after this time finds each.
  await knex.raw('INSERT INTO asset_history (asset_id, field, source, new_value) SELECT asset_id, field, source, value FROM asset_facts');
  await knex.raw(`CREATE TABLE history_horizon (kept_from timestamptz NOT NULL)`);
  await knex.raw(`COMMENT ON TABLE history_horizon IS 'The earliest time history answers for (one row): when it started, then service.history.retention-days ago once the sweep removed what is older'`);
  await knex.raw(`INSERT INTO history_horizon VALUES (date_trunc('milliseconds', now()))`);
  await knex.raw('CREATE INDEX asset_history_changed_idx ON asset_history USING brin (changed_at)');

  await knex.raw(`
    CREATE FUNCTION asset_facts_history() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO asset_history (asset_id, field, source, new_value) SELECT asset_id, field, source, value FROM new_rows;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO asset_history (asset_id, field, source, old_value, new_value)
        SELECT n.asset_id, n.field, n.source, o.value, n.value FROM old_rows o JOIN new_rows n USING (asset_id, field, source) WHERE o.value IS DISTINCT FROM n.value;
      ELSE
        INSERT INTO asset_history (asset_id, field, source, old_value) SELECT asset_id, field, source, value FROM old_rows;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION asset_facts_history() IS 'Records the facts a statement reported first, changed or dropped'`);
  await knex.raw('CREATE TRIGGER asset_facts_history_insert AFTER INSERT ON asset_facts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION asset_facts_history()');
  await knex.raw('CREATE TRIGGER asset_facts_history_update AFTER UPDATE ON asset_facts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION asset_facts_history()');
  await knex.raw('CREATE TRIGGER asset_facts_history_delete AFTER DELETE ON asset_facts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION asset_facts_history()');

  // Arguments: the source column ('' for none), then column=apiName pairs.
  await knex.raw(`
    CREATE FUNCTION sub_record_history() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      source_column text := TG_ARGV[0];
      pair text;
    BEGIN
      FOREACH pair IN ARRAY TG_ARGV[1:] LOOP
        EXECUTE format(
          'INSERT INTO asset_history (asset_id, field, source, old_value, new_value)
           SELECT n.id, %L, %s, to_jsonb(o.%I), to_jsonb(n.%I) FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE o.%I IS DISTINCT FROM n.%I',
          split_part(pair, '=', 2), CASE WHEN source_column = '' THEN 'NULL' ELSE format('n.%I', source_column) END,
          split_part(pair, '=', 1), split_part(pair, '=', 1), split_part(pair, '=', 1), split_part(pair, '=', 1));
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION sub_record_history() IS 'Records the values of package, service and interface rows a statement changed'`);
  for (const [table, { source, columns }] of Object.entries(SUB_RECORD_VALUES)) {
    const args = [`'${source ?? ''}'`, ...Object.entries(columns).map(([column, api]) => `'${column}=${api}'`)].join(', ');
    await knex.raw(`CREATE TRIGGER ${table}_history AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sub_record_history(${args})`);
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const table of Object.keys(SUB_RECORD_VALUES)) await knex.raw(`DROP TRIGGER ${table}_history ON ${table}`);
  await knex.raw('DROP FUNCTION sub_record_history()');
  for (const op of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER asset_facts_history_${op} ON asset_facts`);
  await knex.raw('DROP FUNCTION asset_facts_history()');
  await knex.raw('DROP TABLE history_horizon');
  await knex.raw('DROP TABLE asset_history');
}
