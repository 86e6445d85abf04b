// Flow ingest: NetFlow v9 datagrams (30 records each, 5,000 hosts talking on a few ports) decoded
// and stored by the collector's own path (decoder, batches, COPY, rollups) on one Node core,
// PostgreSQL in its own processes: once offered at the goal rate (what is dropped is counted),
// once fed as fast as the collector stores (the feeder waits while two batches are queued, as a
// socket buffer would hold datagrams), with the CPU time of Node and of PostgreSQL read from /proc
// (the machine may be shared: wall-clock rates then say little). Then the disk bytes each stored
// flow costs (raw partitions and rollups together); then the latency of top talkers and
// conversations (the service calls behind GET /flow/top-talkers and /flow/conversations) over the
// last hour and the last 24 hours of rollups as 10,000 flows/s fill them. Last, a flood of new keys
// (exporters, observation domains, templates, sampler ids, interface names, addresses), PostgreSQL
// stalled at its end, against the bound docs/flows.md gives the collector's memory.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Container } from '../../container.js';
import type { FlowRecord } from '../../features/flows/decode/flow-record.js';
import { PENDING_INTERFACE_NAMES, type FlowCollector } from '../../features/flows/flow-collector.js';
import { FLOW_TABLES, ROLLUPS } from '../../features/flows/flow-store.js';
import { elapsedMs, int, loadAverage, machine, median, percentile, withDataDir, withStores, writeSection } from './support.js';

const RECORDS_PER_DATAGRAM = 30;
const HOSTS = 5000;
const TEMPLATE_ID = 256;
// sourceIPv4Address, destinationIPv4Address, ports, protocol, bytes, packets, uptime stamps.
const FIELDS: [number, number][] = [[8, 4], [12, 4], [7, 2], [11, 2], [4, 1], [1, 4], [2, 4], [22, 4], [21, 4]];
const RECORD_LENGTH = FIELDS.reduce((sum, [, length]) => sum + length, 0);

function header(length: number, uptime: number, now: number): Buffer {
  const buffer = Buffer.alloc(length);
  buffer.writeUInt16BE(9, 0);
  buffer.writeUInt32BE(uptime, 4);
  buffer.writeUInt32BE(Math.floor(now / 1000), 8);
  return buffer;
}

function templateDatagram(now: number): Buffer {
  const setLength = 4 + 4 + FIELDS.length * 4;
  const datagram = header(20 + setLength, 1_000_000, now);
  datagram.writeUInt16BE(0, 20);
  datagram.writeUInt16BE(setLength, 22);
  datagram.writeUInt16BE(TEMPLATE_ID, 24);
  datagram.writeUInt16BE(FIELDS.length, 26);
  FIELDS.forEach(([id, length], i) => {
    datagram.writeUInt16BE(id, 28 + i * 4);
    datagram.writeUInt16BE(length, 30 + i * 4);
  });
  return datagram;
}

function dataDatagram(seed: number, now: number): Buffer {
  const setLength = 4 + RECORDS_PER_DATAGRAM * RECORD_LENGTH;
  const datagram = header(20 + setLength, 1_000_000, now);
  datagram.writeUInt16BE(TEMPLATE_ID, 20);
  datagram.writeUInt16BE(setLength, 22);
  for (let r = 0; r < RECORDS_PER_DATAGRAM; r++) {
    const at = 24 + r * RECORD_LENGTH;
    const n = seed * RECORDS_PER_DATAGRAM + r;
    datagram.writeUInt32BE(0x0a000000 + (n % HOSTS), at);
    datagram.writeUInt32BE(0x0a000000 + ((n * 7919) % HOSTS), at + 4);
    datagram.writeUInt16BE(32768 + (n % 28000), at + 8);
    datagram.writeUInt16BE([443, 80, 53, 22, 3306][n % 5]!, at + 10);
    datagram.writeUInt8(n % 5 === 2 ? 17 : 6, at + 12);
    datagram.writeUInt32BE(64 + (n % 1500) * 10, at + 13);
    datagram.writeUInt32BE(1 + (n % 20), at + 17);
    datagram.writeUInt32BE(999_000, at + 21);
    datagram.writeUInt32BE(999_500, at + 25);
  }
  return datagram;
}

