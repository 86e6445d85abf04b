// The read side of the flows (PostgreSQL): rankings of talkers and conversations over the rollups
// that planWindow chose (one UNION ALL of the segments, grouped and ranked in one statement that
// also returns the totals; top talkers from the endpoint rollups when no filter needs the peer,
// a port or an interface), the exporters and their rates, the conversations the flow-inventory
// job turns into COMMUNICATES_WITH edges, and that job's bookkeeping on flow_exporters.
import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import { RECORD_DROP_REASONS, type RecordDropReason } from './decode/flow-record.js';
import { DROP_COLUMNS } from './flow-store.js';
import type { WindowPlan } from './flow-window.js';

export type FlowMetric = 'bytes' | 'packets' | 'flows';
export type TalkerDirection = 'source' | 'destination' | 'both';
export type ConversationDirection = 'source' | 'both';

export interface FlowFilter {
  exporter?: string;
  interface?: number;
  protocol?: number;
  port?: number;
  /** Flows with an end in each of these sets of addresses (an asset's, a site's). */
  endsIn?: string[][];
}

export interface Totals {
  bytes: number;
  packets: number;
  flows: number;
}

export interface Ranking<K> {
  rows: (K & Totals)[];
  /** Every group the window holds, ranked or not, and their sums (`rows` are the first of them). */
  groups: number;
  groupTotals: Totals;
  /** The window's traffic, each flow once. */
  total: Totals;
}

export interface SeriesPoint extends Totals {
  /** null: the exporters beyond the limit, summed. */
  exporter: string | null;
  at: Date;
}

export interface TalkerKey {
  address: string;
}

export interface ConversationKey {
  sourceAddress: string;
  destinationAddress: string;
  protocol: number;
  sourcePort: number | null;
  destinationPort: number | null;
}

export interface ExporterRow {
  address: string;
  protocol: string | null;
  firstDatagramAt: Date;
  lastDatagramAt: Date;
  datagrams: number;
  flows: number;
  decodeErrors: number;
  missingTemplates: number;
  templatesRefused: number;
  recordsStored: number;
  recordsDropped: Record<RecordDropReason, number>;
  assetId: string | null;
  deviceAssetId: string | null;
  /** By ifIndex: the name the exporter announced (source flow), else the one discovery read from the device it is (source discovery). */
  interfaces: { ifIndex: number; name: string; source: 'flow' | 'discovery' }[];
}

/** A pair of addresses that talked both ways, `a` the client by the ports' votes. */
export interface CommunicationPair extends Totals {
  client: string;
  server: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

// Interface names listed per exporter; an exporter with more lists its lowest ifIndexes.
const INTERFACES_PER_EXPORTER = 1000;
const RATE_WINDOW_MS = 300_000;
const RANKING_WORK_MEM = '64MB';

const num = (value: unknown) => Number(value ?? 0);
const totalsOf = (row: Record<string, unknown>, prefix = ''): Totals => ({ bytes: num(row[`${prefix}bytes`]), packets: num(row[`${prefix}packets`]), flows: num(row[`${prefix}flows`]) });

/** The segments of a plan as one UNION ALL of rollup rows (`columns` of each), filtered; every value is a binding. */
function windowRows(plan: WindowPlan, filter: FlowFilter, columns: string[]): { sql: string; bindings: Knex.RawBinding[] } {
  const bindings: Knex.RawBinding[] = [];
  const parts = plan.segments.map(({ rollup, from, to }) => {
    const where: string[] = [];
    const add = (clause: string, ...values: Knex.RawBinding[]) => {
      where.push(clause);
      bindings.push(...values);
    };
    add('bucket >= CAST(? AS timestamptz) AND bucket < CAST(? AS timestamptz)', new Date(from).toISOString(), new Date(to).toISOString());
    if (filter.exporter !== undefined) add('exporter = CAST(? AS inet)', filter.exporter);
    if (filter.interface !== undefined) add('(input_interface = ? OR output_interface = ?)', filter.interface, filter.interface);
    if (filter.protocol !== undefined) add('protocol = ?', filter.protocol);
    if (filter.port !== undefined) add('(src_port = ? OR dst_port = ?)', filter.port, filter.port);
    for (const addresses of filter.endsIn ?? []) add('(src_addr = ANY(CAST(? AS inet[])) OR dst_addr = ANY(CAST(? AS inet[])))', addresses, addresses);
    return `SELECT ${columns.join(', ')} FROM ${rollup.table} WHERE ${where.join(' AND ')}`;
  });
  // A plan always has a segment: the service refuses a window shorter than a minute.
  return { sql: parts.join(' UNION ALL '), bindings };
}

export class FlowAnalyticsStore {
  constructor(private readonly db: Database) {}

