// Interfaces are listed by their host's name, then ifIndex (docs/interface.md §2.12). That order
// walked the copy of asset names and looked for each asset's interfaces: where few assets have
// interfaces (60,000 names read for a page of the demo estate at 100k assets), a page cost up to
// the whole copy. Each interface now keeps its host's name, which the copy of names keeps up to
// date (a rename reaches its interfaces in the same statement, and every write of an interface
// takes the name again, which mends one written while its host was being renamed), and its
// ifIndex with those that have none last, so that one index holds the whole order. An interface
// whose host has no name yet keeps an empty one (first in the order, last in a descending one).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`ALTER TABLE network_interfaces ADD COLUMN host_name text COLLATE "C" NOT NULL DEFAULT ''`);
  await knex.raw(`COMMENT ON COLUMN network_interfaces.host_name IS 'Display name of its asset (asset_names), kept by triggers: the first key of the listing order'`);
  await knex.raw('ALTER TABLE network_interfaces ADD COLUMN if_order integer GENERATED ALWAYS AS (coalesce(if_index, 2147483647)) STORED');
  await knex.raw(`COMMENT ON COLUMN network_interfaces.if_order IS 'if_index, or the largest integer when there is none: the order within a host'`);
  await knex.raw('UPDATE network_interfaces i SET host_name = n.display_name FROM asset_names n WHERE n.asset_id = i.asset_id');

  await knex.raw(`
    CREATE FUNCTION interface_host_name() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.host_name := coalesce((SELECT display_name FROM asset_names WHERE asset_id = NEW.asset_id), '');
      RETURN NEW;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION interface_host_name() IS 'Gives an interface written the display name of its asset'`);
  await knex.raw('CREATE TRIGGER network_interfaces_host_name BEFORE INSERT OR UPDATE ON network_interfaces FOR EACH ROW EXECUTE FUNCTION interface_host_name()');

  await knex.raw(`
    CREATE FUNCTION asset_names_to_interfaces() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE network_interfaces i SET host_name = n.display_name FROM new_rows n WHERE i.asset_id = n.asset_id AND i.host_name <> n.display_name;
      RETURN NULL;
    END $$`);
  await knex.raw(`COMMENT ON FUNCTION asset_names_to_interfaces() IS 'Gives the interfaces of named or renamed assets their new name'`);
  await knex.raw('CREATE TRIGGER asset_names_interfaces_insert AFTER INSERT ON asset_names REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION asset_names_to_interfaces()');
  await knex.raw('CREATE TRIGGER asset_names_interfaces_update AFTER UPDATE ON asset_names REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION asset_names_to_interfaces()');

  await knex.schema.alterTable('network_interfaces', (t) => t.index(['host_name', 'asset_id', 'if_order', 'name', 'id'], 'network_interfaces_host_order_idx'));
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER asset_names_interfaces_update ON asset_names');
  await knex.raw('DROP TRIGGER asset_names_interfaces_insert ON asset_names');
  await knex.raw('DROP FUNCTION asset_names_to_interfaces()');
  await knex.raw('DROP TRIGGER network_interfaces_host_name ON network_interfaces');
  await knex.raw('DROP FUNCTION interface_host_name()');
  await knex.raw('ALTER TABLE network_interfaces DROP COLUMN if_order');
  await knex.raw('ALTER TABLE network_interfaces DROP COLUMN host_name');
}