// The goal: 50,000 flows/s decoded and stored on one core (issue 13).
const GOAL_FLOWS_PER_SECOND = 50_000;
// Fed as fast as stored: the feeder waits while this many batches are queued.
const QUEUED_BATCHES = 2;
// /proc times are in clock ticks: 100 a second on Linux.
const MS_PER_TICK = 10;

/**
 * CPU milliseconds (user and system) the embedded PostgreSQL has spent: its postmaster with the
 * children it reaped, and its live processes (backends, WAL writer, checkpointer).
 */
function postgresCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile: its time went to its parent's children times
    }
    // After the name: state, ppid, ..., utime (12th), stime, cutime, cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    if (Number(entry) === postmaster) ticks += fields[11]! + fields[12]! + fields[13]! + fields[14]!;
    else if (fields[1] === postmaster) ticks += fields[11]! + fields[12]!;
  }
  return ticks * MS_PER_TICK;
}

interface IngestRun {
  offered: number;
  stored: number;
  dropped: number;
  seconds: number;
  nodeCpuMs: number;
  postgresCpuMs: number;
}

/**
 * `flows` flows offered to the collector's receive path (decode, buffer, batch writes): at `rate`
 * flows/s when given (the collector drops what it cannot queue), else as fast as it stores.
 */
async function ingest(collector: FlowCollector, batchSize: number, dataDir: string, datagrams: Buffer[], flows: number, now: number, rate?: number): Promise<IngestRun> {
  const before = { stored: collector.counters.records.stored, ...collector.counters.records.dropped };
  const count = Math.ceil(flows / RECORDS_PER_DATAGRAM);
  const cpu = process.cpuUsage();
  const postgres = postgresCpuMs(dataDir);
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    if (rate !== undefined) {
      const ahead = (i * RECORDS_PER_DATAGRAM * 1000) / rate - elapsedMs(start);
      if (ahead >= 1) await sleep(ahead);
    } else {
      while (collector.backlog >= QUEUED_BATCHES * batchSize) await sleep(1);
    }
    collector.receive(datagrams[i % datagrams.length]!, '192.0.2.1', false, now);
    // Let the batch writes proceed as datagrams would arrive between them.
    if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await collector.flush();
  const seconds = elapsedMs(start) / 1000;
  const used = process.cpuUsage(cpu);
  const after = collector.counters;
  return {
    offered: count * RECORDS_PER_DATAGRAM,
    stored: after.records.stored - before.stored,
    dropped: after.records.dropped.queueOverflow - before.queueOverflow + after.records.dropped.writeFailed - before.writeFailed,
    seconds,
    nodeCpuMs: (used.user + used.system) / 1000,
    postgresCpuMs: postgresCpuMs(dataDir) - postgres,
  };
}

// The rollups of 10,000 flows/s among the same 5,000 hosts, written straight into the tables (a day
// of ingest would take a day): flows per bucket add up to 10,000/s; the rows per bucket are how many
// distinct keys each rollup keeps, an assumption stated in the section. The finer rollups are
// filled where the windows of the last hour and of the last 24 hours read them: at both their ends.
export const FLOWS_PER_SECOND = 10_000;
const SYNTHETIC: { table: string; bucketMs: number; rows: number; hoursAgo: [number, number][]; ports: boolean; interfaces: boolean }[] = [
  { table: 'flow_rollup_1h', bucketMs: 3_600_000, rows: 100_000, hoursAgo: [[25, 0]], ports: false, interfaces: false },
  { table: 'flow_rollup_5m', bucketMs: 300_000, rows: 50_000, hoursAgo: [[25, 23], [2, 0]], ports: false, interfaces: true },
  { table: 'flow_rollup_1m', bucketMs: 60_000, rows: 50_000, hoursAgo: [[24.2, 23.8], [1.2, 0]], ports: true, interfaces: true },
];
const LATENCY_RUNS = 15;

