// PostgreSQL side of the flows: raw records written by COPY in batches, the three rollups added
// into by upserts of the batch's own aggregates (in the same transaction, so a batch counts once
// or not at all), day partitions created as flows arrive, and expired partitions dropped whole.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { ExporterCounters } from './decode/flow-decoder.js';
import type { FlowRecord, InterfaceName } from './decode/flow-record.js';

const DAY_MS = 86_400_000;
const RAW_TABLE = 'flow_records';
const RAW_COLUMNS = [
  'flow_start', 'flow_end', 'exporter', 'observation_domain', 'input_interface', 'output_interface', 'src_addr', 'dst_addr',
  'src_port', 'dst_port', 'protocol', 'tcp_flags', 'bytes', 'packets', 'sampling_rate',
] as const;

/** A rollup: its table, its bucket width, and the dimensions it keeps (the rest are summed away). */
export interface Rollup {
  table: string;
  bucketMs: number;
  ports: boolean;
  interfaces: boolean;
}

/** From finest to coarsest; the migration 20261126000000 creates them. */
export const ROLLUPS: readonly Rollup[] = [
  { table: 'flow_rollup_1m', bucketMs: 60_000, ports: true, interfaces: true },
  { table: 'flow_rollup_5m', bucketMs: 300_000, ports: false, interfaces: true },
  { table: 'flow_rollup_1h', bucketMs: 3_600_000, ports: false, interfaces: false },
];

export const FLOW_TABLES = [RAW_TABLE, ...ROLLUPS.map((r) => r.table)];

/** Days each table keeps (the service.flows.retention.* settings). */
export type FlowRetention = Record<string, number>;

const partitionName = (table: string, day: number) => `${table}_p${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`;

function rollupKeys(rollup: Rollup): string[] {
  return ['bucket', 'exporter', ...(rollup.interfaces ? ['input_interface', 'output_interface'] : []), 'src_addr', 'dst_addr', 'protocol', ...(rollup.ports ? ['src_port', 'dst_port'] : [])];
}

const KEY_TYPES: Record<string, string> = {
  bucket: 'timestamptz', exporter: 'inet', input_interface: 'bigint', output_interface: 'bigint', src_addr: 'inet', dst_addr: 'inet',
  protocol: 'smallint', src_port: 'integer', dst_port: 'integer',
};

export class FlowStore {
  /** Partitions known to exist (created by this process or found present). */
  private readonly partitions = new Set<string>();

  constructor(private readonly pool: pg.Pool) {}

