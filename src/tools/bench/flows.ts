// Flow ingest: NetFlow v9 datagrams (30 records each, 5,000 hosts talking on a few ports) decoded
// and stored by the collector's own path (decoder, batches, COPY, rollup upserts) on one Node
// core, PostgreSQL in its own processes; then the disk bytes each stored flow costs (raw
// partitions and rollups together). Top-talkers latency waits for the /flow endpoints.
import { FLOW_TABLES } from '../../features/flows/flow-store.js';
import { elapsedMs, int, machine, withDataDir, withStores, writeSection } from './support.js';

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

export async function flowsBench({ flows }: { flows: number }): Promise<void> {
  await withDataDir((dataDir) =>
    withStores(dataDir, async (container) => {
      const collector = container.flowCollector;
      const now = Date.now();
      collector.receive(templateDatagram(now), '192.0.2.1', false, now);
      const datagrams = Array.from({ length: 1000 }, (_, i) => dataDatagram(i, now));
      const count = Math.ceil(flows / RECORDS_PER_DATAGRAM);
      const start = process.hrtime.bigint();
      for (let i = 0; i < count; i++) {
        collector.receive(datagrams[i % datagrams.length]!, '192.0.2.1', false, now);
        // Let the batch writes proceed as datagrams would arrive between them.
        if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await collector.flush();
      const seconds = elapsedMs(start) / 1000;
      const stored = collector.counters.stored;
      const { rows } = await container.db.raw(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_inherits JOIN pg_class c ON c.oid = inhrelid JOIN pg_class p ON p.oid = inhparent WHERE p.relname = ANY(?)`,
        [FLOW_TABLES],
      );
      const diskBytes = Number(rows[0].bytes);
      const lines = [
        '## Flow ingest',
        '',
        machine(),
        '',
        `NetFlow v9 datagrams of ${RECORDS_PER_DATAGRAM} records, ${int(HOSTS)} hosts; decoded and stored (COPY of raw records, upserts of the 1-minute, 5-minute and 1-hour rollups) by the collector's own code on one Node core, batches of ${int(container.config.flowsBatchSize)}.`,
        '',
        '| measure | value |',
        '|---|---|',
        `| flows stored | ${int(stored)} (dropped: ${int(collector.counters.overflow + collector.counters.writeFailed)}) |`,
        `| sustained ingest | ${int(stored / seconds)} flows/s |`,
        `| disk per flow (raw + rollups, indexes included) | ${(diskBytes / stored).toFixed(1)} bytes |`,
      ];
      writeSection('flows', lines.join('\n'));
      console.log(lines.join('\n'));
    }),
  );
}