/** One flow on a day, so that the collector's store makes that day's partitions. */
const dayFlow = (at: number): FlowRecord => ({
  exporter: '192.0.2.2', observationDomain: 0, start: at, end: at, srcAddr: '10.0.0.1', dstAddr: '10.0.0.2', srcPort: 1, dstPort: 2,
  protocol: 6, tcpFlags: 0, tos: 0, bytes: 1, packets: 1, samplingRate: 1, inputInterface: 0, outputInterface: 0,
});

export async function fillRollups(container: Container, now: number): Promise<void> {
  for (let day = now - 26 * 3_600_000; day <= now + 86_400_000; day += 86_400_000) await container.flowStore.write([dayFlow(day)]);
  // Only the synthetic traffic: the ingest runs wrote their flows into the current minute at far
  // more than 10,000 flows/s.
  await container.db.raw(`TRUNCATE ${FLOW_TABLES.join(', ')}`);
  for (const t of SYNTHETIC) for (const [fromHours, toHours] of t.hoursAgo) {
    const first = Math.floor((now - fromHours * 3_600_000) / t.bucketMs) * t.bucketMs;
    const last = Math.floor((now - toHours * 3_600_000) / t.bucketMs) * t.bucketMs;
    const flowsPerRow = Math.round((FLOWS_PER_SECOND * t.bucketMs) / 1000 / t.rows);
    // Key columns unique per bucket: source r mod 5,000, destination shifted by r div 5,000.
    await container.db.raw(
      `INSERT INTO ${t.table} (bucket, exporter, ${t.interfaces ? 'input_interface, output_interface, ' : ''}src_addr, dst_addr, protocol, ${t.ports ? 'src_port, dst_port, ' : ''}bytes, packets, flows)
       SELECT b, '192.0.2.1', ${t.interfaces ? '1 + r % 48, 49, ' : ''}CAST('10.0.0.0' AS inet) + r % ?, CAST('10.0.0.0' AS inet) + (r / ? + r) % ?, 6, ${t.ports ? '32768 + r % 28000, 443, ' : ''}
              ? * (64 + (r * 7919) % 1400), ? * (1 + r % 20), ?
         FROM generate_series(CAST(? AS timestamptz), CAST(? AS timestamptz), CAST(? AS interval)) AS b, generate_series(0, ? - 1) AS r
       ON CONFLICT DO NOTHING`,
      [HOSTS, HOSTS, HOSTS, flowsPerRow, flowsPerRow, flowsPerRow, new Date(first).toISOString(), new Date(last).toISOString(), `${t.bucketMs / 1000} seconds`, t.rows],
    );
  }
  // The endpoint rollups hold, per address, what the conversation rollup of the same width holds
  // (as the collector would have written them from the same flows).
  for (const endpoint of ROLLUPS.filter((r) => r.kind === 'endpoint')) {
    const conversation = ROLLUPS.find((r) => r.kind === 'conversation' && r.bucketMs === endpoint.bucketMs)!;
    await container.db.raw(
      `INSERT INTO ${endpoint.table} (bucket, exporter, address, protocol, sent_bytes, sent_packets, sent_flows, received_bytes, received_packets, received_flows)
       SELECT bucket, exporter, address, protocol, sum(sb), sum(sp), sum(sf), sum(rb), sum(rp), sum(rf)
         FROM (SELECT bucket, exporter, src_addr AS address, protocol, bytes AS sb, packets AS sp, flows AS sf, 0 AS rb, 0 AS rp, 0 AS rf FROM ${conversation.table}
               UNION ALL
               SELECT bucket, exporter, dst_addr, protocol, 0, 0, 0, bytes, packets, flows FROM ${conversation.table}) AS ends
        GROUP BY bucket, exporter, address, protocol`,
    );
  }
  await container.db.raw(`ANALYZE ${ROLLUPS.map((t) => t.table).join(', ')}`);
}