  /**
   * One ranking: the window's rows (`columns` of the rollups, with bytes, packets and flows that
   * count each flow once), turned into keyed rows by `keyed` (a SELECT over `f`), grouped by
   * `keys`, ordered by the metric, the first `limit` returned. When each flow falls in exactly one
   * group (`flowOncePerGroup`), the window's totals are the groups' sums: the window's rows are then
   * read once, never held as a whole.
   */
  private async rank(plan: WindowPlan, filter: FlowFilter, columns: string[], keyed: string, keys: string[], metric: FlowMetric, limit: number, flowOncePerGroup: boolean): Promise<{ rows: Record<string, unknown>[]; groups: number; groupTotals: Totals; total: Totals }> {
    const window = windowRows(plan, filter, columns);
    const { rows } = await this.db.transaction(async (trx) => {
      // Room to group a day of rollup rows in memory rather than in temporary files.
      await trx.raw(`SET LOCAL work_mem = '${RANKING_WORK_MEM}'`);
      return trx.raw<{ rows: Record<string, unknown>[] }>(
        `WITH f AS (${window.sql}),
         g AS (SELECT ${keys.join(', ')}, sum(bytes) AS bytes, sum(packets) AS packets, sum(flows) AS flows FROM (${keyed}) AS k GROUP BY ${keys.join(', ')}),
         t AS (SELECT coalesce(sum(bytes), 0) AS t_bytes, coalesce(sum(packets), 0) AS t_packets, coalesce(sum(flows), 0) AS t_flows FROM ${flowOncePerGroup ? 'g' : 'f'}),
         r AS (SELECT g.*, count(*) OVER () AS groups, sum(bytes) OVER () AS g_bytes, sum(packets) OVER () AS g_packets, sum(flows) OVER () AS g_flows
                 FROM g ORDER BY ${metric} DESC, ${keys.join(', ')} LIMIT ?)
         SELECT r.*, t.* FROM t LEFT JOIN r ON true ORDER BY r.${metric} DESC, ${keys.map((k) => `r.${k}`).join(', ')}`,
        [...window.bindings, limit],
      );
    });
    const first = rows[0] ?? {};
    return {
      rows: rows.filter((r) => r.groups !== null),
      groups: num(first.groups),
      groupTotals: totalsOf(first, 'g_'),
      total: totalsOf(first, 't_'),
    };
  }

  /**
   * The addresses that sent (source), received (destination) or did either (both: each flow
   * counts at both ends). From endpoint rollups, an address's row holds what it sent (counted as
   * the window's traffic, each flow once) and what it received; an address that only received
   * is no source, and the other way round. From conversation rollups, each flow's ends.
   */
  async topTalkers(plan: WindowPlan, filter: FlowFilter, direction: TalkerDirection, metric: FlowMetric, limit: number): Promise<Ranking<TalkerKey>> {
    let columns: string[];
    let keyed: string;
    if (plan.segments[0]?.rollup.kind === 'endpoint') {
      columns = ['address', 'sent_bytes AS bytes', 'sent_packets AS packets', 'sent_flows AS flows', 'received_bytes', 'received_packets', 'received_flows'];
      keyed = {
        source: 'SELECT address, bytes, packets, flows FROM f WHERE flows > 0',
        destination: 'SELECT address, received_bytes AS bytes, received_packets AS packets, received_flows AS flows FROM f WHERE received_flows > 0',
        both: 'SELECT address, bytes + received_bytes AS bytes, packets + received_packets AS packets, flows + received_flows AS flows FROM f',
      }[direction];
    } else {
      columns = ['src_addr', 'dst_addr', 'bytes', 'packets', 'flows'];
      const ends = { source: ['src_addr'], destination: ['dst_addr'], both: ['src_addr', 'dst_addr'] }[direction];
      keyed = ends.map((end) => `SELECT ${end} AS address, bytes, packets, flows FROM f`).join(' UNION ALL ');
    }
    // Each flow has one source and one destination; with both, it counts in two groups.
    const ranking = await this.rank(plan, filter, columns, keyed, ['address'], metric, limit, direction !== 'both');
    return { ...ranking, rows: ranking.rows.map((r) => ({ address: String(r.address), ...totalsOf(r) })) };
  }

