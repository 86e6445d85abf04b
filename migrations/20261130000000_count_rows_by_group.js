// Exact row counts without a scan. A list's total read every match of its filter on every request:
// at 10 million software rows that is 0.9 s for the unfiltered total alone, and 100,000 runs cost
// the runs page most of its time. Each counted table now keeps its counts per group (an asset's
// sub-records, the runs of a target in a status) beside it, written by its own statements'
// triggers in their transactions, so that a count is exact in every snapshot.
//
// Writers never update a shared row: each statement appends its changes to row_count_changes, and
// a maintenance job folds them into row_counts (compact_row_counts). Concurrent scans therefore
// never wait for one another, nor deadlock, on a count. A count is the base plus the changes
// since. Each statement also appends one row to the table's total ('' group), a zero one for an
// UPDATE, so that the number of those rows, with the compactions so far, names the table's
// state: equal numbers in two snapshots mean that nothing was written in between (counts that
// must scan, such as a text search, are reused while it holds).
//
// count_rows_of(table, group key SQL) makes a table counted (its triggers, its first count): a
// later migration that creates a sub-record table calls it, and uncount_rows(table) in its down. recount_rows(table) makes a table's
// counts anew from its rows, under a lock that keeps writers out: for an operator after a restore
// that skipped triggers.