/** Median and p99 of top talkers or conversations over the hours before now, after two warm-up calls. */
async function rankingLatency(container: Container, ranking: 'topTalkers' | 'conversations', hours: number): Promise<string> {
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_RUNS + 2; i++) {
    const to = new Date();
    const from = new Date(to.getTime() - hours * 3_600_000);
    const start = process.hrtime.bigint();
    await container.flowAnalytics[ranking]({ from: from.toISOString(), to: to.toISOString() });
    if (i >= 2) samples.push(elapsedMs(start));
  }
  return `${median(samples).toFixed(1)} / ${percentile(samples, 0.99).toFixed(1)} ms`;
}

// The flood: each datagram from a new exporter address (IPv6, the longest keys), in a new
// observation domain, with a template of 256 fields, 20 new sampler ids, 10 interface names of 256
// characters and flows between new addresses. PostgreSQL stalls (flow_records locked) for the last
// quarter of the flood, at most STALL_SECONDS, while each datagram carries STALLED_FLOWS flows: the
// queue fills to its cap.
const FLOOD_SAMPLERS = 20;
const FLOOD_NAMES = 10;
const FLOOD_FIELDS = 256;
const STALL_SECONDS = 60;
const STALLED_FLOWS = 30;
export const FULL_FLOOD_SECONDS = 600;
const MIB = 2 ** 20;
/**
 * Bytes one entry of each structure holds at most (V8 heap and array buffers, Node 20): each
 * structure filled alone with worst-case entries (IPv6 keys, 256-field templates, 256-character
 * names) and measured after a full GC. docs/flows.md gives the same figures.
 */
const ENTRY_BYTES = { exporters: 800, templates: 1600, sampling: 300, addresses: 300, interfaceNames: 600, queuedFlow: 450 };
// A batch being written: its COPY encoding (at most 168 bytes a row) and the slice of its rows.
const BATCH_BYTES_PER_FLOW = 176;

const hexWord = (n: number) => (n & 0xffff).toString(16);
const floodAddress = (n: number) => `fd00:${hexWord(n / 65536)}:${hexWord(n)}:abcd:1234:5678:9abc:def0`;
const ipv6Bytes = (n: number) => {
  const b = Buffer.alloc(16);
  b.writeUInt16BE(0xfd00, 0);
  b.writeUInt32BE(n >>> 0, 4);
  b.writeUInt32BE(0xabcd1234, 8);
  b.writeUInt32BE(0x56789abc, 12);
  return b;
};

function ipfixSet(id: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(4 + body.length, 2);
  return Buffer.concat([header, body]);
}

const words16 = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeUInt16BE(v, i * 2));
  return b;
};

// Data template 300: addresses, ports, protocol, bytes, packets, start and end in ms. Options 301: sampler id and rate; 302: ifIndex and name.
const FLOOD_FLOW_FIELDS = [[27, 16], [28, 16], [7, 2], [11, 2], [4, 1], [1, 8], [2, 8], [152, 8], [153, 8]];
const FLOOD_TEMPLATES = ipfixSet(2, Buffer.concat([words16(300, FLOOD_FLOW_FIELDS.length), ...FLOOD_FLOW_FIELDS.map(([id, length]) => words16(id!, length!))]));
const FLOOD_OPTIONS = ipfixSet(3, Buffer.concat([words16(301, 2, 1, 48, 4, 34, 4), words16(302, 2, 1, 10, 4, 82, 256)]));