  /** Writes one batch: raw rows by COPY, rollups by upsert, all in one transaction. */
  async write(flows: FlowRecord[]): Promise<void> {
    if (flows.length === 0) return;
    const days = new Set(flows.map((f) => Math.floor(f.start / DAY_MS) * DAY_MS));
    const client = await this.pool.connect();
    let broken = false;
    try {
      for (const table of FLOW_TABLES) for (const day of days) await this.ensurePartition(client, table, day);
      await client.query('BEGIN');
      await pipeline(Readable.from(copyLines(flows)), client.query(copyFrom(`COPY ${RAW_TABLE} (${RAW_COLUMNS.join(', ')}) FROM STDIN`)));
      for (const rollup of ROLLUPS) await this.addToRollup(client, rollup, flows);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async addToRollup(client: pg.PoolClient, rollup: Rollup, flows: FlowRecord[]): Promise<void> {
    const keys = rollupKeys(rollup);
    const rows = new Map<string, { key: unknown[]; bytes: number; packets: number; flows: number }>();
    for (const flow of flows) {
      const bucket = new Date(Math.floor(flow.start / rollup.bucketMs) * rollup.bucketMs).toISOString();
      const key = keys.map((k) => (k === 'bucket' ? bucket : keyValue(flow, k)));
      const id = key.join('|');
      const row = rows.get(id) ?? { key, bytes: 0, packets: 0, flows: 0 };
      row.bytes += Math.round(flow.bytes * flow.samplingRate);
      row.packets += Math.round(flow.packets * flow.samplingRate);
      row.flows += 1;
      rows.set(id, row);
    }
    const values = [...rows.values()];
    const columns = keys.map((k, i) => values.map((v) => v.key[i]));
    const unnest = keys.map((k, i) => `$${i + 1}::${KEY_TYPES[k]}[]`).join(', ');
    const n = keys.length;
    await client.query(
      `INSERT INTO ${rollup.table} (${keys.join(', ')}, bytes, packets, flows)
       SELECT * FROM unnest(${unnest}, $${n + 1}::bigint[], $${n + 2}::bigint[], $${n + 3}::bigint[])
       ON CONFLICT (${keys.join(', ')}) DO UPDATE SET
         bytes = ${rollup.table}.bytes + excluded.bytes,
         packets = ${rollup.table}.packets + excluded.packets,
         flows = ${rollup.table}.flows + excluded.flows`,
      [...columns, values.map((v) => v.bytes), values.map((v) => v.packets), values.map((v) => v.flows)],
    );
  }

  private async ensurePartition(client: pg.PoolClient, table: string, day: number): Promise<void> {
    const name = partitionName(table, day);
    if (this.partitions.has(name)) return;
    const from = new Date(day).toISOString();
    const to = new Date(day + DAY_MS).toISOString();
    // IF NOT EXISTS: another collector may have made it; names and bounds come from numbers only.
    await client.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}')`).catch((error: { code?: string }) => {
      // Two collectors creating the same partition at once: the loser sees a duplicate.
      if (error.code !== '42P07' && error.code !== '23505') throw error;
    });
    this.partitions.add(name);
  }

  /**
   * Adds what a collector counted since its last call to each exporter's row (several collectors
   * add up), and records the interface names exporters announced.
   */
  async recordExporters(deltas: ExporterCounters[], names: InterfaceName[]): Promise<void> {
    if (deltas.length > 0) {
      await this.pool.query(
        `INSERT INTO flow_exporters AS e (address, protocol, first_datagram_at, last_datagram_at, datagrams, flows, decode_errors, missing_templates, templates_refused)
         SELECT address, protocol, at, at, datagrams, flows, errors, missing, refused
           FROM unnest($1::inet[], $2::text[], $3::timestamptz[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
             AS u(address, protocol, at, datagrams, flows, errors, missing, refused)
         ON CONFLICT (address) DO UPDATE SET
           protocol = coalesce(excluded.protocol, e.protocol),
           last_datagram_at = greatest(e.last_datagram_at, excluded.last_datagram_at),
           datagrams = e.datagrams + excluded.datagrams,
           flows = e.flows + excluded.flows,
           decode_errors = e.decode_errors + excluded.decode_errors,
           missing_templates = e.missing_templates + excluded.missing_templates,
           templates_refused = e.templates_refused + excluded.templates_refused`,
        [
          deltas.map((d) => d.address), deltas.map((d) => d.protocol ?? null), deltas.map((d) => new Date(d.lastDatagramAt).toISOString()),
          deltas.map((d) => d.datagrams), deltas.map((d) => d.flows), deltas.map((d) => d.decodeErrors), deltas.map((d) => d.missingTemplates), deltas.map((d) => d.templatesRefused),
        ],
      );
    }
    if (names.length > 0) {
      // Names of an exporter not (yet) counted are left for a later announcement.
      await this.pool.query(
        `INSERT INTO flow_exporter_interfaces (exporter, if_index, name, updated_at)
         SELECT u.exporter, u.if_index, left(u.name, 256), now()
           FROM unnest($1::inet[], $2::bigint[], $3::text[]) AS u(exporter, if_index, name)
           JOIN flow_exporters e ON e.address = u.exporter
         ON CONFLICT (exporter, if_index) DO UPDATE SET name = excluded.name, updated_at = now()`,
        [names.map((n) => n.exporter), names.map((n) => n.ifIndex), names.map((n) => n.name.replace(/\0/g, ''))],
      );
    }
  }

  /** Drops the partitions whose whole day is older than the table's retention; returns their names. */
  async dropExpired(retentionDays: FlowRetention, now: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ parent: string; child: string }>(
      `SELECT parent.relname AS parent, child.relname AS child
         FROM pg_inherits JOIN pg_class parent ON parent.oid = inhparent JOIN pg_class child ON child.oid = inhrelid
        WHERE parent.relname = ANY($1)`,
      [FLOW_TABLES],
    );
    const dropped: string[] = [];
    for (const { parent, child } of rows) {
      const match = /_p(\d{4})(\d{2})(\d{2})$/.exec(child);
      const days = retentionDays[parent];
      if (!match || days === undefined) continue;
      const dayEnd = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) + DAY_MS;
      if (dayEnd > now - days * DAY_MS) continue;
      await this.pool.query(`DROP TABLE IF EXISTS ${child}`);
      this.partitions.delete(child);
      dropped.push(child);
    }
    return dropped.sort();
  }
}

function keyValue(flow: FlowRecord, column: string): unknown {
  switch (column) {
    case 'exporter': return flow.exporter;
    case 'input_interface': return flow.inputInterface;
    case 'output_interface': return flow.outputInterface;
    case 'src_addr': return flow.srcAddr;
    case 'dst_addr': return flow.dstAddr;
    case 'protocol': return flow.protocol;
    case 'src_port': return flow.srcPort;
    case 'dst_port': return flow.dstPort;
    default: throw new Error(`no rollup column ${column}`);
  }
}

/** COPY text rows (tab-separated; every value is a number, an address or a timestamp), in chunks. */
function* copyLines(flows: FlowRecord[]): Generator<string> {
  const CHUNK = 1000;
  for (let i = 0; i < flows.length; i += CHUNK) {
    let text = '';
    for (const f of flows.slice(i, i + CHUNK)) {
      text += `${new Date(f.start).toISOString()}\t${new Date(f.end).toISOString()}\t${f.exporter}\t${f.observationDomain}\t${f.inputInterface}\t${f.outputInterface}\t${f.srcAddr}\t${f.dstAddr}\t${f.srcPort}\t${f.dstPort}\t${f.protocol}\t${f.tcpFlags}\t${Math.round(f.bytes * f.samplingRate)}\t${Math.round(f.packets * f.samplingRate)}\t${f.samplingRate}\n`;
    }
    yield text;
  }
}