  /**
   * Conversations: source → destination as exported (source), or the two directions of a pair in
   * one row with its ends in address order (both); by ports too when `ports`.
   */
  async conversations(plan: WindowPlan, filter: FlowFilter, direction: ConversationDirection, ports: boolean, metric: FlowMetric, limit: number): Promise<Ranking<ConversationKey>> {
    const columns = ['src_addr', 'dst_addr', 'protocol', ...(ports ? ['src_port', 'dst_port'] : []), 'bytes', 'packets', 'flows'];
    const inOrder = 'src_addr <= dst_addr';
    const keyed = direction === 'source'
      ? `SELECT src_addr AS a, dst_addr AS b, protocol${ports ? ', src_port AS a_port, dst_port AS b_port' : ''}, bytes, packets, flows FROM f`
      : `SELECT least(src_addr, dst_addr) AS a, greatest(src_addr, dst_addr) AS b, protocol${ports ? `, CASE WHEN ${inOrder} THEN src_port ELSE dst_port END AS a_port, CASE WHEN ${inOrder} THEN dst_port ELSE src_port END AS b_port` : ''}, bytes, packets, flows FROM f`;
    const ranking = await this.rank(plan, filter, columns, keyed, ['a', 'b', 'protocol', ...(ports ? ['a_port', 'b_port'] : [])], metric, limit, true);
    return {
      ...ranking,
      rows: ranking.rows.map((r) => ({
        sourceAddress: String(r.a),
        destinationAddress: String(r.b),
        protocol: num(r.protocol),
        sourcePort: ports ? num(r.a_port) : null,
        destinationPort: ports ? num(r.b_port) : null,
        ...totalsOf(r),
      })),
    };
  }

  /**
   * Each exporter's traffic per step of the window (what its flows' sources sent, from the
   * endpoint rollups: each flow once), the `limit` exporters with the most of the metric apart and
   * the rest summed into one series (exporter null). Steps without traffic are left out.
   */
  async series(plan: WindowPlan, filter: FlowFilter, stepMs: number, metric: FlowMetric, limit: number): Promise<{ points: SeriesPoint[]; exporters: number }> {
    const window = windowRows(plan, filter, ['bucket', 'exporter', 'sent_bytes AS bytes', 'sent_packets AS packets', 'sent_flows AS flows']);
    const { rows } = await this.db.raw<{ rows: Record<string, unknown>[] }>(
      `WITH f AS (${window.sql}),
       s AS (SELECT exporter, date_bin(CAST(? AS interval), bucket, CAST('2000-01-01T00:00:00Z' AS timestamptz)) AS at,
                    sum(bytes) AS bytes, sum(packets) AS packets, sum(flows) AS flows
               FROM f GROUP BY 1, 2),
       e AS (SELECT exporter, row_number() OVER (ORDER BY sum(${metric}) DESC, exporter) AS rank, count(*) OVER () AS exporters FROM s GROUP BY exporter)
       SELECT CASE WHEN e.rank <= ? THEN host(s.exporter) END AS exporter, min(e.rank) AS rank, max(e.exporters) AS exporters, s.at,
              sum(s.bytes) AS bytes, sum(s.packets) AS packets, sum(s.flows) AS flows
         FROM s JOIN e USING (exporter)
        GROUP BY 1, s.at ORDER BY 2, s.at`,
      [...window.bindings, `${stepMs / 1000} seconds`, limit],
    );
    return {
      exporters: num(rows[0]?.exporters),
      points: rows.map((r) => ({ exporter: r.exporter === null ? null : String(r.exporter), at: new Date(r.at as string), ...totalsOf(r) })),
    };
  }

  /** The addresses an asset holds by the identity index (flows are matched on them). */
  async addressesOf(assetIds: string[]): Promise<string[]> {
    if (assetIds.length === 0) return [];
    const { rows } = await this.db.raw<{ rows: { value: string }[] }>(
      `SELECT value FROM asset_identifiers WHERE rule = 'IP_ADDRESS' AND asset_id = ANY(CAST(? AS uuid[])) ORDER BY value`,
      [assetIds],
    );
    return rows.map((r) => r.value);
  }