function floodDatagram(n: number, flows: number, now: number): Buffer {
  // A template of 256 fields (elements we do not keep: only their lengths matter) under a new id.
  const big = Buffer.alloc(4 + FLOOD_FIELDS * 4);
  big.writeUInt16BE(256 + (n % 40_000), 0);
  big.writeUInt16BE(FLOOD_FIELDS, 2);
  for (let f = 0; f < FLOOD_FIELDS; f++) big.writeUInt32BE(((1000 + f) << 16) | 4, 4 + f * 4);
  const samplers = Buffer.alloc(FLOOD_SAMPLERS * 8);
  for (let r = 0; r < FLOOD_SAMPLERS; r++) {
    samplers.writeUInt32BE((n * FLOOD_SAMPLERS + r) >>> 0, r * 8);
    samplers.writeUInt32BE(2, r * 8 + 4);
  }
  const names = Buffer.alloc(FLOOD_NAMES * 260, 'x');
  for (let r = 0; r < FLOOD_NAMES; r++) names.writeUInt32BE(r + 1, r * 260);
  const records = Buffer.alloc(flows * 69);
  for (let r = 0; r < flows; r++) {
    const at = r * 69;
    ipv6Bytes(n * 64 + r * 2).copy(records, at);
    ipv6Bytes(n * 64 + r * 2 + 1).copy(records, at + 16);
    records.writeUInt16BE(40_000 + r, at + 32);
    records.writeUInt16BE(443, at + 34);
    records.writeUInt8(6, at + 36);
    records.writeBigUInt64BE(1500n, at + 37);
    records.writeBigUInt64BE(3n, at + 45);
    records.writeBigUInt64BE(BigInt(now - 1000), at + 53);
    records.writeBigUInt64BE(BigInt(now), at + 61);
  }
  const header = Buffer.alloc(16);
  header.writeUInt16BE(10, 0);
  header.writeUInt32BE(Math.floor(now / 1000), 4);
  header.writeUInt32BE(n >>> 0, 12);
  const message = Buffer.concat([header, ipfixSet(2, big), FLOOD_TEMPLATES, FLOOD_OPTIONS, ipfixSet(301, samplers), ipfixSet(302, names), ipfixSet(300, records)]);
  message.writeUInt16BE(message.length, 2);
  return message;
}

