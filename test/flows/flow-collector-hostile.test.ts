// The collector of the running service under hostile input (issue 35), fed over UDP from loopback
// addresses of its own, against the real stores: a record that cannot be stored costs only itself
// (at decoding, and when PostgreSQL refuses a row of a batch), every structure keyed by what
// exporters send stays within its cap, a flood of templates cannot lock a real exporter out, and
// every drop is counted where operators look (/metrics, GET /flow/exporters), the kernel's own
// drops on the socket and the datagrams of senders outside the allow-list included.
import type dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { SETTINGS } from '../../src/platform/config.js';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { signIn, type ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { parsePrometheus } from '../support/prometheus.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { IE, ipfixDataSet, ipfixMessage, ipfixTemplateSet, type IpfixField } from './fixtures.js';
import { sendDatagrams, udpSender } from './flow-senders.js';

const FLOW: IpfixField[] = [
  { id: IE.sourceIPv4Address, length: 4 }, { id: IE.destinationIPv4Address, length: 4 },
  { id: IE.sourceTransportPort, length: 2 }, { id: IE.destinationTransportPort, length: 2 }, { id: IE.protocolIdentifier, length: 1 },
  { id: IE.octetDeltaCount, length: 8 }, { id: IE.packetDeltaCount, length: 8 },
  { id: IE.flowStartMilliseconds, length: 8 }, { id: IE.flowEndMilliseconds, length: 8 },
];
/** The same with a 4-byte source port (NetFlow v9 lets a field be any width; its value must still be a port). */
const WIDE_PORT = FLOW.map((f) => (f.id === IE.sourceTransportPort ? { ...f, length: 4 } : f));
/** An IPv4 source address of 8 bytes: no address at all. */
const WIDE_ADDRESS = FLOW.map((f) => (f.id === IE.sourceIPv4Address ? { ...f, length: 8 } : f));

/** A flow record of FLOW, started a second ago. */
const record = (srcPort: number, overrides: Partial<Record<'src' | 'bytes', string | bigint | Buffer>> = {}) => {
  const now = Date.now();
  return [overrides.src ?? '10.9.0.1', '10.9.0.2', srcPort, 443, 6, overrides.bytes ?? 1500n, 3, now - 1000, now];
};

const MAX_UINT64 = 2n ** 64n - 1n;

async function exporterRow(api: ApiClient, address: string): Promise<any> {
  const res = await api.get('/api/v1/flow/exporters?size=100');
  expect(res.status).toBe(200);
  return res.body.data.find((e: { address: string }) => e.address === address);
}

/** The sum of the samples of a series at /metrics whose labels include these. */
async function metric(api: ApiClient, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await api.get('/metrics');
  expect(res.status).toBe(200);
  return parsePrometheus(res.text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** An sFlow v5 datagram from an IPv4 agent: one flow sample per port pair, each a sampled-IPv4 record (ports are 32-bit words there). */
function sflowSampledIpv4(agent: string, ports: [number, number][]): Buffer {
  const ip = (text: string) => Buffer.from(text.split('.').map(Number));
  const words = (...values: number[]) => {
    const b = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => b.writeUInt32BE(v, i * 4));
    return b;
  };
  const samples = ports.map(([src, dst]) => {
    const sampled = Buffer.concat([words(1500, 17), ip('10.9.1.1'), ip('10.9.1.2'), words(src, dst, 0, 0)]);
    const body = Buffer.concat([words(1, 7, 1, 1, 0, 1, 2, 1), words(3, sampled.length), sampled]);
    return Buffer.concat([words(1, body.length), body]);
  });
  return Buffer.concat([words(5, 1), ip(agent), words(0, 1, 1000, samples.length), ...samples]);
}

describe('a collector with small caps, fed hostile datagrams', () => {
  let service: TestService;
  let api: ApiClient;
  let db: pg.Client;
  const senders: dgram.Socket[] = [];
  const exporter = async (address: string) => {
    const socket = await udpSender(address);
    senders.push(socket);
    return (packets: Buffer[]) => sendDatagrams(socket, service.running.container.flowCollector.ports!.netflowPort, packets);
  };

  beforeAll(async () => {
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD,
      flowsFlushMs: 50,
      flowsMaxExporters: 12,
      flowsMaxTemplates: 200,
      flowsMaxTemplatesPerDomain: 16,
      flowsMaxSamplerIds: 300,
      flowsMaxInterfaceNames: 50,
    });
    api = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    db = new pg.Client({ connectionString: service.database.url });
    await db.connect();
  });

  afterAll(async () => {
    for (const socket of senders) socket.close();
    await db.end();
    await service.stop();
  });

  const storedFrom = async (address: string) => (await db.query(`SELECT count(*)::int AS n FROM flow_records WHERE exporter = $1`, [address])).rows[0].n as number;

  it('a record whose bytes are 2^64-1, or whose 4-byte source port is 0xFFFFFFFF, is dropped alone and counted; its neighbours and other exporters\' flows are stored', async () => {
    const poisoner = await exporter('127.0.0.21');
    const neighbour = await exporter('127.0.0.22');
    await poisoner([ipfixMessage(1, [
      ipfixTemplateSet([{ id: 300, fields: FLOW }, { id: 301, fields: WIDE_PORT }, { id: 302, fields: WIDE_ADDRESS }]),
      ipfixDataSet(300, FLOW, [record(1001), record(1002), record(1003, { bytes: MAX_UINT64 }), record(1004), record(1005)]),
      ipfixDataSet(301, WIDE_PORT, [record(80), record(0xffffffff)]),
      ipfixDataSet(302, WIDE_ADDRESS, [record(1006, { src: Buffer.alloc(8, 1) })]),
    ])]);
    await neighbour([ipfixMessage(1, [ipfixTemplateSet([{ id: 300, fields: FLOW }]), ipfixDataSet(300, FLOW, [1, 2, 3, 4, 5].map((i) => record(2000 + i)))])]);
    // sFlow too: a sampled-IPv4 record's ports are 32-bit words on the wire.
    const agent = await udpSender('127.0.0.23');
    senders.push(agent);
    await sendDatagrams(agent, service.running.container.flowCollector.ports!.sflowPort, [sflowSampledIpv4('10.99.0.1', [[53, 5353], [0xffffffff, 53]])]);

    await eventually(async () => [await storedFrom('127.0.0.21'), await storedFrom('127.0.0.22'), await storedFrom('10.99.0.1')], (n) => n.join() === '5,5,1', 'the storable flows stored');
    const { rows } = await db.query(`SELECT src_port, bytes FROM flow_records WHERE exporter = '127.0.0.21' ORDER BY src_port`);
    expect(rows).toEqual([80, 1001, 1002, 1004, 1005].map((port) => ({ src_port: port, bytes: '1500' })));

    const poisoned = await eventually(() => exporterRow(api, '127.0.0.21'), (e) => e?.recordsStored === 5, 'the poisoner\'s counts written');
    expect(poisoned).toMatchObject({ datagrams: 1, decodeErrors: 0, flows: 8, recordsStored: 5, recordsDropped: { fieldWidth: 1, fieldRange: 2, outOfWindow: 0, queueOverflow: 0, writeFailed: 0 } });
    expect(await eventually(() => exporterRow(api, '127.0.0.22'), (e) => e?.recordsStored === 5, 'the neighbour\'s counts written')).toMatchObject({ flows: 5, recordsDropped: { fieldRange: 0, writeFailed: 0 } });
    expect(await eventually(() => exporterRow(api, '127.0.0.23'), (e) => e?.recordsStored === 1, 'the sFlow agent\'s counts written')).toMatchObject({ flows: 2, recordsDropped: { fieldRange: 1 } });
    expect(await metric(api, 'flow_records_dropped_total', { reason: 'field_range' })).toBe(3);
    expect(await metric(api, 'flow_records_dropped_total', { reason: 'field_width' })).toBe(1);
    expect(await metric(api, 'flow_records_stored_total')).toBe(11);
    expect(await metric(api, 'flow_records_received_total')).toBe(15);
    expect(await metric(api, 'flow_datagrams_decoded_total', { protocol: 'ipfix' })).toBe(2);
    expect(await metric(api, 'flow_datagrams_decoded_total', { protocol: 'sflow-v5' })).toBe(1);
  });

  it('a batch PostgreSQL refuses rows of is split: only the refused rows are lost, each counted', async () => {
    await db.query('ALTER TABLE flow_records ADD CONSTRAINT hostile_test_no_port_6666 CHECK (src_port <> 6666)');
    try {
      const failedBefore = await metric(api, 'flow_batch_writes_total', { outcome: 'failed' });
      const send = await exporter('127.0.0.24');
      const ports = Array.from({ length: 20 }, (_, i) => (i === 3 || i === 17 ? 6666 : 3000 + i));
      await send([ipfixMessage(1, [ipfixTemplateSet([{ id: 300, fields: FLOW }]), ipfixDataSet(300, FLOW, ports.map((p) => record(p)))])]);
      const counted = await eventually(() => exporterRow(api, '127.0.0.24'), (e) => e?.recordsStored + e?.recordsDropped.writeFailed === 20, 'every record of the batch accounted for');
      expect(counted).toMatchObject({ recordsStored: 18, recordsDropped: { writeFailed: 2 } });
      expect(await storedFrom('127.0.0.24')).toBe(18);
      expect(await metric(api, 'flow_records_dropped_total', { reason: 'write_failed' })).toBe(2);
      // At least the whole batch and each refused row alone failed.
      expect(await metric(api, 'flow_batch_writes_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(failedBefore + 3);
    } finally {
      await db.query('ALTER TABLE flow_records DROP CONSTRAINT hostile_test_no_port_6666');
    }
  });

  it('flows dated outside the window are dropped and counted per exporter', async () => {
    const send = await exporter('127.0.0.28');
    const old = [...record(4000).slice(0, 7), Date.UTC(2001, 0, 1), Date.UTC(2001, 0, 1)];
    await send([ipfixMessage(1, [ipfixTemplateSet([{ id: 300, fields: FLOW }]), ipfixDataSet(300, FLOW, [old, record(4001)])])]);
    expect(await eventually(() => exporterRow(api, '127.0.0.28'), (e) => e?.recordsStored === 1, 'counts written')).toMatchObject({ flows: 2, recordsDropped: { outOfWindow: 1 } });
    expect(await metric(api, 'flow_records_dropped_total', { reason: 'out_of_window' })).toBe(1);
  });

  it('a flood of new sampler ids stays within max-sampler-ids, and the rate flows read is kept', async () => {
    const send = await exporter('127.0.0.25');
    const options = { id: 400, scope: 1, fields: [{ id: IE.samplerId, length: 4 }, { id: IE.samplingInterval, length: 4 }] };
    const sampled = [...FLOW, { id: IE.samplerId, length: 4 }];
    const flowOfSampler7 = (port: number) => ipfixMessage(1, [ipfixDataSet(401, sampled, [[...record(port), 7]])]);
    await send([ipfixMessage(1, [ipfixTemplateSet([options]), ipfixTemplateSet([{ id: 401, fields: sampled }]), ipfixDataSet(400, options.fields, [[7, 10]])]), flowOfSampler7(5000)]);
    // 2,000 new sampler ids in 20 options datagrams (the finding: 2 million took 212 MB, never released).
    await send(Array.from({ length: 20 }, (_, round) => ipfixMessage(1, [ipfixDataSet(400, options.fields, Array.from({ length: 100 }, (_, i) => [10_000 + round * 100 + i, 2]))])));
    await send([flowOfSampler7(5001)]);
    await eventually(() => storedFrom('127.0.0.25'), (n) => n === 2, 'both flows of sampler 7 stored');
    const { rows } = await db.query(`SELECT src_port, bytes, sampling_rate FROM flow_records WHERE exporter = '127.0.0.25' ORDER BY src_port`);
    expect(rows).toEqual([{ src_port: 5000, bytes: '15000', sampling_rate: 10 }, { src_port: 5001, bytes: '15000', sampling_rate: 10 }]);
    expect(await metric(api, 'flow_state_capacity', { structure: 'sampling' })).toBe(300);
    expect(await metric(api, 'flow_state_entries', { structure: 'sampling' })).toBeLessThanOrEqual(300);
    expect(await metric(api, 'flow_state_forgotten_total', { structure: 'sampling', reason: 'evicted' })).toBeGreaterThanOrEqual(2000 - 300);
  });

  it('interface names beyond max-interface-names are not kept: an exporter keeps its most recently announced ones', async () => {
    const send = await exporter('127.0.0.26');
    const names = { id: 410, scope: 1, fields: [{ id: IE.ingressInterface, length: 4 }, { id: IE.interfaceName, length: 16 }] };
    const announce = (round: number) => ipfixMessage(1, [ipfixDataSet(410, names.fields, Array.from({ length: 30 }, (_, i) => [round * 30 + i + 1, Buffer.from(`if-${round}-${i}`.padEnd(16, '\0'))]))]);
    await send([ipfixMessage(1, [ipfixTemplateSet([names])]), ...Array.from({ length: 20 }, (_, round) => announce(round))]);
    const indexes = async () => (await db.query(`SELECT if_index FROM flow_exporter_interfaces WHERE exporter = '127.0.0.26' ORDER BY if_index`)).rows.map((r) => Number(r.if_index));
    const kept = await eventually(indexes, (rows) => rows.includes(600), 'the last names written');
    expect(kept.length).toBe(50);
    // The last datagram's 30 names are the newest.
    expect(kept.slice(-30)).toEqual(Array.from({ length: 30 }, (_, i) => 571 + i));
    expect(await metric(api, 'flow_stored_rows_removed_total', { table: 'flow_exporter_interfaces' })).toBe(550);
  });

  it('a spoofed flood of templates from an exporter\'s own address cannot lock it out; a template is refused only when its domain is full of templates in use', async () => {
    const send = await exporter('127.0.0.27');
    const data = (id: number, port: number) => ipfixMessage(1, [ipfixDataSet(id, FLOW, [record(port)])]);
    await send([ipfixMessage(1, [ipfixTemplateSet([{ id: 256, fields: FLOW }]), ipfixDataSet(256, FLOW, [record(6000)])])]);
    // 300 new template ids in the same domain (16 fit), and 100 in others, as a spoofer would send them.
    const flood = (domain: number, first: number, count: number) =>
      Array.from({ length: count / 10 }, (_, m) => ipfixMessage(domain, [ipfixTemplateSet(Array.from({ length: 10 }, (_, t) => ({ id: first + m * 10 + t, fields: [{ id: IE.sourceIPv4Address, length: 4 }] })))]));
    await send([...flood(1, 1000, 300), ...flood(2, 1000, 50), ...flood(3, 1000, 50)]);
    // The template in use still decodes data; a template the exporter sends now is learned, not refused.
    await send([data(256, 6001), ipfixMessage(1, [ipfixTemplateSet([{ id: 257, fields: FLOW }]), ipfixDataSet(257, FLOW, [record(6002)])])]);
    await eventually(() => storedFrom('127.0.0.27'), (n) => n === 3, 'the exporter\'s flows stored through the flood');
    expect(await eventually(() => exporterRow(api, '127.0.0.27'), (e) => e?.recordsStored === 3, 'counts written')).toMatchObject({ missingTemplates: 0, templatesRefused: 0 });
    expect(await metric(api, 'flow_state_forgotten_total', { structure: 'templates', reason: 'evicted' })).toBeGreaterThanOrEqual(300 - 16);

    // Domain 4 filled with 16 templates, each read by a data set: a 17th is refused and counted.
    await send(Array.from({ length: 16 }, (_, i) => ipfixMessage(4, [ipfixTemplateSet([{ id: 256 + i, fields: FLOW }]), ipfixDataSet(256 + i, FLOW, [record(7000 + i)])])));
    await send([ipfixMessage(4, [ipfixTemplateSet([{ id: 300, fields: FLOW }]), ipfixDataSet(300, FLOW, [record(7100)])])]);
    expect(await eventually(() => exporterRow(api, '127.0.0.27'), (e) => e?.templatesRefused === 1, 'the refusal written')).toMatchObject({ recordsStored: 19, missingTemplates: 1 });
    expect(await metric(api, 'flow_state_refused_total', { structure: 'templates' })).toBe(1);
  });

  it('a flood of new sender addresses stays within max-exporters, in memory and in flow_exporters; exporters whose flows were stored stay', async () => {
    for (let i = 1; i <= 40; i++) await (await exporter(`127.0.1.${i}`))([Buffer.from('not a flow')]);
    expect(await metric(api, 'flow_datagrams_dropped_total', { protocol: 'unknown', reason: 'malformed' })).toBe(40);
    const count = async () => (await db.query('SELECT count(*)::int AS n FROM flow_exporters')).rows[0].n as number;
    await eventually(() => metric(api, 'flow_stored_rows_removed_total', { table: 'flow_exporters' }), (n) => n > 0, 'rows removed for room');
    await eventually(count, (n) => n <= 12, 'flow_exporters within its cap');
    expect(service.running.container.flowCollector.decoder.exporters.size).toBeLessThanOrEqual(12);
    const { rows } = await db.query(`SELECT host(address) AS address FROM flow_exporters WHERE records_stored > 0 ORDER BY address`);
    expect(rows.map((r) => r.address)).toEqual(['127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24', '127.0.0.25', '127.0.0.27', '127.0.0.28']);
  });

  it('/metrics serves every flow series that docs/flows.md lists, and the page lists every flow series and setting', async () => {
    const res = await api.get('/metrics');
    const served = new Set(parsePrometheus(res.text).map((s) => s.name).filter((n) => n.startsWith('flow_')));
    const doc = readFileSync(fromProjectRoot('docs', 'flows.md'), 'utf8');
    // The series table: a row per series, its name first.
    const documented = new Set([...doc.matchAll(/^\| `(flow_[a-z_]+)/gm)].map((m) => m[1] as string));
    expect([...served].sort()).toEqual([...documented].sort());
    for (const setting of Object.values(SETTINGS).filter((s) => s.key.startsWith('service.flows.'))) expect(doc).toContain(`\`${setting.key}\``);
  });
});

describe('a collector with an allow-list and a small receive buffer', () => {
  let service: TestService;
  let api: ApiClient;
  let db: pg.Client;
  let allowed: dgram.Socket;
  const netflowPort = () => service.running.container.flowCollector.ports!.netflowPort;
  const received = () => metric(api, 'flow_datagrams_received_total');

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, flowsFlushMs: 50, flowsBatchSize: 10, flowsReceiveBufferBytes: 4096, flowsAllowedExporters: '127.0.0.31/32, 10.0.0.0/8' });
    api = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    db = new pg.Client({ connectionString: service.database.url });
    await db.connect();
    allowed = await udpSender('127.0.0.31');
  });

  afterAll(async () => {
    allowed.close();
    await db.end();
    await service.stop();
  });

  /** One datagram at a time, each read before the next (the receive buffer holds few). */
  async function sendPaced(socket: dgram.Socket, packets: Buffer[]): Promise<void> {
    for (const packet of packets) {
      const before = await received();
      await sendDatagrams(socket, netflowPort(), [packet]);
      await eventually(received, (n) => n > before, 'datagram read');
    }
  }

  it('datagrams from outside service.flows.allowed-exporters are dropped and counted, and nothing is kept of their sender', async () => {
    const outsider = await udpSender('127.0.0.32');
    const message = () => ipfixMessage(1, [ipfixTemplateSet([{ id: 300, fields: FLOW }]), ipfixDataSet(300, FLOW, [record(8000)])]);
    await sendPaced(outsider, [message(), message(), message()]);
    outsider.close();
    await sendPaced(allowed, [message()]);
    await eventually(async () => (await db.query(`SELECT count(*)::int AS n FROM flow_records`)).rows[0].n, (n) => n === 1, 'the allowed exporter\'s flow stored');
    expect(await metric(api, 'flow_datagrams_dropped_total', { protocol: 'ipfix', reason: 'exporter_not_allowed' })).toBe(3);
    expect((await db.query(`SELECT host(address) AS address FROM flow_exporters`)).rows).toEqual([{ address: '127.0.0.31' }]);
    expect(service.running.container.flowCollector.decoder.exporters.size).toBe(1);
  });

  it('while PostgreSQL does not take the batches, the queue holds its capacity and the rest is dropped and counted; every flow is then stored or counted', async () => {
    const storedBefore = await metric(api, 'flow_records_stored_total');
    const lock = new pg.Client({ connectionString: service.database.url });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE flow_records IN ACCESS EXCLUSIVE MODE');
      const message = (i: number) => ipfixMessage(1, [ipfixDataSet(300, FLOW, Array.from({ length: 30 }, (_, r) => record(9000 + i * 30 + r)))]);
      await sendPaced(allowed, [0, 1, 2, 3, 4].map(message));
      expect(await metric(api, 'flow_queue_capacity_flows')).toBe(40);
      expect(await metric(api, 'flow_queue_flows')).toBe(40);
      expect(await metric(api, 'flow_records_dropped_total', { reason: 'queue_overflow' })).toBeGreaterThanOrEqual(150 - 40 - 10);
    } finally {
      await lock.query('COMMIT');
      await lock.end();
    }
    const accounted = async () => (await metric(api, 'flow_records_stored_total')) - storedBefore + (await metric(api, 'flow_records_dropped_total', { reason: 'queue_overflow' }));
    await eventually(accounted, (n) => n === 150, 'every flow stored or counted as overflow');
    expect(await eventually(() => exporterRow(api, '127.0.0.31'), (e) => e?.recordsStored + e?.recordsDropped.queueOverflow === 151, 'counts written')).toMatchObject({ flows: 151 });
  });

  it('datagrams the kernel dropped on the socket (its receive buffer full) are counted: read plus dropped is what was sent', async () => {
    expect(await metric(api, 'flow_socket_receive_buffer_bytes', { socket: 'netflow' })).toBeGreaterThanOrEqual(4096);
    const dropsBefore = await metric(api, 'flow_socket_receive_drops_total', { socket: 'netflow' });
    const receivedBefore = await received();
    // A NetFlow v5 header of no records, 3,000 times, all handed to the kernel before the collector reads once.
    const empty = Buffer.alloc(24);
    empty.writeUInt16BE(5, 0);
    await Promise.all(Array.from({ length: 3000 }, () => new Promise<void>((resolve, reject) => allowed.send(empty, netflowPort(), '127.0.0.1', (e) => (e ? reject(e) : resolve())))));
    const total = async () => (await received()) - receivedBefore + (await metric(api, 'flow_socket_receive_drops_total', { socket: 'netflow' })) - dropsBefore;
    await eventually(total, (n) => n === 3000, 'every datagram read or counted as dropped by the kernel');
    expect(await metric(api, 'flow_socket_receive_drops_total', { socket: 'netflow' })).toBeGreaterThan(dropsBefore);
  });
});