  /** The address of the exporter whose FLOW_EXPORTER asset this is. */
  async exporterAddressOf(assetId: string): Promise<string | undefined> {
    const { rows } = await this.db.raw<{ rows: { address: string }[] }>('SELECT host(address) AS address FROM flow_exporters WHERE asset_id = ?', [assetId]);
    return rows[0]?.address;
  }

  /** The discovered services of these assets that listen on a port: `${assetId}|${protocol}|${port}` → name. */
  async servicesOnPorts(assetIds: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (assetIds.length === 0) return found;
    const { rows } = await this.db.raw<{ rows: { assetId: string; protocol: string; port: number; name: string }[] }>(
      `SELECT s.asset_id AS "assetId", lower(p ->> 'protocol') AS protocol, CAST(p ->> 'port' AS integer) AS port, coalesce(s.display_name, s.service_name) AS name
         FROM discovered_services s, jsonb_array_elements(s.listen_ports) AS p
        WHERE s.asset_id = ANY(CAST(? AS uuid[])) AND jsonb_typeof(p -> 'port') = 'number'
        ORDER BY s.service_name`,
      [assetIds],
    );
    for (const r of rows) {
      const key = `${r.assetId}|${r.protocol.startsWith('udp') ? 17 : 6}|${r.port}`;
      if (!found.has(key)) found.set(key, r.name);
    }
    return found;
  }

  /** A page of exporters, most recently heard first, with their interface names. */
  async exporters(page: number, size: number): Promise<{ rows: ExporterRow[]; total: number }> {
    const { rows } = await this.db.raw<{ rows: (ExporterRow & { total: string })[] }>(
      `SELECT host(e.address) AS address, e.protocol, e.first_datagram_at AS "firstDatagramAt", e.last_datagram_at AS "lastDatagramAt",
              e.datagrams, e.flows, e.decode_errors AS "decodeErrors", e.missing_templates AS "missingTemplates", e.templates_refused AS "templatesRefused",
              e.records_stored AS "recordsStored",
              json_build_object(${RECORD_DROP_REASONS.map((r) => `'${r}', e.${DROP_COLUMNS[r]}`).join(', ')}) AS "recordsDropped",
              e.asset_id AS "assetId", e.device_asset_id AS "deviceAssetId",
              coalesce((SELECT json_agg(json_build_object('ifIndex', i.if_index, 'name', i.name, 'source', i.source) ORDER BY i.if_index)
                          FROM (SELECT DISTINCT ON (if_index) if_index, name, source
                                  FROM (SELECT if_index, name, 'flow' AS source, 0 AS preference FROM flow_exporter_interfaces WHERE exporter = e.address
                                        UNION ALL
                                        SELECT if_index, name, 'discovery', 1 FROM network_interfaces WHERE asset_id = e.device_asset_id AND if_index IS NOT NULL) AS named
                                 ORDER BY if_index, preference LIMIT ?) AS i), '[]') AS interfaces,
              count(*) OVER () AS total
         FROM flow_exporters e ORDER BY e.last_datagram_at DESC, e.address LIMIT ? OFFSET ?`,
      [INTERFACES_PER_EXPORTER, size, page * size],
    );
    const total = rows.length ? num(rows[0]?.total) : await this.countExporters();
    return {
      rows: rows.map(({ total: _total, ...r }) => ({
        ...r, datagrams: num(r.datagrams), flows: num(r.flows), decodeErrors: num(r.decodeErrors), missingTemplates: num(r.missingTemplates), templatesRefused: num(r.templatesRefused),
        recordsStored: num(r.recordsStored), recordsDropped: Object.fromEntries(RECORD_DROP_REASONS.map((reason) => [reason, num(r.recordsDropped[reason])])) as Record<RecordDropReason, number>,
        interfaces: r.interfaces.map((i) => ({ ifIndex: num(i.ifIndex), name: i.name, source: i.source })),
      })),
      total,
    };
  }

  private async countExporters(): Promise<number> {
    const { rows } = await this.db.raw<{ rows: { n: string }[] }>('SELECT count(*) AS n FROM flow_exporters');
    return num(rows[0]?.n);
  }

