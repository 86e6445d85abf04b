// Migration 20261128000000 on a database that already holds flows: going down merges the rows the
// collector appended to the 1-minute rollup into one per key before its unique key returns, and
// coming up again fills the endpoint rollups from the conversation rollups kept, equal to what the
// collector itself wrote into them.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import pg from 'pg';
import type { FlowRecord } from '../../src/features/flows/decode/flow-record.js';
import { FlowStore, ROLLUPS, rollupKeys } from '../../src/features/flows/flow-store.js';
import { createDatabase, type Database } from '../../src/platform/postgres/postgres-client.js';
import { createTestDatabase, type TestDatabase } from '../support/test-stores.js';

const MIGRATION = path.resolve('migrations/20261128000000_create_flow_endpoint_rollups.js');
const START = Date.UTC(2026, 10, 25, 4, 0);

/** Two hours of flows among a few hosts and ports, over IPv4 and IPv6, every 7 seconds. */
const flows: FlowRecord[] = Array.from({ length: 1000 }, (_, i) => ({
  exporter: i % 3 ? '192.0.2.1' : '2001:db8::1',
  observationDomain: 0,
  start: START + i * 7_000,
  end: START + i * 7_000 + 500,
  srcAddr: i % 4 ? `10.1.0.${i % 7}` : `fd00::${i % 5}`,
  dstAddr: i % 4 ? `10.1.0.${(i * 3) % 11}` : 'fd00::a',
  srcPort: 40_000 + (i % 13),
  dstPort: [443, 53, 22][i % 3]!,
  protocol: i % 3 === 1 ? 17 : 6,
  tcpFlags: 0,
  tos: 0,
  bytes: 100 + i,
  packets: 1 + (i % 9),
  samplingRate: i % 2 ? 1 : 4,
  inputInterface: i % 2,
  outputInterface: 2,
}));

let database: TestDatabase;
let db: Database;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ url: database.url, poolMax: 2, timeoutMs: 30_000 });
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
});

afterAll(async () => {
  await pool.end();
  await db.destroy();
  await database.drop();
});

const endpointTables = ROLLUPS.filter((r) => r.kind === 'endpoint').map((r) => r.table);
const minute = ROLLUPS.find((r) => r.table === 'flow_rollup_1m')!;
const minuteKey = ['bucket', ...rollupKeys(minute)].join(', ');

async function rows(sql: string): Promise<unknown[]> {
  return (await db.raw<{ rows: unknown[] }>(sql)).rows;
}

const endpointRows = (table: string) => rows(`SELECT * FROM ${table} ORDER BY bucket, exporter, address, protocol`);

it('going down merges the appended 1-minute rows, and coming up fills the endpoint rollups as the collector does', async () => {
  const store = new FlowStore(pool, { addresses: { capacity: 1000, ttlMs: 60_000 }, maxExporters: 100, maxInterfaceNames: 100 });
  // The same flows twice: every key of the 1-minute rollup gets two rows.
  await store.write(flows);
  await store.write(flows);
  const sums = await rows(`SELECT ${minuteKey}, sum(bytes) AS bytes, sum(packets) AS packets, sum(flows) AS flows FROM flow_rollup_1m GROUP BY ${minuteKey} ORDER BY ${minuteKey}`);
  expect(await rows('SELECT * FROM flow_rollup_1m')).toHaveLength(2 * sums.length);
  const written = new Map<string, unknown[]>();
  for (const table of endpointTables) written.set(table, await endpointRows(table));
  expect(written.get('flow_endpoint_1h')!.length).toBeGreaterThan(0);

  const migration = (await import(pathToFileURL(MIGRATION).href)) as Knex.Migration;
  // As knex runs migrations: each in a transaction.
  await db.transaction(async (trx) => {
    await migration.down!(trx);
  });
  expect(await rows(`SELECT ${minuteKey}, bytes, packets, flows FROM flow_rollup_1m ORDER BY ${minuteKey}`)).toEqual(sums);
  expect(await rows(`SELECT to_regclass('flow_endpoint_1m') AS t`)).toEqual([{ t: null }]);

  await db.transaction(async (trx) => {
    await migration.up(trx);
  });
  for (const table of endpointTables) expect(await endpointRows(table)).toEqual(written.get(table));
});
