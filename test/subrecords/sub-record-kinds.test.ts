// The sub-record kinds' models (src/features/subrecords/*-kind.ts) against what the migrations made
// and what the API serves from them: a model that names a column its table lacks, a natural key
// without the unique index its upsert needs, or a table whose rows are not counted by asset (the
// totals of its listing), fails here rather than at the first write.
import { SUB_RECORD_KINDS } from '../../src/features/inventory/sub-record-kinds.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const KINDS = SUB_RECORD_KINDS.map((k) => [k.assetType, k] as const);

describe('the sub-record kinds', () => {
  let service: TestService;
  let api: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    api = (await createPrincipals(service.url)).apiUserToken;
  });
  afterAll(() => service.stop());
  const db = () => service.running.container.db;

  it.each(KINDS)('%s: every column its model names is a column of its table, and its natural key is unique', async (_type, kind) => {
    const columns = await db()('information_schema.columns').where({ table_schema: 'public', table_name: kind.table }).pluck('column_name');
    const named = [...kind.columns.map((c) => c.name), kind.name, kind.firstSeen, kind.lastSeen, 'id', 'asset_id', ...(kind.changesTracked ? ['updated_at'] : [])];
    expect(columns).toEqual(expect.arrayContaining(named));
    if (kind.key === null) return;
    const { rows } = await db().raw(
      `SELECT array_agg(a.attname::text ORDER BY a.attname) AS columns
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(i.indkey)
        WHERE t.relname = ? AND i.indisunique GROUP BY i.indexrelid`,
      [kind.table],
    );
    expect((rows as { columns: string[] }[]).map((r) => r.columns)).toContainEqual(['asset_id', kind.key].sort());
  });

  it.each(KINDS)('%s: its rows are counted by asset, and the listing\'s orders by name and by first sighting, and what q searches, are indexed', async (_type, kind) => {
    expect(await db()('row_count_sources').where({ source_table: kind.table }).first()).toMatchObject({ group_key_sql: 'asset_id::text' });
    const { rows } = await db().raw(
      `SELECT array_agg(a.attname::text ORDER BY k.n) AS columns
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE t.relname = ? GROUP BY i.indexrelid`,
      [kind.table],
    );
    const indexed = (rows as { columns: string[] }[]).map((r) => r.columns);
    expect(indexed).toContainEqual([kind.name, 'id']);
    expect(indexed).toContainEqual([kind.firstSeen, kind.name, 'id']);
    expect(indexed).toContainEqual([kind.name, ...kind.columns.filter((c) => c.searched).map((c) => c.name)]);
  });

  it.each(KINDS)('%s: the schema lists it as synthesized with the keys its model marks, and its export has the columns its model names', async (type, kind) => {
    const entry = (await api.get(`/api/v1/schema/asset-types/${type}`)).body.data;
    expect(entry).toMatchObject({ synthesized: true, customAttributeKeys: kind.columns.filter((c) => c.schemaKey).map((c) => c.name).sort() });
    // The entry names the export the web UI offers for a list of this type.
    expect(entry.export).toBe(kind.dataset);
    expect((await api.get('/api/v1/schema/asset-types/HYPERVISOR')).body.data.export).toBe('assets');
    const csv = await api.get(`/api/v1/export/${kind.dataset}.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text.split('\r\n')[0]).toBe(['assetId', 'assetDisplayName', 'assetHostname', ...kind.export.columns].join(','));
  });
});