/** A full garbage collection, from a process started without --expose-gc. */
const collectGarbage = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** The live heap and array buffers after a full collection (the flood's figure: garbage waiting for a GC is not held). */
function liveBytes(): number {
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

type FloodPhase = 'first half' | 'second half' | 'stalled';

interface FloodRun {
  seconds: number;
  stallSeconds: number;
  datagrams: number;
  /** Live and resident bytes above their level before the flood: the highest sample of each phase (two halves before the stall, the stall), and at the end. */
  peaks: Record<FloodPhase, { live: number; rss: number }>;
  endBytes: number;
  boundBytes: number;
  entries: Record<string, [number, number]>;
  forgotten: Record<string, number>;
  overflow: number;
}

/** What the documented bound allows the collector to hold with these settings. */
function memoryBound(container: Container): number {
  const c = container.config;
  return c.flowsMaxExporters * ENTRY_BYTES.exporters + c.flowsMaxTemplates * ENTRY_BYTES.templates + c.flowsMaxSamplerIds * ENTRY_BYTES.sampling +
    c.flowsMaxCachedAddresses * ENTRY_BYTES.addresses + PENDING_INTERFACE_NAMES * ENTRY_BYTES.interfaceNames +
    container.flowCollector.capacity * ENTRY_BYTES.queuedFlow + c.flowsBatchSize * BATCH_BYTES_PER_FLOW;
}

async function floodKeys(container: Container, seconds: number): Promise<FloodRun> {
  const collector = container.flowCollector;
  await collector.flush();
  const before = liveBytes();
  const rssBefore = process.memoryUsage().rss;
  const stallSeconds = Math.min(STALL_SECONDS, seconds / 4);
  const started = Date.now();
  const stallAt = started + (seconds - stallSeconds) * 1000;
  const end = started + seconds * 1000;
  const peaks: FloodRun['peaks'] = { 'first half': { live: 0, rss: 0 }, 'second half': { live: 0, rss: 0 }, stalled: { live: 0, rss: 0 } };
  const phaseAt = (now: number): FloodPhase => (now >= stallAt ? 'stalled' : now - started < (stallAt - started) / 2 ? 'first half' : 'second half');
  let nextSample = started;
  let n = 0;
  let stall: Promise<void> | undefined;
  let release: (() => void) | undefined;
  const overflowBefore = collector.counters.records.dropped.queueOverflow;
  for (let now = Date.now(); now < end; now = Date.now()) {
    if (!stall && now >= stallAt) {
      let locked: () => void = () => undefined;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      stall = container.db.transaction(async (trx) => {
        await trx.raw('LOCK TABLE flow_records IN ACCESS EXCLUSIVE MODE');
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;
    }
    const i = n++;
    collector.receive(floodDatagram(i, stall ? STALLED_FLOWS : 1, now), floodAddress(i), false, now);
    if (n % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (now >= nextSample) {
      nextSample = now + 5000;
      const peak = peaks[phaseAt(now)];
      peak.live = Math.max(peak.live, liveBytes() - before);
      peak.rss = Math.max(peak.rss, process.memoryUsage().rss - rssBefore);
    }
  }
  const endBytes = liveBytes() - before;
  peaks.stalled.live = Math.max(peaks.stalled.live, endBytes);
  const entries = Object.fromEntries([
    ...Object.entries(collector.state).map(([name, map]) => [name, [map.size, map.limits.capacity]]),
    ['interface names waiting', [collector.pendingInterfaceNames, PENDING_INTERFACE_NAMES]],
    ['queued flows', [collector.backlog, collector.capacity]],
  ]) as Record<string, [number, number]>;
  const forgotten = Object.fromEntries(Object.entries(collector.state).map(([name, map]) => [name, map.stats.evicted + map.stats.expired]));
  const overflow = collector.counters.records.dropped.queueOverflow - overflowBefore;
  release?.();
  await stall;
  await collector.flush();
  return { seconds, stallSeconds, datagrams: n, peaks, endBytes, boundBytes: memoryBound(container), entries, forgotten, overflow };
}

export async function flowsBench({ flows, floodSeconds }: { flows: number; floodSeconds: number }): Promise<void> {
  await withDataDir((dataDir) =>
    withStores(dataDir, async (container) => {
      const collector = container.flowCollector;
      const batchSize = container.config.flowsBatchSize;
      const loadAtStart = loadAverage();
      const now = Date.now();
      collector.receive(templateDatagram(now), '192.0.2.1', false, now);
      const datagrams = Array.from({ length: 1000 }, (_, i) => dataDatagram(i, now));
      const fast = await ingest(collector, batchSize, dataDir, datagrams, flows, now);
      const paced = await ingest(collector, batchSize, dataDir, datagrams, flows, now, GOAL_FLOWS_PER_SECOND);
      const loadAfterIngest = loadAverage();
      const stored = fast.stored + paced.stored;
      const { rows } = await container.db.raw(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_inherits JOIN pg_class c ON c.oid = inhrelid JOIN pg_class p ON p.oid = inhparent WHERE p.relname = ANY(?)`,
        [FLOW_TABLES],
      );
      const diskBytes = Number(rows[0].bytes);
      await fillRollups(container, Date.now());
      const hour = await rankingLatency(container, 'topTalkers', 1);
      const day = await rankingLatency(container, 'topTalkers', 24);
      const conversationsHour = await rankingLatency(container, 'conversations', 1);
      const conversationsDay = await rankingLatency(container, 'conversations', 24);
      const flood = await floodKeys(container, floodSeconds);
      const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
      const phases = Object.keys(flood.peaks).join(' / ');
      const peakLive = Math.max(...Object.values(flood.peaks).map((p) => p.live));
      const perMillion = (ms: number, run: IngestRun) => `${((ms / run.stored) * 1000).toFixed(1)} s`;
      const lines = [
        '## Flow ingest',
        '',
        `${machine()} · load average ${loadAtStart} at the start, ${loadAfterIngest} after ingest, ${loadAverage()} at the end`,
        '',
        `NetFlow v9 datagrams of ${RECORDS_PER_DATAGRAM} records, ${int(HOSTS)} hosts; decoded and stored (binary COPY of raw records, the raw and endpoint rollups added from the same batch) by the collector's own code on one Node core, PostgreSQL in its own processes, batches of ${int(batchSize)}. Fed as fast as stored: the feeder waits while ${QUEUED_BATCHES} batches are queued. CPU times from /proc (user + system; PostgreSQL: all its processes).`,
        '',
        '| measure | fed as fast as stored | offered at the goal, ' + int(GOAL_FLOWS_PER_SECOND) + ' flows/s |',
        '|---|---|---|',
        `| flows offered / stored / dropped | ${int(fast.offered)} / ${int(fast.stored)} / ${int(fast.dropped)} | ${int(paced.offered)} / ${int(paced.stored)} / ${int(paced.dropped)} |`,
        `| flows/s (wall clock) | ${int(fast.stored / fast.seconds)} | ${int(paced.stored / paced.seconds)} |`,
        `| CPU per million flows: Node (decode, encode, client) | ${perMillion(fast.nodeCpuMs, fast)} | ${perMillion(paced.nodeCpuMs, paced)} |`,
        `| CPU per million flows: PostgreSQL | ${perMillion(fast.postgresCpuMs, fast)} | ${perMillion(paced.postgresCpuMs, paced)} |`,
        `| flows per CPU-second, Node and PostgreSQL together | ${int((fast.stored / (fast.nodeCpuMs + fast.postgresCpuMs)) * 1000)} | ${int((paced.stored / (paced.nodeCpuMs + paced.postgresCpuMs)) * 1000)} |`,
        '',
        `Disk per flow (raw + rollups, indexes included): ${(diskBytes / stored).toFixed(1)} bytes.`,
        '',
        `Top talkers and conversations (top 10 by bytes, the service calls behind GET /flow/top-talkers and /flow/conversations, median / p99 of ${LATENCY_RUNS}) over rollups as ${int(FLOWS_PER_SECOND)} flows/s fill them: ${SYNTHETIC.map((t) => `${t.table} ${int(t.rows)} rows per bucket from ${t.hoursAgo.map(([a, b]) => `${a} to ${b} h ago`).join(' and ')}`).join('; ')}; the endpoint rollups hold the same traffic per address (${int(HOSTS)} rows per bucket).`,
        '',
        '| window | top talkers | conversations |',
        '|---|---|---|',
        `| last hour | ${hour} | ${conversationsHour} |`,
        `| last 24 hours | ${day} | ${conversationsDay} |`,
        '',
        `### Flood of new keys${flood.seconds < FULL_FLOOD_SECONDS ? ` (a shorter run: ${flood.seconds} s; the full run floods for ${FULL_FLOOD_SECONDS} s)` : ''}`,
        '',
        `${int(flood.datagrams)} IPFIX datagrams in ${flood.seconds} s, each from a new exporter address (IPv6) in a new observation domain, with a template of ${FLOOD_FIELDS} fields, ${FLOOD_SAMPLERS} new sampler ids, ${FLOOD_NAMES} interface names of 256 characters and flows between new addresses (1 a datagram; ${STALLED_FLOWS} while PostgreSQL stalled: flow_records locked for the last ${flood.stallSeconds} s). Memory is the collector's process (V8 heap and array buffers after a full GC) above its level before the flood; the bound is docs/flows.md's for these settings (each cap times its entry's worst-case bytes, the queue full, and a batch being written).`,
        '',
        `| measure | value |`,
        '|---|---|',
        `| live memory above the start, peak (samples every 5 s): ${phases} | ${Object.values(flood.peaks).map((p) => mib(p.live)).join(' / ')} |`,
        `| live memory above the start at the end | ${mib(flood.endBytes)} |`,
        `| documented bound | ${mib(flood.boundBytes)} (${peakLive <= flood.boundBytes ? 'held' : '**exceeded**'}) |`,
        `| resident set above the start, peak: ${phases} | ${Object.values(flood.peaks).map((p) => mib(p.rss)).join(' / ')} |`,
        `| entries held at the end / cap | ${Object.entries(flood.entries).map(([name, [size, cap]]) => `${name} ${int(size)} / ${int(cap)}`).join('; ')} |`,
        `| entries forgotten (for room or expired) | ${Object.entries(flood.forgotten).map(([name, count]) => `${name} ${int(count)}`).join('; ')} |`,
        `| flow records dropped, queue full (counted) | ${int(flood.overflow)} |`,
      ];
      writeSection('flows', lines.join('\n'));
      console.log(lines.join('\n'));
    }),
  );
}
