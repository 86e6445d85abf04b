import { createDatabase, migrateToLatest, rollbackAll } from '../../src/platform/postgres/postgres-client.js';
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
