// PostgreSQL side of the flows: raw records written by binary COPY in batches, the rollups added
// into from the same batch in the same transaction (so a batch counts once or not at all), day
// partitions created as flows arrive, and expired partitions dropped whole.
//
// A batch is encoded once (binary COPY) and copied twice: into flow_records, and into flow_batch,
// a temporary table of the session emptied at commit (no WAL, no index). One statement then adds
// flow_batch into every rollup, each aggregated by PostgreSQL with GROUP BY rather than in
// JavaScript. The 1-minute conversation rollup keeps ports, so nearly every flow is a key of its
// own: it is appended to (a key may have a row per batch; readers sum) instead of upserted, which
// spares a unique index as wide as the row. The other rollups add into their rows (ON CONFLICT DO
// UPDATE), on pages with room so that the updates stay on the page (HOT: no index entry each).
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { BoundedMapLimits } from './bounded-map.js';
import type { ExporterCounters } from './decode/flow-decoder.js';
import { RECORD_DROP_REASONS, snakeCase, type FlowRecord, type InterfaceName, type RecordDropReason } from './decode/flow-record.js';
import { FlowCopyEncoder } from './flow-copy-encoder.js';

const DAY_MS = 86_400_000;
const RAW_TABLE = 'flow_records';
const BATCH_TABLE = 'flow_batch';
const RAW_COLUMNS = [
  'flow_start', 'flow_end', 'exporter', 'observation_domain', 'input_interface', 'output_interface', 'src_addr', 'dst_addr',
  'src_port', 'dst_port', 'protocol', 'tcp_flags', 'bytes', 'packets', 'sampling_rate',
] as const;
// Free space left on the pages of upserted rollups, for updates on the same page.
const UPSERTED_FILLFACTOR = 70;
const BATCH_WORK_MEM = '64MB';

/** Which retention setting (service.flows.retention.*) a table follows. */
export type RetentionClass = 'raw' | 'minute' | 'fiveMinute' | 'hour';

/** Days each retention class keeps; and the days an exporter's row, and an interface name, outlive their last sighting. */
export type FlowRetention = Record<RetentionClass, number> & { exporterDays: number; interfaceNameDays: number };

/**
 * A rollup: its table, its bucket width, and the dimensions it keeps (the rest are summed away).
 * A conversation rollup keeps both addresses of each flow; an endpoint rollup keeps one address
 * per row with what it sent and what it received, and no peer, port or interface.
 */
export interface Rollup {
  table: string;
  kind: 'conversation' | 'endpoint';
  bucketMs: number;
  ports: boolean;
  interfaces: boolean;
  retention: RetentionClass;
  /** Appended to per batch (no unique key) rather than upserted. */
  appended: boolean;
  /** The finer rollup of the same kind whose batch aggregates this one sums further (else the batch itself). */
  from?: string;
}

/** From finest to coarsest in each kind; the migrations 20261126000000 and 20261128000000 create them. */
export const ROLLUPS: readonly Rollup[] = [
  { table: 'flow_rollup_1m', kind: 'conversation', bucketMs: 60_000, ports: true, interfaces: true, retention: 'minute', appended: true },
  { table: 'flow_rollup_5m', kind: 'conversation', bucketMs: 300_000, ports: false, interfaces: true, retention: 'fiveMinute', appended: false },
  { table: 'flow_rollup_1h', kind: 'conversation', bucketMs: 3_600_000, ports: false, interfaces: false, retention: 'hour', appended: false, from: 'flow_rollup_5m' },
  { table: 'flow_endpoint_1m', kind: 'endpoint', bucketMs: 60_000, ports: false, interfaces: false, retention: 'minute', appended: false },
  { table: 'flow_endpoint_5m', kind: 'endpoint', bucketMs: 300_000, ports: false, interfaces: false, retention: 'fiveMinute', appended: false, from: 'flow_endpoint_1m' },
  { table: 'flow_endpoint_1h', kind: 'endpoint', bucketMs: 3_600_000, ports: false, interfaces: false, retention: 'hour', appended: false, from: 'flow_endpoint_5m' },
];

