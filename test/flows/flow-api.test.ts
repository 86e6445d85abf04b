// GET /flow/top-talkers, /flow/conversations and /flow/exporters of the running service, fed over
// UDP with what real exporters sent (test/fixtures/flows), against Debian's nfdump as the
// reference: nfcapd collects the same datagrams and `nfdump -s srcip/bytes`, `-s ip/bytes` and
// `-A ... -s record/bytes` rank them. Then the flow-inventory job: exporters become FLOW_EXPORTER
// assets linked to the device at their address, and conversations between known assets become
// COMMUNICATES_WITH edges with the flow evidence.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { signIn, type ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { request } from '../support/http.js';
import { startTestService, testNeo4jDriver, type TestService } from '../support/test-stores.js';
import { datagrams, nfdumpRecords, type SoftflowdFixture } from './fixtures.js';
import { sendDatagrams, udpSender } from './flow-senders.js';

const run = promisify(execFile);
// The fixtures' traffic was captured on 2026-11-25 at 04:54 UTC; this window holds all of it.
const WINDOW = `from=${encodeURIComponent('2026-11-25T04:00:00Z')}&to=${encodeURIComponent('2026-11-25T06:00:00Z')}`;
const PLAIN = '127.0.0.1';
const SAMPLED = '127.0.0.2';
const SAMPLED_FIXTURE: SoftflowdFixture = 'softflowd-v9-sampled';
const RATE = 4;
const PROTOCOLS: Record<string, number> = { ICMP: 1, TCP: 6, UDP: 17, ICMP6: 58 };

let service: TestService;
let api: ApiClient;
const work = mkdtempSync(path.join(os.tmpdir(), 'flow-api-'));