  /** Per-second rates of each exporter over the five whole minutes before `now` (1-minute rollup). */
  async exporterRates(addresses: string[], now: number): Promise<Map<string, Totals>> {
    const rates = new Map<string, Totals>();
    if (addresses.length === 0) return rates;
    const to = Math.floor(now / 60_000) * 60_000;
    const { rows } = await this.db.raw<{ rows: Record<string, unknown>[] }>(
      `SELECT host(exporter) AS address, sum(bytes) AS bytes, sum(packets) AS packets, sum(flows) AS flows FROM flow_rollup_1m
        WHERE bucket >= CAST(? AS timestamptz) AND bucket < CAST(? AS timestamptz) AND exporter = ANY(CAST(? AS inet[])) GROUP BY exporter`,
      [new Date(to - RATE_WINDOW_MS).toISOString(), new Date(to).toISOString(), addresses],
    );
    const seconds = RATE_WINDOW_MS / 1000;
    for (const r of rows) {
      const t = totalsOf(r);
      rates.set(String(r.address), { bytes: t.bytes / seconds, packets: t.packets / seconds, flows: t.flows / seconds });
    }
    return rates;
  }

  /** Exporters whose asset was never loaded, or not since `before` while they kept sending. */
  async exportersToSync(before: Date, limit: number): Promise<{ address: string; protocol: string | null; lastDatagramAt: Date }[]> {
    const { rows } = await this.db.raw<{ rows: { address: string; protocol: string | null; lastDatagramAt: Date }[] }>(
      `SELECT host(address) AS address, protocol, last_datagram_at AS "lastDatagramAt" FROM flow_exporters
        WHERE asset_synced_at IS NULL OR (asset_synced_at < ? AND last_datagram_at > asset_synced_at)
        ORDER BY asset_synced_at NULLS FIRST, address LIMIT ?`,
      [before, limit],
    );
    return rows;
  }

  async setExporterAssets(rows: { address: string; assetId: string; deviceAssetId: string | null }[], at: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.db.raw(
      `UPDATE flow_exporters e SET asset_id = u.asset_id, device_asset_id = u.device_asset_id, asset_synced_at = ?
         FROM unnest(CAST(? AS inet[]), CAST(? AS uuid[]), CAST(? AS uuid[])) AS u(address, asset_id, device_asset_id)
        WHERE e.address = u.address`,
      [at, rows.map((r) => r.address), rows.map((r) => r.assetId), rows.map((r) => r.deviceAssetId) as string[]],
    );
  }

  /**
   * Pairs of addresses that sent to each other in [from, to) (1-minute rollup), the most bytes
   * first, at most `limit`. The client is the end that talked to the other's lower port, by flows
   * (a tie: the lower address).
   */
  async communicationPairs(from: Date, to: Date, limit: number): Promise<CommunicationPair[]> {
    const { rows } = await this.db.raw<{ rows: Record<string, unknown>[] }>(
      `WITH p AS (
         SELECT least(src_addr, dst_addr) AS a, greatest(src_addr, dst_addr) AS b,
                sum(bytes) AS bytes, sum(packets) AS packets, sum(flows) AS flows, min(bucket) AS first_bucket, max(bucket) AS last_bucket,
                bool_or(src_addr < dst_addr) AS a_sent, bool_or(src_addr > dst_addr) AS b_sent,
                coalesce(sum(flows) FILTER (WHERE (src_addr < dst_addr AND dst_port < src_port) OR (src_addr > dst_addr AND src_port < dst_port)), 0) AS a_client,
                coalesce(sum(flows) FILTER (WHERE (src_addr < dst_addr AND src_port < dst_port) OR (src_addr > dst_addr AND dst_port < src_port)), 0) AS b_client
           FROM flow_rollup_1m
          WHERE bucket >= ? AND bucket < ? AND src_addr <> dst_addr
          GROUP BY 1, 2)
       SELECT host(a) AS a, host(b) AS b, bytes, packets, flows, first_bucket, last_bucket, a_client >= b_client AS a_is_client
         FROM p WHERE a_sent AND b_sent ORDER BY bytes DESC, a, b LIMIT ?`,
      [from, to, limit],
    );
    return rows.map((r) => ({
      client: String(r.a_is_client ? r.a : r.b),
      server: String(r.a_is_client ? r.b : r.a),
      ...totalsOf(r),
      firstSeenAt: r.first_bucket as Date,
      // The last minute that held a flow of the pair, to its end.
      lastSeenAt: new Date((r.last_bucket as Date).getTime() + 60_000),
    }));
  }
}