export const FLOW_TABLES = [RAW_TABLE, ...ROLLUPS.map((r) => r.table)];
/** The flow_exporters column counting each reason's drops (migration 20261203120000). */
export const DROP_COLUMNS = Object.fromEntries(RECORD_DROP_REASONS.map((r) => [r, `records_dropped_${snakeCase(r)}`])) as Record<RecordDropReason, string>;
// The counters of flow_exporters that each collector adds to, in the order recordExporters passes them.
const COUNT_COLUMNS = ['datagrams', 'flows', 'decode_errors', 'missing_templates', 'templates_refused', 'records_stored', ...RECORD_DROP_REASONS.map((r) => DROP_COLUMNS[r])];
const RETENTION_OF = new Map<string, RetentionClass>([[RAW_TABLE, 'raw'], ...ROLLUPS.map((r) => [r.table, r.retention] as const)]);

const partitionName = (table: string, day: number) => `${table}_p${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** The key columns of a rollup, after its bucket. */
export function rollupKeys(rollup: Rollup): string[] {
  if (rollup.kind === 'endpoint') return ['exporter', 'address', 'protocol'];
  return ['exporter', ...(rollup.interfaces ? ['input_interface', 'output_interface'] : []), 'src_addr', 'dst_addr', 'protocol', ...(rollup.ports ? ['src_port', 'dst_port'] : [])];
}

const CONVERSATION_TOTALS = ['bytes', 'packets', 'flows'];
const ENDPOINT_TOTALS = ['sent_bytes', 'sent_packets', 'sent_flows', 'received_bytes', 'received_packets', 'received_flows'];
const totalsOf = (rollup: Rollup) => (rollup.kind === 'endpoint' ? ENDPOINT_TOTALS : CONVERSATION_TOTALS);

// Buckets counted from 2000-01-01 UTC, a whole number of hours after the Unix epoch: the same
// buckets as flooring epoch milliseconds.
const bucketOf = (rollup: Rollup, column: string) => `date_bin(CAST('${rollup.bucketMs / 1000} seconds' AS interval), ${column}, CAST('2000-01-01T00:00:00Z' AS timestamptz))`;
const aggregateName = (table: string) => `batch_${table}`;

/** The batch's rows of a rollup: from flow_batch, or summed further from a finer rollup's. */
function aggregate(rollup: Rollup): string {
  const keys = rollupKeys(rollup).join(', ');
  const totals = totalsOf(rollup);
  const sums = totals.map((t) => `sum(${t}) AS ${t}`).join(', ');
  if (rollup.from) return `SELECT ${bucketOf(rollup, 'bucket')} AS bucket, ${keys}, ${sums} FROM ${aggregateName(rollup.from)} GROUP BY 1, ${keys}`;
  if (rollup.kind === 'conversation') return `SELECT ${bucketOf(rollup, 'flow_start')} AS bucket, ${keys}, sum(bytes) AS bytes, sum(packets) AS packets, count(*) AS flows FROM ${BATCH_TABLE} GROUP BY 1, ${keys}`;
  // Each flow once as what its source sent, once as what its destination received.
  return `SELECT ${bucketOf(rollup, 'flow_start')} AS bucket, ${keys}, ${sums}
            FROM (SELECT flow_start, exporter, src_addr AS address, protocol, bytes AS sent_bytes, packets AS sent_packets, 1 AS sent_flows, 0 AS received_bytes, 0 AS received_packets, 0 AS received_flows FROM ${BATCH_TABLE}
                  UNION ALL
                  SELECT flow_start, exporter, dst_addr, protocol, 0, 0, 0, bytes, packets, 1 FROM ${BATCH_TABLE}) AS ends
           GROUP BY 1, ${keys}`;
}

/**
 * One statement that adds flow_batch into every rollup: each batch aggregate once (a CTE, summed
 * further for the coarser rollups that name it), each rollup's insert a data-modifying CTE.
 * Constant text: no value of a flow is in it.
 */
function rollupStatement(): string {
  const ctes = ROLLUPS.flatMap((rollup) => {
    const { table } = rollup;
    const keys = ['bucket', ...rollupKeys(rollup)].join(', ');
    const totals = totalsOf(rollup);
    const insert = `INSERT INTO ${table} (${keys}, ${totals.join(', ')}) SELECT ${keys}, ${totals.join(', ')} FROM ${aggregateName(table)}`;
    const upsert = rollup.appended ? '' : ` ON CONFLICT (${keys}) DO UPDATE SET ${totals.map((t) => `${t} = ${table}.${t} + excluded.${t}`).join(', ')}`;
    return [`${aggregateName(table)} AS (${aggregate(rollup)})`, `insert_${table} AS (${insert}${upsert})`];
  });
  return `WITH ${ctes.join(',\n')}\nSELECT 1`;
}

const ROLLUP_STATEMENT = rollupStatement();

/** Bounds on what the store keeps of exporters (their rows come from the network too). */
export interface FlowStoreLimits {
  /** The encoder's cache of address encodings. */
  addresses: BoundedMapLimits;
  /** Rows of flow_exporters; beyond, those that never had a flow stored go first, then the least recently heard. */
  maxExporters: number;
  /** Interface names kept per exporter; beyond, the least recently announced go. */
  maxInterfaceNames: number;
}

/** What one write of exporters' counts and names forgot to stay within the limits. */
export interface ExportersWritten {
  exportersRemoved: number;
  interfaceNamesRemoved: number;
}

export class FlowStore {
  /** Partitions known to exist (created by this process or found present). */
  private readonly partitions = new Set<string>();
  /** Connections whose session holds flow_batch. */
  private readonly withBatchTable = new WeakSet<pg.PoolClient>();
  readonly encoder: FlowCopyEncoder;

  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: FlowStoreLimits,
  ) {
    this.encoder = new FlowCopyEncoder(limits.addresses);
  }

  /** Writes one batch: raw rows and flow_batch by COPY, rollups from flow_batch, all in one transaction. */
  async write(flows: FlowRecord[]): Promise<void> {
    if (flows.length === 0) return;
    const days = new Set(flows.map((f) => Math.floor(f.start / DAY_MS) * DAY_MS));
    const rows = this.encoder.encode(flows);
    await this.inTransaction(
      async (client) => {
        // Room for the batch's hash aggregates in memory (the planner knows nothing of flow_batch).
        await client.query(`SET LOCAL work_mem = '${BATCH_WORK_MEM}'`);
        for (const table of [RAW_TABLE, BATCH_TABLE]) {
          await pipeline(Readable.from([rows]), client.query(copyFrom(`COPY ${table} (${RAW_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`)));
        }
        await client.query(ROLLUP_STATEMENT);
      },
      async (client) => {
        for (const table of FLOW_TABLES) for (const day of days) await this.ensurePartition(client, table, day);
        if (!this.withBatchTable.has(client)) {
          await client.query(`CREATE TEMPORARY TABLE IF NOT EXISTS ${BATCH_TABLE} (LIKE ${RAW_TABLE}) ON COMMIT DELETE ROWS`);
          this.withBatchTable.add(client);
        }
      },
    );
  }

  /**
   * Runs `work` inside BEGIN ... COMMIT on one connection of the pool, after `prepare` (outside the
   * transaction) on the same connection; a connection that cannot even roll back is discarded.
   */
  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>, prepare?: (client: pg.PoolClient) => Promise<void>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await prepare?.(client);
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async ensurePartition(client: pg.PoolClient, table: string, day: number): Promise<void> {
    const name = partitionName(table, day);
    if (this.partitions.has(name)) return;
    const from = new Date(day).toISOString();
    const to = new Date(day + DAY_MS).toISOString();
    const upserted = ROLLUPS.some((r) => r.table === table && !r.appended);
    // IF NOT EXISTS: another collector may have made it; names and bounds come from numbers only.
    await client.query(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}')${upserted ? ` WITH (fillfactor = ${UPSERTED_FILLFACTOR})` : ''}`).catch((error: { code?: string }) => {
      // Two collectors creating the same partition at once: the loser sees a duplicate.
      if (error.code !== '42P07' && error.code !== '23505') throw error;
    });
    this.partitions.add(name);
  }

  /**
   * Adds what a collector counted since its last call to each exporter's row (several collectors
   * add up), records the interface names exporters announced, and keeps both tables within their
   * limits.
   */
  async recordExporters(deltas: ExporterCounters[], names: InterfaceName[]): Promise<ExportersWritten> {
    const written: ExportersWritten = { exportersRemoved: 0, interfaceNamesRemoved: 0 };
    if (deltas.length > 0) {
      const { rows } = await this.pool.query<{ inserted: number }>(
        `WITH upserted AS (
           INSERT INTO flow_exporters AS e (address, protocol, first_datagram_at, last_datagram_at, ${COUNT_COLUMNS.join(', ')})
           SELECT address, protocol, at, at, ${COUNT_COLUMNS.join(', ')}
             FROM unnest($1::inet[], $2::text[], $3::timestamptz[], ${COUNT_COLUMNS.map((_, i) => `$${i + 4}::bigint[]`).join(', ')})
               AS u(address, protocol, at, ${COUNT_COLUMNS.join(', ')})
           ON CONFLICT (address) DO UPDATE SET
             protocol = coalesce(excluded.protocol, e.protocol),
             last_datagram_at = greatest(e.last_datagram_at, excluded.last_datagram_at),
             ${COUNT_COLUMNS.map((c) => `${c} = e.${c} + excluded.${c}`).join(',\n             ')}
           RETURNING xmax = 0 AS inserted)
         SELECT count(*) FILTER (WHERE inserted)::int AS inserted FROM upserted`,
        [
          deltas.map((d) => d.address), deltas.map((d) => d.protocol ?? null), deltas.map((d) => new Date(d.lastDatagramAt).toISOString()),
          deltas.map((d) => d.datagrams), deltas.map((d) => d.flows), deltas.map((d) => d.decodeErrors), deltas.map((d) => d.missingTemplates), deltas.map((d) => d.templatesRefused),
          deltas.map((d) => d.recordsStored), ...RECORD_DROP_REASONS.map((r) => deltas.map((d) => d.recordsDropped[r])),
        ],
      );
      // Only new rows can take the table past its limit: exporters that never had a flow stored go first.
      if ((rows[0]?.inserted ?? 0) > 0) {
        const removed = await this.pool.query(
          `DELETE FROM flow_exporters WHERE address IN (
             SELECT address FROM flow_exporters ORDER BY records_stored > 0, last_datagram_at, address
              LIMIT greatest(0, (SELECT count(*) FROM flow_exporters) - $1))`,
          [this.limits.maxExporters],
        );
        written.exportersRemoved = removed.rowCount ?? 0;
      }
    }
    if (names.length > 0) written.interfaceNamesRemoved = await this.recordInterfaceNames(names);
    return written;
  }

  /**
   * Records announced interface names and deletes, in the same transaction, those beyond each
   * exporter's limit: no reader ever sees an exporter over it. Returns how many were deleted.
   */
  private async recordInterfaceNames(names: InterfaceName[]): Promise<number> {
    return this.inTransaction(async (client) => {
      // Names of an exporter not (yet) counted are left for a later announcement. Stamped a
      // microsecond apart in the order announced, after every stamp already kept, so that the
      // names an exporter keeps at its limit are the ones it announced last.
      await client.query(
        `WITH base AS (SELECT greatest(now(), max(updated_at) + interval '1 microsecond') AS at FROM flow_exporter_interfaces WHERE exporter = ANY($1::inet[]))
         INSERT INTO flow_exporter_interfaces (exporter, if_index, name, updated_at)
         SELECT u.exporter, u.if_index, left(u.name, 256), base.at + u.n * interval '1 microsecond'
           FROM unnest($1::inet[], $2::bigint[], $3::text[]) WITH ORDINALITY AS u(exporter, if_index, name, n) CROSS JOIN base
          WHERE EXISTS (SELECT 1 FROM flow_exporters e WHERE e.address = u.exporter)
         ON CONFLICT (exporter, if_index) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`,
        [names.map((n) => n.exporter), names.map((n) => n.ifIndex), names.map((n) => n.name.replace(/\0/g, ''))],
      );
      const removed = await client.query(
        `DELETE FROM flow_exporter_interfaces i USING (
           SELECT exporter, if_index, row_number() OVER (PARTITION BY exporter ORDER BY updated_at DESC, if_index) AS n
             FROM flow_exporter_interfaces WHERE exporter = ANY($1::inet[])) AS ranked
          WHERE i.exporter = ranked.exporter AND i.if_index = ranked.if_index AND ranked.n > $2`,
        [[...new Set(names.map((n) => n.exporter))], this.limits.maxInterfaceNames],
      );
      return removed.rowCount ?? 0;
    });
  }

  /** Deletes exporters not heard from, and interface names not announced, since the given times; returns how many. */
  async expireExporters(heardBefore: Date, announcedBefore: Date): Promise<ExportersWritten> {
    const names = await this.pool.query('DELETE FROM flow_exporter_interfaces WHERE updated_at < $1', [announcedBefore]);
    const exporters = await this.pool.query('DELETE FROM flow_exporters WHERE last_datagram_at < $1', [heardBefore]);
    return { exportersRemoved: exporters.rowCount ?? 0, interfaceNamesRemoved: names.rowCount ?? 0 };
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
      const retention = RETENTION_OF.get(parent);
      if (!match || retention === undefined) continue;
      const days = retentionDays[retention];
      const dayEnd = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) + DAY_MS;
      if (dayEnd > now - days * DAY_MS) continue;
      await this.pool.query(`DROP TABLE IF EXISTS ${child}`);
      this.partitions.delete(child);
      dropped.push(child);
    }
    return dropped.sort();
  }
}