const COUNTED = [
  // Runs by status and target (both filters of GET /discovery/runs); status first.
  ['discovery_runs', `status || '/' || coalesce(target_id::text, '')`],
  // Sub-records by asset (hostId, site and environment select assets).
  ['software_packages', 'asset_id::text'],
  ['running_processes', 'asset_id::text'],
  ['discovered_services', 'asset_id::text'],
  ['network_interfaces', 'asset_id::text'],
];

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('row_count_sources', (t) => {
    t.comment('The tables whose rows are counted by group (row_counts), and how each groups its rows');
    t.text('source_table').primary({ constraintName: 'row_count_sources_pk' }).comment('Counted table');
    t.text('group_key_sql').notNullable().comment('SQL of the group key of a row, over its columns (fixed by a migration)');
    t.bigInteger('compactions').notNullable().defaultTo(0).comment('Times its changes were folded into row_counts: with the number of changes of its total, names its state');
  });
  await knex.schema.createTable('row_counts', (t) => {
    t.comment('Rows of each group of a counted table as of the last compaction; the empty group is the whole table');
    t.text('source_table').notNullable().references('source_table').inTable('row_count_sources').onDelete('CASCADE').comment('Counted table');
    t.specificType('group_key', 'text COLLATE "C"').notNullable().comment('Group (row_count_sources.group_key_sql), or empty for the whole table');
    t.bigInteger('row_count').notNullable().comment('Rows of the group');
    t.primary(['source_table', 'group_key'], { constraintName: 'row_counts_pk' });
  });
  await knex.schema.createTable('row_count_changes', (t) => {
    t.comment('Changes of row_counts since the last compaction, one row per group a statement changed, appended by the trigger of the statement');
    t.bigIncrements('id').comment('Change number');
    t.text('source_table').notNullable().comment('Counted table');
    t.specificType('group_key', 'text COLLATE "C"').notNullable().comment('Group, or empty for the whole table (one row per writing statement, 0 for an UPDATE)');
    t.bigInteger('delta').notNullable().comment('Rows added (negative: removed)');
  });
  await knex.raw('CREATE INDEX row_count_changes_group_idx ON row_count_changes (source_table, group_key) INCLUDE (delta)');

  await knex.raw(`
    CREATE FUNCTION count_row_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      grouped text;
      rows_of text;
    BEGIN
      SELECT group_key_sql INTO STRICT grouped FROM row_count_sources WHERE source_table = TG_TABLE_NAME;
      IF TG_OP = 'TRUNCATE' THEN
        -- What is taken off is what this statement sees: in a snapshot older than the statement,
        -- rows committed since would be removed but stay counted.
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RAISE EXCEPTION 'TRUNCATE of % runs in a read committed transaction (its rows are counted), or call recount_rows after it', TG_TABLE_NAME;
        END IF;
        INSERT INTO row_count_changes (source_table, group_key, delta)
        SELECT TG_TABLE_NAME, group_key, -sum(n) FROM (
          SELECT group_key, row_count AS n FROM row_counts WHERE source_table = TG_TABLE_NAME
          UNION ALL SELECT group_key, delta FROM row_count_changes WHERE source_table = TG_TABLE_NAME) c
        GROUP BY group_key HAVING sum(n) <> 0 OR group_key = '';
        RETURN NULL;
      END IF;
      -- The statement's rows, +1 each in new_rows, -1 in old_rows (transition tables of this trigger).
      rows_of := CASE TG_OP
        WHEN 'INSERT' THEN format('SELECT %s AS g, 1 AS n FROM new_rows', grouped)
        WHEN 'DELETE' THEN format('SELECT %s AS g, -1 AS n FROM old_rows', grouped)
        ELSE format('SELECT %1$s AS g, 1 AS n FROM new_rows UNION ALL SELECT %1$s, -1 FROM old_rows', grouped) END;
      -- Per group, and the table's total (grouping set ()), which is written even when it is 0.
      EXECUTE format(
        'INSERT INTO row_count_changes (source_table, group_key, delta)
         SELECT $1, CASE WHEN grouping(g) = 1 THEN '''' ELSE g END, coalesce(sum(n), 0)
           FROM (%s) d GROUP BY GROUPING SETS ((g), ())
         HAVING grouping(g) = 1 OR sum(n) <> 0', rows_of) USING TG_TABLE_NAME;
      RETURN NULL;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION count_row_changes() IS 'Appends a statement''s changes of its table''s counts to row_count_changes'`);

  await knex.raw(`
    CREATE FUNCTION compact_row_counts() RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      folded bigint;
      emptied_tables text[];
      emptied_keys text[];
    BEGIN
      -- One compaction at a time; another one's changes are folded by that one.
      IF NOT pg_try_advisory_xact_lock(hashtext('compact_row_counts')) THEN RETURN 0; END IF;
      WITH taken AS (DELETE FROM row_count_changes RETURNING source_table, group_key, delta),
           summed AS (SELECT source_table, group_key, sum(delta) AS delta, count(*) AS changes FROM taken GROUP BY 1, 2),
           applied AS (
             INSERT INTO row_counts AS c (source_table, group_key, row_count)
             SELECT source_table, group_key, delta FROM summed ORDER BY 1, 2
             ON CONFLICT (source_table, group_key) DO UPDATE SET row_count = c.row_count + excluded.row_count
             RETURNING source_table, group_key, row_count),
           bumped AS (UPDATE row_count_sources SET compactions = compactions + 1 WHERE source_table IN (SELECT source_table FROM summed) RETURNING 1)
      SELECT (SELECT coalesce(sum(changes), 0) FROM summed),
             array_agg(source_table) FILTER (WHERE row_count = 0 AND group_key <> ''),
             array_agg(group_key) FILTER (WHERE row_count = 0 AND group_key <> '')
        INTO folded, emptied_tables, emptied_keys FROM applied;
      -- The groups this compaction emptied leave the base.
      DELETE FROM row_counts r USING unnest(emptied_tables, emptied_keys) AS e(source_table, group_key)
       WHERE r.source_table = e.source_table AND r.group_key = e.group_key;
      RETURN folded;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION compact_row_counts() IS 'Folds row_count_changes into row_counts; answers the number of changes folded'`);

  await knex.raw(`
    CREATE FUNCTION recount_rows(counted text) RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      grouped text;
      total bigint;
    BEGIN
      SELECT group_key_sql INTO STRICT grouped FROM row_count_sources WHERE source_table = counted;
      -- No compaction folds this table's changes while they are made anew.
      PERFORM pg_advisory_xact_lock(hashtext('compact_row_counts'));
      EXECUTE format('LOCK TABLE %I IN SHARE MODE', counted);
      DELETE FROM row_counts WHERE source_table = counted;
      DELETE FROM row_count_changes WHERE source_table = counted;
      EXECUTE format(
        'INSERT INTO row_counts (source_table, group_key, row_count)
         SELECT $1, CASE WHEN grouping(g) = 1 THEN '''' ELSE g END, count(*)
           FROM (SELECT %s AS g FROM %I) r GROUP BY GROUPING SETS ((g), ())', grouped, counted) USING counted;
      UPDATE row_count_sources SET compactions = compactions + 1 WHERE source_table = counted;
      SELECT row_count INTO total FROM row_counts WHERE source_table = counted AND group_key = '';
      RETURN total;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION recount_rows(text) IS 'Counts a counted table''s rows anew (row_counts); answers its total'`);

  await knex.raw(`
    CREATE FUNCTION count_rows_of(counted text, grouped text) RETURNS bigint LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO row_count_sources (source_table, group_key_sql) VALUES (counted, grouped);
      EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_row_changes()', counted || '_count_insert', counted);
      EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_row_changes()', counted || '_count_update', counted);
      EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_row_changes()', counted || '_count_delete', counted);
      EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION count_row_changes()', counted || '_count_truncate', counted);
      RETURN recount_rows(counted);
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION count_rows_of(text, text) IS 'Makes a table counted by the groups of its rows (row_counts); answers its total'`);
  await knex.raw(`
    CREATE FUNCTION uncount_rows(counted text) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      event text;
    BEGIN
      FOREACH event IN ARRAY ARRAY['insert', 'update', 'delete', 'truncate'] LOOP
        EXECUTE format('DROP TRIGGER %I ON %I', counted || '_count_' || event, counted);
      END LOOP;
      DELETE FROM row_count_changes WHERE source_table = counted;
      DELETE FROM row_count_sources WHERE source_table = counted;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION uncount_rows(text) IS 'Undoes count_rows_of: the triggers of a table and its counts'`);

  for (const [table, grouped] of COUNTED) await knex.raw('SELECT count_rows_of(?, ?)', [table, grouped]);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  for (const [table] of COUNTED) await knex.raw('SELECT uncount_rows(?)', [table]);
  await knex.raw('DROP FUNCTION uncount_rows(text)');
  await knex.raw('DROP FUNCTION count_rows_of(text, text)');
  await knex.raw('DROP FUNCTION recount_rows(text)');
  await knex.raw('DROP FUNCTION compact_row_counts()');
  await knex.raw('DROP FUNCTION count_row_changes()');
  await knex.schema.dropTable('row_count_changes');
  await knex.schema.dropTable('row_counts');
  await knex.schema.dropTable('row_count_sources');
}