async function freeUdpPort(): Promise<number> {
  const socket = await udpSender('127.0.0.1');
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** nfcapd collects the datagrams into its own folder; the folder is what nfdump then reads. */
async function nfcapdCollect(name: string, packets: Buffer[]): Promise<string> {
  const dir = path.join(work, name);
  const pidFile = path.join(work, `${name}.pid`);
  const port = await freeUdpPort();
  mkdirSync(dir);
  const nfcapd = spawn('nfcapd', ['-b', '127.0.0.1', '-p', String(port), '-w', dir, '-P', pidFile], { stdio: 'ignore' });
  const exited = new Promise((resolve) => nfcapd.once('exit', resolve));
  await eventually(async () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', (ready) => ready, 'nfcapd started');
  const socket = await udpSender('127.0.0.1');
  await sendDatagrams(socket, port, packets);
  socket.close();
  // nfcapd writes its file when it stops; its own counters say when it has read every datagram.
  await new Promise((resolve) => setTimeout(resolve, 500));
  nfcapd.kill('SIGTERM');
  await exited;
  return dir;
}

/** The rows of an nfdump csv answer (-q: no summary). */
async function nfdump(dir: string, args: string[]): Promise<string[][]> {
  const { stdout } = await run('nfdump', ['-R', dir, '-n', '0', '-o', 'csv', '-q', ...args]);
  return stdout.split('\n').filter((line) => /^\d{4}-/.test(line)).map((line) => line.split(','));
}

interface Ranked {
  key: string;
  bytes: number;
  packets: number;
}

const byKey = (rows: Ranked[]) => [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

// nfdump prints the unspecified IPv6 address (the source of duplicate address detection) as
// 0.0.0.0; the capture holds no IPv4 0.0.0.0.
const address = (text: string) => (text === '0.0.0.0' ? '::' : text);

/** `nfdump -s <stat>/bytes`: address, flows, packets, bytes (times the sampling rate). */
async function nfdumpTalkers(dir: string, stat: string, rate: number): Promise<(Ranked & { flows: number })[]> {
  return (await nfdump(dir, ['-s', `${stat}/bytes`])).map((f) => ({ key: address(f[4]!), flows: Number(f[5]), packets: rate * Number(f[7]), bytes: rate * Number(f[9]) }));
}

/** `nfdump -A <keys> -s record/bytes`: source, destination (ports when asked), protocol, packets, bytes. */
async function nfdumpConversations(dir: string, keys: string, rate: number, ports: boolean): Promise<Ranked[]> {
  return (await nfdump(dir, ['-A', keys, '-s', 'record/bytes'])).map((f) => {
    const protocol = PROTOCOLS[f[7]!] ?? Number(f[7]);
    const end = (text: string, port: string) => (ports ? `${address(text)}:${transportPort(protocol, Number(port))}` : address(text));
    return { key: `${end(f[3]!, f[5]!)}>${end(f[4]!, f[6]!)}/${protocol}`, packets: rate * Number(f[11]), bytes: rate * Number(f[12]) };
  });
}

/** Ports compared for TCP and UDP: nfdump shows ICMP's type and code as the destination port, which only our v5 decoder keeps there. */
const transportPort = (protocol: number, port: number) => (protocol === 6 || protocol === 17 ? port : 0);

const references = new Map<string, string>();

beforeAll(async () => {
  // The fixtures are dated when they were captured: a long raw retention keeps them in the window.
  service = await startTestService({ flowsRetentionRawDays: 3650, flowsFlushMs: 50, adminPassword: ADMIN_PASSWORD });
  api = await signIn(service.url, 'admin', ADMIN_PASSWORD);
  const port = service.running.container.flowCollector.ports!.netflowPort;
  // Two exporters: the plain NetFlow v5 export from one address, the 1-in-4 sampled NetFlow v9 one from another.
  for (const [address, fixture] of [[PLAIN, 'softflowd-v5'], [SAMPLED, SAMPLED_FIXTURE]] as const) {
    const socket = await udpSender(address);
    await sendDatagrams(socket, port, datagrams(fixture));
    socket.close();
    references.set(address, await nfcapdCollect(fixture, datagrams(fixture)));
  }
  const expected = nfdumpRecords('softflowd-v5').length + nfdumpRecords(SAMPLED_FIXTURE).length;
  await eventually(() => Promise.resolve(service.running.container.flowCollector.counters.records.stored), (n) => n >= expected, 'flows stored');
}, 120_000);

afterAll(async () => {
  await service.stop();
  rmSync(work, { recursive: true, force: true });
});

const talkers = async (query: string) => {
  const res = await api.get(`/api/v1/flow/top-talkers?${WINDOW}&limit=100&${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

const conversations = async (query: string) => {
  const res = await api.get(`/api/v1/flow/conversations?${WINDOW}&limit=100&${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

describe('top talkers, against nfdump', () => {
  it.each([
    ['source', 'srcip'],
    ['destination', 'dstip'],
    ['both', 'ip'],
  ])('direction=%s equals nfdump -s %s/bytes, for the plain and the 1-in-4 sampled exporter', async (direction, stat) => {
    for (const [exporter, rate] of [[PLAIN, 1], [SAMPLED, RATE]] as const) {
      const body = await talkers(`direction=${direction}&exporter=${exporter}`);
      const reference = await nfdumpTalkers(references.get(exporter)!, stat, rate);
      expect(reference.length).toBeGreaterThan(2);
      expect(byKey(body.data.map((r: any) => ({ key: r.address, flows: r.flows, packets: r.packets, bytes: r.bytes })))).toEqual(byKey(reference));
      // Ranked by bytes, best first, as nfdump ranks them.
      expect(body.data.map((r: any) => r.bytes)).toEqual(reference.map((r) => r.bytes));
      expect(body.data.map((r: any) => r.rank)).toEqual(reference.map((_, i) => i + 1));
    }
  });

  it('gives each address its share of the window, and sums what is beyond the limit into one "other" row', async () => {
    const all = await talkers(`exporter=${PLAIN}`);
    const total = all.data.reduce((s: number, r: any) => s + r.bytes, 0);
    expect(all.total.bytes).toBe(total);
    expect(all.capped).toBe(false);
    const top = (await api.get(`/api/v1/flow/top-talkers?${WINDOW}&exporter=${PLAIN}&limit=1`)).body;
    expect(top.capped).toBe(true);
    expect(top.data).toEqual([
      { ...all.data[0], share: all.data[0].bytes / total },
      { rank: null, other: true, address: null, asset: null, bytes: total - all.data[0].bytes, packets: all.total.packets - all.data[0].packets, flows: all.total.flows - all.data[0].flows, share: (total - all.data[0].bytes) / total },
    ]);
    expect(top.links).toEqual({ first: `${service.url}/api/v1/flow/top-talkers?${WINDOW}&exporter=${PLAIN}&limit=1` });
  });

  it('ranks by packets or flows when asked', async () => {
    const reference = await nfdumpTalkers(references.get(PLAIN)!, 'srcip', 1);
    const byPackets = await talkers(`exporter=${PLAIN}&metric=packets`);
    expect(byPackets.data.map((r: any) => r.address)).toEqual([...reference].sort((a, b) => b.packets - a.packets || (a.key < b.key ? -1 : 1)).map((r) => r.key));
    const byFlows = await talkers(`exporter=${PLAIN}&metric=flows`);
    expect(byFlows.data[0].share).toBe(byFlows.data[0].flows / byFlows.total.flows);
  });

  it('reads the hours from the 1-hour endpoint rollup and a port filter from the 1-minute conversation one, with the same totals', async () => {
    const hours = await talkers(`exporter=${PLAIN}`);
    expect(hours.rollups).toEqual(['flow_endpoint_1h']);
    expect(hours.window).toEqual({ from: '2026-11-25T04:00:00.000Z', to: '2026-11-25T06:00:00.000Z' });
    const edges = (await api.get(`/api/v1/flow/top-talkers?from=${encodeURIComponent('2026-11-25T03:52:30Z')}&to=${encodeURIComponent('2026-11-25T05:07:10Z')}&exporter=${PLAIN}&limit=100`)).body;
    expect(edges.window).toEqual({ from: '2026-11-25T03:52:00.000Z', to: '2026-11-25T05:08:00.000Z' });
    expect(edges.rollups).toEqual(['flow_endpoint_1m', 'flow_endpoint_5m', 'flow_endpoint_1h']);
    expect(edges.data).toEqual(hours.data);
    const port = await talkers(`exporter=${PLAIN}&port=8080`);
    expect(port.rollups).toEqual(['flow_rollup_1m']);
    // An interface filter reads the conversation rollups (endpoint rows keep no interface); softflowd
    // names interface 0 on every flow, so the filter keeps them all and the rankings are the same.
    for (const direction of ['source', 'destination', 'both']) {
      const byEndpoint = await talkers(`exporter=${PLAIN}&direction=${direction}`);
      const byConversation = await talkers(`exporter=${PLAIN}&direction=${direction}&interface=0`);
      expect(byConversation.rollups).toEqual(['flow_rollup_5m']);
      expect({ ...byConversation, rollups: byEndpoint.rollups, links: byEndpoint.links }).toEqual(byEndpoint);
    }
    const tcp8080 = nfdumpRecords('softflowd-v5').filter((r) => r.srcPort === 8080 || r.dstPort === 8080);
    expect(port.total.bytes).toBe(tcp8080.reduce((s, r) => s + r.bytes, 0));
  });
});

describe('conversations, against nfdump', () => {
  it.each([
    [false, 'srcip,dstip,proto'],
    [true, 'srcip,dstip,srcport,dstport,proto'],
  ])('ports=%s equals nfdump -A %s -s record/bytes, plain and sampled', async (ports, keys) => {
    for (const [exporter, rate] of [[PLAIN, 1], [SAMPLED, RATE]] as const) {
      const body = await conversations(`exporter=${exporter}&ports=${ports}`);
      const reference = await nfdumpConversations(references.get(exporter)!, keys, rate, ports);
      expect(reference.length).toBeGreaterThan(2);
      const end = (e: any, protocol: number) => (ports ? `${e.address}:${transportPort(protocol, e.port)}` : e.address);
      expect(byKey(body.data.map((r: any) => ({ key: `${end(r.source, r.protocol)}>${end(r.destination, r.protocol)}/${r.protocol}`, packets: r.packets, bytes: r.bytes })))).toEqual(byKey(reference));
    }
  });

  it('direction=both puts the two directions of a pair in one row, its ends in address order', async () => {
    const one = (await conversations(`exporter=${PLAIN}`)).data;
    const both = (await conversations(`exporter=${PLAIN}&direction=both`)).data;
    const pairs = new Map<string, Ranked>();
    for (const r of one) {
      const [a, b] = [r.source.address, r.destination.address].sort();
      const key = `${a}>${b}/${r.protocol}`;
      const sum = pairs.get(key) ?? { key, bytes: 0, packets: 0 };
      pairs.set(key, { key, bytes: sum.bytes + r.bytes, packets: sum.packets + r.packets });
    }
    expect(byKey(both.map((r: any) => ({ key: `${r.source.address}>${r.destination.address}/${r.protocol}`, bytes: r.bytes, packets: r.packets })))).toEqual(byKey([...pairs.values()]));
  });
});

describe('traffic per exporter over time', () => {
  type Point = { at: string; bytes: number; packets: number; flows: number };
  /** The exporter's raw records (the table the collector writes, not the rollups; sampled ones already scaled) summed per step by their start. */
  const steps = async (exporter: string, stepMs: number): Promise<Point[]> => {
    const { rows } = await service.running.container.db.raw(
      `SELECT floor(extract(epoch FROM flow_start) * 1000 / ?) * ? AS at, sum(bytes)::float8 AS bytes, sum(packets)::float8 AS packets, count(*)::int AS flows
         FROM flow_records WHERE exporter = CAST(? AS inet) GROUP BY 1 ORDER BY 1`,
      [stepMs, stepMs, exporter],
    );
    return (rows as Point[]).map((r) => ({ ...r, at: new Date(Number(r.at)).toISOString() }));
  };

  it.each([['PT1M', 60_000], ['PT5M', 300_000], ['PT1H', 3_600_000]] as const)('gives each exporter its flows summed per step of %s, as its raw records add up', async (step, stepMs) => {
    const res = await api.get(`/api/v1/flow/series?${WINDOW}&step=${step}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ window: { from: '2026-11-25T04:00:00.000Z', to: '2026-11-25T06:00:00.000Z' }, step, metric: 'bytes', limit: 10, capped: false });
    for (const [exporter, fixture] of [[PLAIN, 'softflowd-v5'], [SAMPLED, SAMPLED_FIXTURE]] as const) {
      const series = res.body.data.find((s: { exporter: string }) => s.exporter === exporter);
      const expected = await steps(exporter, stepMs);
      expect(expected.reduce((n, p) => n + p.flows, 0)).toBe(nfdumpRecords(fixture).length);
      expect(expected.length).toBeGreaterThan(0);
      expect(series).toEqual({
        exporter, other: false, points: expected,
        total: { bytes: expected.reduce((n, p) => n + p.bytes, 0), packets: expected.reduce((n, p) => n + p.packets, 0), flows: expected.reduce((n, p) => n + p.flows, 0) },
      });
      expect(series.total).toEqual((await talkers(`exporter=${exporter}`)).total);
    }
  });

  it('chooses a step of at most 120 over the window, reads the rollups that fit in it, and sums the exporters beyond the limit into one series', async () => {
    const all = (await api.get(`/api/v1/flow/series?${WINDOW}`)).body;
    expect([all.step, all.rollups]).toEqual(['PT1M', ['flow_endpoint_1m']]);
    const day = (await api.get(`/api/v1/flow/series?from=${encodeURIComponent('2026-11-24T06:00:00Z')}&to=${encodeURIComponent('2026-11-25T06:00:00Z')}`)).body;
    expect([day.step, day.rollups]).toEqual(['PT15M', ['flow_endpoint_5m']]);
    const busiest = [...all.data].sort((a, b) => b.total.bytes - a.total.bytes);
    const top = (await api.get(`/api/v1/flow/series?${WINDOW}&limit=1`)).body;
    expect(top.capped).toBe(true);
    expect(top.data).toEqual([busiest[0], { ...busiest[1], exporter: null, other: true }]);
    expect(top.links).toEqual({ first: `${service.url}/api/v1/flow/series?${WINDOW}&limit=1` });
  });

  it.each([
    ['step=PT2M', 'query.step'],
    [`step=PT1M&from=${encodeURIComponent('2026-11-20T00:00:00Z')}&to=${encodeURIComponent('2026-11-25T05:00:00Z')}`, 'query.step'],
    [`from=${encodeURIComponent('2026-11-25T06:00:00Z')}&to=${encodeURIComponent('2026-11-25T05:00:00Z')}`, 'query.from'],
  ])('refuses %s with a problem that names %s', async (query, field) => {
    const res = await api.get(`/api/v1/flow/series?${query}`);
    expect([res.status, res.headers.get('content-type')]).toEqual([400, expect.stringMatching(/^application\/problem\+json/)]);
    expect(JSON.stringify(res.body.errors)).toContain(field.replace('query.', ''));
  });
});

describe('bad requests', () => {
  it.each([
    [`from=${encodeURIComponent('2026-11-25T06:00:00Z')}&to=${encodeURIComponent('2026-11-25T05:00:00Z')}`, 'query.from'],
    [`from=${encodeURIComponent('2020-01-01T00:00:00Z')}&to=${encodeURIComponent('2026-11-25T05:00:00Z')}`, 'query.from'],
    ['limit=0', 'query.limit'],
    ['direction=sideways', 'query.direction'],
    ['protocol=256', 'query.protocol'],
    ['exporter=3f1c9d5e-0000-4000-8000-000000000000', 'query.exporter'],
    ['metric=octets', 'query.metric'],
  ])('%s is refused with a problem that names %s', async (query, field) => {
    const res = await api.get(`/api/v1/flow/top-talkers?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body.errors)).toContain(field.replace('query.', ''));
  });

  it('answers 401 to a caller without a credential', async () => {
    for (const endpoint of ['top-talkers', 'conversations', 'series', 'exporters']) {
      expect((await request(`${service.url}/api/v1/flow/${endpoint}`)).status).toBe(401);
    }
  });
});

describe('exporters and the inventory', () => {
  const job = () => service.running.container.flowInventory;
  const NO_RECORDS = { recordsStored: 0, recordsDropped: { fieldWidth: 0, fieldRange: 0, outOfWindow: 0, queueOverflow: 0, writeFailed: 0 } };

  it('lists each exporter with its protocol, counters and decode errors', async () => {
    const garbage = await udpSender('127.0.0.3');
    await sendDatagrams(garbage, service.running.container.flowCollector.ports!.netflowPort, [Buffer.from('000a0003deadbeef', 'hex'), Buffer.from('0005', 'hex')]);
    garbage.close();
    const body = await eventually(() => api.get('/api/v1/flow/exporters').then((r) => r.body), (b) => b.total === 3, 'three exporters listed');
    const byAddress = new Map(body.data.map((e: any) => [e.address, e]));
    // Every record read was stored, none dropped.
    const stored = (fixture: SoftflowdFixture) => ({ flows: nfdumpRecords(fixture).length, ...NO_RECORDS, recordsStored: nfdumpRecords(fixture).length });
    expect(byAddress.get(PLAIN)).toMatchObject({ protocol: 'netflow-v5', datagrams: datagrams('softflowd-v5').length, ...stored('softflowd-v5'), decodeErrors: 0, asset: null, device: null });
    expect(byAddress.get(SAMPLED)).toMatchObject({ protocol: 'netflow-v9', datagrams: datagrams(SAMPLED_FIXTURE).length, ...stored(SAMPLED_FIXTURE), decodeErrors: 0 });
    expect(byAddress.get('127.0.0.3')).toMatchObject({ protocol: null, datagrams: 2, flows: 0, decodeErrors: 2 });
    expect(body.data[0].rates).toEqual({ flowsPerSecond: expect.any(Number), packetsPerSecond: expect.any(Number), bitsPerSecond: expect.any(Number) });
  });

  it('makes each exporter a FLOW_EXPORTER asset once, and links one at a known device to it', async () => {
    // A router at 10.77.0.254 and the two hosts of the capture, known by an import.
    const bundle = {
      source: 'cmdb',
      assets: [
        { key: 'router', assetType: 'NETWORK_DEVICE', displayName: 'edge-router', ipAddresses: ['10.77.0.254'] },
        { key: 'client', assetType: 'PHYSICAL_HOST', displayName: 'client-host', hostname: 'client-host', ipAddresses: ['10.77.0.1', 'fd77::1'] },
        { key: 'web', assetType: 'PHYSICAL_HOST', displayName: 'web-server', hostname: 'web-server', ipAddresses: ['10.77.0.2'] },
      ],
      services: [{ asset: 'web', serviceName: 'web.service', displayName: 'web', listenPorts: [{ protocol: 'tcp', port: 8080 }] }],
      // The router's interfaces as an SNMP scan records them (ifIndex, ifName).
      interfaces: [{ asset: 'router', name: 'Gi0/1', ifIndex: 1 }, { asset: 'router', name: 'Gi0/2', ifIndex: 2 }, { asset: 'router', name: 'Null0' }],
    };
    const imported = await api.post('/api/v1/import', bundle);
    expect(imported.status).toBe(200);
    const ids = Object.fromEntries(imported.body.data.assets.map((a: any) => [a.key, a.id]));
    // The router exports too: its counters as a collector records them, and the name it announces for ifIndex 2.
    await service.running.container.flowStore.recordExporters(
      [{ address: '10.77.0.254', protocol: 'ipfix', datagrams: 1, flows: 0, decodeErrors: 0, missingTemplates: 0, templatesRefused: 0, ...NO_RECORDS, lastDatagramAt: Date.now() }],
      [{ exporter: '10.77.0.254', ifIndex: 2, name: 'uplink' }],
    );

    expect(await job().loadExporters(Date.now())).toBe(4);
    const exporters = (await api.get('/api/v1/flow/exporters')).body.data;
    const router = exporters.find((e: any) => e.address === '10.77.0.254');
    expect(router.asset).toMatchObject({ displayName: 'Flow exporter 10.77.0.254', assetType: 'FLOW_EXPORTER', assetCategory: 'FLOW_EXPORTER' });
    expect(router.device).toEqual({ id: ids.router, displayName: 'edge-router', assetType: 'NETWORK_DEVICE', assetCategory: 'NETWORK_DEVICE' });
    expect(exporters.find((e: any) => e.address === PLAIN).device).toBeNull();
    // Its own name for ifIndex 2; the scanned device's for ifIndex 1; an interface without ifIndex is none of them.
    expect(router.interfaces).toEqual([{ ifIndex: 1, name: 'Gi0/1', source: 'discovery' }, { ifIndex: 2, name: 'uplink', source: 'flow' }]);
    const edges = (await api.get(`/api/v1/assets/${router.asset.id}/relationships`)).body.data;
    expect(edges.map((r: any) => [r.relationshipType, r.sourceAssetId, r.targetAssetId])).toEqual([['RUNS_ON', router.asset.id, ids.router]]);

    // Again, an hour later: the same assets, none added; the router's address still names the router.
    await service.running.container.flowStore.recordExporters([{ address: '10.77.0.254', protocol: 'ipfix', datagrams: 1, flows: 0, decodeErrors: 0, missingTemplates: 0, templatesRefused: 0, ...NO_RECORDS, lastDatagramAt: Date.now() + 3_700_000 }], []);
    expect(await job().loadExporters(Date.now() + 3_800_000)).toBe(1);
    const listed = (await api.get('/api/v1/assets?type=FLOW_EXPORTER')).body;
    expect(listed.total).toBe(4);
    expect((await api.get('/api/v1/flow/exporters')).body.data.find((e: any) => e.address === '10.77.0.254').asset.id).toBe(router.asset.id);
    const talk = await talkers(`exporter=${router.asset.id}`);
    expect(talk.data).toEqual([]);
  });

  it('names the asset at each flow end, and the discovered service on its port', async () => {
    const body = await talkers(`exporter=${PLAIN}`);
    const named = Object.fromEntries(body.data.map((r: any) => [r.address, r.asset?.displayName ?? null]));
    expect(named).toMatchObject({ '10.77.0.1': 'client-host', '10.77.0.2': 'web-server', '10.77.0.3': null });
    const flows = (await conversations(`exporter=${PLAIN}&ports=true&protocol=6`)).data;
    const toWeb = flows.find((r: any) => r.destination.address === '10.77.0.2' && r.destination.port === 8080);
    expect(toWeb.source.asset.displayName).toBe('client-host');
    expect(toWeb.destination).toMatchObject({ asset: { displayName: 'web-server' }, service: 'web' });
    expect(toWeb.source.service).toBeNull();
    // The asset filter: flows with an end at the web server only.
    const webOnly = await talkers(`exporter=${PLAIN}&asset=${toWeb.destination.asset.id}`);
    expect(webOnly.data.map((r: any) => r.address).sort()).toEqual(['10.77.0.1', '10.77.0.2']);
  });

  it('turns the conversation of two known hosts into one COMMUNICATES_WITH edge, client to server, with the flow evidence', async () => {
    // Run as five minutes after the capture: its window holds every flow.
    expect(await job().loadCommunications(Date.parse('2026-11-25T05:00:00Z'))).toBe(1);
    const driver = testNeo4jDriver();
    try {
      const { records } = await driver.executeQuery(
        `MATCH (s:Asset)-[r:COMMUNICATES_WITH]->(t:Asset) RETURN s.displayName AS s, t.displayName AS t, r.sources AS sources,
                r.flowBytes AS bytes, r.flowPackets AS packets, toString(r.flowFirstSeenAt) AS first, toString(r.flowLastSeenAt) AS last`,
      );
      const between = (records: ReturnType<typeof nfdumpRecords>, rate: number, field: 'bytes' | 'packets') =>
        rate * records.filter((r) => [r.srcAddr, r.dstAddr].sort().join() === '10.77.0.1,10.77.0.2').reduce((s, r) => s + r[field], 0);
      const expected = (field: 'bytes' | 'packets') => between(nfdumpRecords('softflowd-v5'), 1, field) + between(nfdumpRecords(SAMPLED_FIXTURE), RATE, field);
      expect(records.map((r) => ({ ...r.toObject(), bytes: Number(r.get('bytes')), packets: Number(r.get('packets')) }))).toEqual([
        { s: 'client-host', t: 'web-server', sources: ['flow'], bytes: expected('bytes'), packets: expected('packets'), first: '2026-11-25T04:54:00Z', last: '2026-11-25T04:55:00Z' },
      ]);
    } finally {
      await driver.close();
    }
  });

  it('takes the flow evidence off a COMMUNICATES_WITH edge whose flows have not been seen for the retire time: retired when flows were its only source, kept with the SSH socket evidence otherwise', async () => {
    const retireAfterMs = service.running.container.config.flowsCommunicationRetireHours * 3_600_000;
    const lastFlow = Date.parse('2026-11-25T04:55:00Z');
    const driver = testNeo4jDriver();
    const edge = async () => {
      const { records } = await driver.executeQuery(
        `MATCH (s:Asset)-[r:COMMUNICATES_WITH]->(t:Asset) RETURN s.id AS s, t.id AS t, r.sources AS sources, r.active AS active, r.retiredAt IS NOT NULL AS retired,
                r.flowBytes IS NOT NULL AS traffic, toString(r.flowLastSeenAt) AS last`,
      );
      return records.map((r) => r.toObject() as { s: string; t: string; sources: string[]; active: boolean; retired: boolean; traffic: boolean; last: string });
    };
    const listed = async (id: string) => (await api.get(`/api/v1/assets/${id}/relationships`)).body.data.filter((r: any) => r.relationshipType === 'COMMUNICATES_WITH');
    try {
      const { s: client, t: web } = (await edge())[0]!;
      // Not yet: the last flow minute is less than the retire time ago.
      expect(await job().retireCommunications(lastFlow + retireAfterMs - 60_000)).toBe(0);
      expect(await edge()).toEqual([{ s: client, t: web, sources: ['flow'], active: true, retired: false, traffic: true, last: '2026-11-25T04:55:00Z' }]);
      // Past it: flows were the only source, so the edge is retired and leaves the lists.
      expect(await job().retireCommunications(lastFlow + retireAfterMs + 60_000)).toBe(1);
      expect(await edge()).toEqual([{ s: client, t: web, sources: [], active: false, retired: true, traffic: false, last: '2026-11-25T04:55:00Z' }]);
      expect(await listed(client)).toEqual([]);

      // Flows show it again, and the SSH socket table reports it too: past the retire time it keeps that evidence only.
      expect(await job().loadCommunications(Date.parse('2026-11-25T05:00:00Z'))).toBe(1);
      const ssh = await api.post('/api/v1/import', {
        source: 'discovery',
        assets: [
          { key: 'client', assetType: 'PHYSICAL_HOST', displayName: 'client-host', hostname: 'client-host', ipAddresses: ['10.77.0.1', 'fd77::1'] },
          { key: 'web', assetType: 'PHYSICAL_HOST', displayName: 'web-server', hostname: 'web-server', ipAddresses: ['10.77.0.2'] },
        ],
        relationships: [{ type: 'COMMUNICATES_WITH', source: 'client', target: 'web' }],
      });
      expect(ssh.status).toBe(200);
      expect(await edge()).toEqual([{ s: client, t: web, sources: ['flow', 'discovery'], active: true, retired: false, traffic: true, last: '2026-11-25T04:55:00Z' }]);
      expect(await job().retireCommunications(lastFlow + retireAfterMs + 60_000)).toBe(1);
      expect(await edge()).toEqual([{ s: client, t: web, sources: ['discovery'], active: true, retired: false, traffic: false, last: '2026-11-25T04:55:00Z' }]);
      expect((await listed(client)).map((r: any) => [r.sourceAssetId, r.targetAssetId])).toEqual([[client, web]]);
      // Nothing left with the flow claim.
      expect(await job().retireCommunications(lastFlow + retireAfterMs + 60_000)).toBe(0);
    } finally {
      await driver.close();
    }
  });
});
