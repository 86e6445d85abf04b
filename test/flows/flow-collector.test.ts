// The collector role of the real service, fed over UDP with the datagrams real exporters sent
// (test/fixtures/flows): raw flows land by COPY in day partitions, the rollups add up to the same
// estimated totals (sampling applied), garbage is counted and dropped, and expired partitions go.
import type dgram from 'node:dgram';
import pg from 'pg';
import { eventually } from '../support/eventually.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { datagrams, nfdumpRecords } from './fixtures.js';
import { sendDatagrams, udpSender } from './flow-senders.js';

let service: TestService;
let db: pg.Client;
let sender: dgram.Socket;

beforeAll(async () => {
  // The fixtures are dated when they were captured: a long raw retention keeps them in the window.
  service = await startTestService({ flowsRetentionRawDays: 3650, flowsFlushMs: 50 });
  sender = await udpSender('127.0.0.1');
  db = new pg.Client({ connectionString: service.database.url });
  await db.connect();
});

afterAll(async () => {
  sender.close();
  await db.end();
  await service.stop();
});

const collector = () => service.running.container.flowCollector;

const send = (port: number, packets: Buffer[]) => sendDatagrams(sender, port, packets);

async function totals(table: string): Promise<{ rows: number; bytes: number; packets: number }> {
  const { rows } = await db.query(`SELECT count(*)::int AS rows, coalesce(sum(bytes), 0)::bigint AS bytes, coalesce(sum(packets), 0)::bigint AS packets FROM ${table}`);
  return { rows: rows[0].rows, bytes: Number(rows[0].bytes), packets: Number(rows[0].packets) };
}

const TABLES = ['flow_records', 'flow_rollup_1m', 'flow_rollup_5m', 'flow_rollup_1h'];
// The day the fixtures were captured. sFlow samples carry no time: they are dated when they
// arrive, so on any later day they fall in that day's partitions, outside this one.
const CAPTURE_DAY = { from: '2026-11-25T00:00:00Z', to: '2026-11-26T00:00:00Z' };

