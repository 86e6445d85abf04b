import { createDatabase, migrateToLatest, revertMigration, rollbackAll } from '../../src/platform/postgres/postgres-client.js';
import { createEmptyDatabase } from '../support/test-stores.js';

describe('migrations', () => {
  it('run all the way up, all the way down, and up again', async () => {
    const database = await createEmptyDatabase();
    const db = createDatabase({ url: database.url, poolMax: 2, timeoutMs: 5000 });
    const tables = async () =>
      (await db('pg_tables').where({ schemaname: 'public' }).whereNot('tablename', 'like', 'knex_%').pluck('tablename')).sort();
    try {
      const applied = await migrateToLatest(db);
      expect(applied.length).toBeGreaterThan(0);
      expect(await tables()).toContain('agenda_jobs');
      expect(await migrateToLatest(db)).toEqual([]);

      const reverted = await rollbackAll(db);
      expect(reverted).toHaveLength(applied.length);
      expect(await tables()).toEqual([]);

      expect(await migrateToLatest(db)).toEqual(applied);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('give the interface connections already kept the assets of their two interfaces', async () => {
    const database = await createEmptyDatabase();
    const db = createDatabase({ url: database.url, poolMax: 1, timeoutMs: 5000 });
    try {
      await migrateToLatest(db);
      await revertMigration(db, '20261129000000_add_interface_connection_assets.js');
      const [sw, host] = ['5d1c3b52-58e4-4a4b-9d35-3c1f4c1a0001', '5d1c3b52-58e4-4a4b-9d35-3c1f4c1a0002'];
      const at = new Date('2026-11-01T00:00:00Z');
      const [port, nic] = await db('network_interfaces')
        .insert([{ asset_id: sw, name: 'Gi1/0/1', first_seen_at: at, last_seen_at: at }, { asset_id: host, name: 'eth0', first_seen_at: at, last_seen_at: at }])
        .returning('id');
      await db('interface_connections').insert({ source_interface_id: port.id, target_interface_id: nic.id, discovered_via: 'FDB', confidence: 0.9, first_seen_at: at, last_seen_at: at });

      await migrateToLatest(db);
      expect(await db('interface_connections').select('source_asset_id', 'target_asset_id')).toEqual([{ source_asset_id: sw, target_asset_id: host }]);
      // Kept for every connection from now on: a row without them is refused.
      await expect(db('interface_connections').insert({ source_interface_id: nic.id, target_interface_id: port.id, discovered_via: 'LLDP', confidence: 1, first_seen_at: at, last_seen_at: at })).rejects.toThrow(/null value/);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('comment every table they create', async () => {
    const database = await createEmptyDatabase();
    const db = createDatabase({ url: database.url, poolMax: 1, timeoutMs: 5000 });
    try {
      await migrateToLatest(db);
      const uncommented = await db.raw(`
        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT LIKE 'knex_%'
          AND obj_description(c.oid, 'pg_class') IS NULL`);
      expect(uncommented.rows).toEqual([]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