describe('the flow collector', () => {
  it('listens on its own UDP ports, on loopback', () => {
    expect(collector().ports?.netflowPort).toBeGreaterThan(0);
    expect(collector().ports?.sflowPort).toBeGreaterThan(0);
  });

  it('stores the NetFlow v5 export of softflowd: every record raw, and the same totals in each rollup', async () => {
    await send(collector().ports!.netflowPort, datagrams('softflowd-v5'));
    const expected = nfdumpRecords('softflowd-v5');
    const raw = await eventually(() => totals('flow_records'), (t) => t.rows >= expected.length, 'raw flows stored');
    expect(raw).toEqual({ rows: expected.length, bytes: expected.reduce((s, r) => s + r.bytes, 0), packets: expected.reduce((s, r) => s + r.packets, 0) });
    for (const table of TABLES.slice(1)) expect({ ...(await totals(table)), rows: 0 }).toEqual({ ...raw, rows: 0 });
    // Fewer rows as the rollups drop dimensions: the hour keeps one row per conversation.
    const { rows } = await db.query(`SELECT count(DISTINCT (src_addr, dst_addr, protocol))::int AS n FROM flow_records`);
    expect((await totals('flow_rollup_1h')).rows).toBe(rows[0].n);
    const partitions = await db.query(`SELECT relname FROM pg_inherits JOIN pg_class ON pg_class.oid = inhrelid WHERE inhparent = 'flow_records'::regclass`);
    expect(partitions.rows.map((r) => r.relname)).toEqual(['flow_records_p20261125']);
  });

  it('multiplies a sampled export by its announced rate (NetFlow v9, 1 in 4): bytes and packets are estimates', async () => {
    const before = await totals('flow_records');
    await send(collector().ports!.netflowPort, datagrams('softflowd-v9-sampled'));
    const records = nfdumpRecords('softflowd-v9-sampled');
    const after = await eventually(() => totals('flow_records'), (t) => t.rows >= before.rows + records.length, 'sampled flows stored');
    expect(after.bytes - before.bytes).toBe(4 * records.reduce((s, r) => s + r.bytes, 0));
    expect(after.packets - before.packets).toBe(4 * records.reduce((s, r) => s + r.packets, 0));
    const { rows } = await db.query('SELECT DISTINCT sampling_rate FROM flow_records WHERE sampling_rate > 1');
    expect(rows).toEqual([{ sampling_rate: 4 }]);
  });

  it('stores sFlow samples from the sFlow port, each weighted by its rate', async () => {
    const before = await totals('flow_rollup_1m');
    await send(collector().ports!.sflowPort, datagrams('pmacctd-sflow'));
    await eventually(
      () => db.query(`SELECT count(*)::int AS n FROM flow_records WHERE exporter = '10.77.0.1'`),
      (r) => r.rows[0].n > 20,
      'sFlow samples stored',
    );
    const { rows } = await db.query(`SELECT DISTINCT sampling_rate, packets FROM flow_records WHERE exporter = '10.77.0.1'`);
    expect(rows).toEqual([{ sampling_rate: 2, packets: '2' }]);
    expect((await totals('flow_rollup_1m')).bytes).toBeGreaterThan(before.bytes);
  });

  it('counts and drops garbage, truncated and unknown datagrams, stores nothing of them, and goes on collecting', async () => {
    const before = await totals('flow_records');
    const [v5] = datagrams('softflowd-v5');
    await send(collector().ports!.netflowPort, [Buffer.from('not a flow'), v5!.subarray(0, 100), Buffer.from([0, 42, 0, 0, 1, 2, 3, 4])]);
    await eventually(
      async () => collector().decoder.counters().find((c) => c.address === '127.0.0.1')?.decodeErrors ?? 0,
      (n) => n >= 3,
      'decode errors counted',
    );
    await send(collector().ports!.netflowPort, [v5!]);
    const after = await eventually(() => totals('flow_records'), (t) => t.rows > before.rows, 'collecting after garbage');
    expect(after.rows - before.rows).toBe(nfdumpRecords('softflowd-v5').length);
  });

  it('the unknown-top-talkers insight feed ranks by bytes sent plus received the addresses that no interface or fact holds', async () => {
    const { token } = await service.running.container.tokens.createIntegrationKey({ kind: 'SYSTEM', name: 'flow test' }, 'flow test');
    const feed = async () => {
      const query = new URLSearchParams({ ...CAPTURE_DAY, limit: '3' });
      const res = await fetch(`${service.url}/api/v1/insights/unknown-top-talkers?${query}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { assets: unknown[]; evidence: { address: string; bytes: number } }[] };
      for (const row of body.data) expect(row.assets).toEqual([]);
      return body.data.map((r) => [r.evidence.address, r.evidence.bytes]);
    };
    const { rows: expected } = await db.query(`
      SELECT host(a) AS address, sum(bytes)::bigint AS bytes FROM (
        SELECT src_addr AS a, bytes FROM flow_records WHERE flow_start >= $1 AND flow_start < $2
        UNION ALL SELECT dst_addr, bytes FROM flow_records WHERE flow_start >= $1 AND flow_start < $2) t
      GROUP BY host(a) ORDER BY 2 DESC, 1`, [CAPTURE_DAY.from, CAPTURE_DAY.to]);
    const asRanking = (rows: { address: string; bytes: string }[]) => rows.slice(0, 3).map((r) => [r.address, Number(r.bytes)]);
    expect(await feed()).toEqual(asRanking(expected));
    // 10.77.0.2 becomes known by an interface, fd77::2 by a fact: both leave the ranking.
    await db.query(`INSERT INTO network_interfaces (asset_id, name, ip_addresses, first_seen_at, last_seen_at) VALUES (gen_random_uuid(), 'eth0', '{10.77.0.2/24}', now(), now())`);
    await db.query(`INSERT INTO asset_facts (asset_id, field, source, value, observed_at) VALUES (gen_random_uuid(), 'ipAddresses', 'ssh', '["fd77::2"]', now())`);
    expect(await feed()).toEqual(asRanking(expected.filter((r) => r.address !== '10.77.0.2' && r.address !== 'fd77::2')));
  });

  it('the retention job drops whole day partitions past the retention of each table, and nothing newer', async () => {
    const store = service.running.container.flowStore;
    const retention = service.running.container.flowRetention;
    // On 2026-11-27 only raw flows kept 1 day would have expired; a year on, all but the hour rollup.
    // Flows dated after the capture day (sFlow samples, when the test runs on a later day) are in later partitions, which stay.
    const { rows: [later] } = await db.query(`SELECT count(*)::int AS n FROM flow_records WHERE flow_start >= $1`, [CAPTURE_DAY.to]);
    expect(await store.dropExpired({ ...retention, raw: 1 }, Date.UTC(2026, 10, 27, 1))).toEqual(['flow_records_p20261125']);
    expect((await totals('flow_records')).rows).toBe(later.n);
    expect((await totals('flow_rollup_1m')).rows).toBeGreaterThan(0);
    const dropped = await store.dropExpired(retention, Date.UTC(2027, 11, 1));
    expect(dropped.filter((name) => name.endsWith('_p20261125'))).toEqual(['flow_endpoint_1m_p20261125', 'flow_endpoint_5m_p20261125', 'flow_rollup_1m_p20261125', 'flow_rollup_5m_p20261125']);
    // A later day's partitions may go too, from the same tables only: raw flows and the hour rollup are kept longer.
    for (const name of dropped) expect(name).toMatch(/^flow_(endpoint|rollup)_(1m|5m)_p\d{8}$/);
    expect((await totals('flow_rollup_1h')).rows).toBeGreaterThan(0);
  });
});
