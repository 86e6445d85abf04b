// GET /flow/top-talkers, /flow/conversations and /flow/exporters (docs/flows.md): the window and
// filters checked and turned into rollup segments, the ranking read in one statement, and every
// address resolved to the asset that holds it by the identity index (IP_ADDRESS), every port to
// the discovered service of that asset listening on it. A capped set: at most `limit` rows, the
// rest summed into one "other" row.
import net from 'node:net';
import { BadRequestError } from '../../platform/errors.js';
import { UUID_PATTERN } from '../../platform/uuid.js';
import type { AssetReads, AssetSummaryRef } from '../assets/asset-summary.js';
import type { IdentityLookup } from '../inventory/asset-identity.js';
import { assetsAtAddresses } from './address-assets.js';
import type { ConversationDirection, ConversationKey, ExporterRow, FlowAnalyticsStore, FlowFilter, FlowMetric, Ranking, TalkerDirection, Totals } from './flow-analytics-store.js';
import type { FlowGraphRepository } from './flow-graph-repository.js';
import { planWindow, type WindowPlan } from './flow-window.js';

export const DEFAULT_FLOW_LIMIT = 10;
export const MAX_FLOW_LIMIT = 100;
const HOUR_MS = 3_600_000;
const MAX_WINDOW_DAYS = 400;
// Assets of one site that the `site` filter matches flows against.
const MAX_SITE_ASSETS = 10_000;
const TRANSPORT = new Set([6, 17]);
// The bounds a window may reach (years 0001 to 9999, which both JavaScript and PostgreSQL hold).
const FIRST_MINUTE = Date.parse('0001-01-01T00:00:00Z');
const LAST_MINUTE = Date.parse('9999-12-31T23:59:00Z');

/** The query of both rankings, as the API's validator typed it. */
export interface FlowQuery {
  from?: string;
  to?: string;
  metric?: FlowMetric;
  limit?: number;
  exporter?: string;
  interface?: number;
  protocol?: number;
  port?: number;
  site?: string;
  asset?: string;
}

interface RankedSet<R> {
  window: { from: string; to: string };
  rollups: string[];
  metric: FlowMetric;
  limit: number;
  capped: boolean;
  total: Totals;
  data: R[];
}

interface Share extends Totals {
  share: number;
}

export type TalkerRow = Share & { rank: number | null; other: boolean; address: string | null; asset: AssetSummaryRef | null };

interface ConversationEnd {
  address: string;
  port: number | null;
  asset: AssetSummaryRef | null;
  service: string | null;
}

export type ConversationRow = Share & { rank: number | null; other: boolean; protocol: number | null; source: ConversationEnd | null; destination: ConversationEnd | null };

export interface ExporterView extends Omit<ExporterRow, 'assetId' | 'deviceAssetId' | 'firstDatagramAt' | 'lastDatagramAt'> {
  firstDatagramAt: string;
  lastDatagramAt: string;
  rates: { flowsPerSecond: number; packetsPerSecond: number; bitsPerSecond: number };
  asset: AssetSummaryRef | null;
  device: AssetSummaryRef | null;
}

/** The steps a series may take, by their ISO 8601 durations; each a whole number of every coarser rollup's buckets it may read. */
export const SERIES_STEPS = { PT1M: 60_000, PT5M: 300_000, PT15M: 900_000, PT1H: HOUR_MS, PT3H: 3 * HOUR_MS, PT6H: 6 * HOUR_MS, P1D: 24 * HOUR_MS } as const;
export type SeriesStep = keyof typeof SERIES_STEPS;
// Steps of a series when none is asked for (at most), and when one is.
const DEFAULT_POINTS = 120;
const MAX_POINTS = 1440;

interface ExporterSeries {
  exporter: string | null;
  other: boolean;
  total: Totals;
  points: (Totals & { at: string })[];
}

export interface ExporterSeriesSet {
  window: { from: string; to: string };
  step: SeriesStep;
  rollups: string[];
  metric: FlowMetric;
  limit: number;
  capped: boolean;
  data: ExporterSeries[];
}

const bad = (field: string, message: string) => new BadRequestError(message, [{ path: `query.${field}`, message }]);

export class FlowAnalyticsService {
  constructor(
    private readonly store: FlowAnalyticsStore,
    private readonly identities: IdentityLookup,
    private readonly assets: AssetReads,
    private readonly graph: FlowGraphRepository,
  ) {}

  async topTalkers(query: FlowQuery & { direction?: TalkerDirection }, now = Date.now()): Promise<RankedSet<TalkerRow>> {
    const { plan, filter, metric, limit } = await this.prepare(query, 'talkers', false, now);
    const ranking = await this.store.topTalkers(plan, filter, query.direction ?? 'source', metric, limit);
    const assets = await this.assetsOf(ranking.rows.map((r) => r.address));
    const rows: TalkerRow[] = ranking.rows.map((r, i) => ({ rank: i + 1, other: false, address: r.address, asset: assets.get(r.address) ?? null, ...share(r, ranking.total, metric) }));
    return this.answer(plan, metric, limit, ranking, rows, (rest) => ({ rank: null, other: true, address: null, asset: null, ...rest }));
  }

  async conversations(query: FlowQuery & { direction?: ConversationDirection; ports?: boolean }, now = Date.now()): Promise<RankedSet<ConversationRow>> {
    const ports = query.ports ?? false;
    const { plan, filter, metric, limit } = await this.prepare(query, 'conversations', ports, now);
    const ranking = await this.store.conversations(plan, filter, query.direction ?? 'source', ports, metric, limit);
    const assets = await this.assetsOf(ranking.rows.flatMap((r) => [r.sourceAddress, r.destinationAddress]));
    const services = ports ? await this.store.servicesOnPorts([...new Set([...assets.values()].map((a) => a.id))]) : new Map<string, string>();
    const end = (r: ConversationKey, address: string, port: number | null): ConversationEnd => {
      const asset = assets.get(address) ?? null;
      const service = asset && port !== null && TRANSPORT.has(r.protocol) ? services.get(`${asset.id}|${r.protocol}|${port}`) : undefined;
      return { address, port, asset, service: service ?? null };
    };
    const rows: ConversationRow[] = ranking.rows.map((r, i) => ({
      rank: i + 1,
      other: false,
      protocol: r.protocol,
      source: end(r, r.sourceAddress, r.sourcePort),
      destination: end(r, r.destinationAddress, r.destinationPort),
      ...share(r, ranking.total, metric),
    }));
    return this.answer(plan, metric, limit, ranking, rows, (rest) => ({ rank: null, other: true, protocol: null, source: null, destination: null, ...rest }));
  }

  async exporters(page: number, size: number, now = Date.now()): Promise<{ rows: ExporterView[]; total: number }> {
    const { rows, total } = await this.store.exporters(page, size);
    const rates = await this.store.exporterRates(rows.map((r) => r.address), now);
    const summaries = await this.summaries(rows.flatMap((r) => [r.assetId, r.deviceAssetId].filter((id): id is string => id !== null)));
    return {
      total,
      rows: rows.map(({ assetId, deviceAssetId, firstDatagramAt, lastDatagramAt, ...r }) => {
        const rate = rates.get(r.address) ?? { bytes: 0, packets: 0, flows: 0 };
        return {
          ...r,
          firstDatagramAt: firstDatagramAt.toISOString(),
          lastDatagramAt: lastDatagramAt.toISOString(),
          rates: { flowsPerSecond: rate.flows, packetsPerSecond: rate.packets, bitsPerSecond: rate.bytes * 8 },
          asset: (assetId && summaries.get(assetId)) || null,
          device: (deviceAssetId && summaries.get(deviceAssetId)) || null,
        };
      }),
    };
  }

  /**
   * The window (default: the hour before now), its rollups, the filters as addresses. Top talkers
   * read the endpoint rollups unless a filter needs what only conversations keep: a flow's peer
   * (asset, site), its ports or its interfaces.
   */
  private async prepare(query: FlowQuery, ranking: 'talkers' | 'conversations', ports: boolean, now: number): Promise<{ plan: WindowPlan; filter: FlowFilter; metric: FlowMetric; limit: number }> {
    const { from, to } = windowOf(query, now);
    const filter: FlowFilter = { exporter: await this.exporterAddress(query.exporter), interface: query.interface, protocol: query.protocol, port: query.port };
    const endsIn: string[][] = [];
    if (query.asset !== undefined) endsIn.push(await this.store.addressesOf([query.asset]));
    if (query.site !== undefined) endsIn.push(await this.store.addressesOf(await this.graph.siteAssetIds(query.site, MAX_SITE_ASSETS)));
    if (endsIn.length) filter.endsIn = endsIn;
    const endpoints = ranking === 'talkers' && !ports && query.port === undefined && query.interface === undefined && endsIn.length === 0;
    const kind = endpoints ? 'endpoint' : 'conversation';
    const plan = planWindow(from, to, { kind, ports: ports || query.port !== undefined, interfaces: query.interface !== undefined });
    return { plan, filter, metric: query.metric ?? 'bytes', limit: Math.min(query.limit ?? DEFAULT_FLOW_LIMIT, MAX_FLOW_LIMIT) };
  }

  /**
   * Each exporter's traffic per step over the window (default: the hour before now), the `limit`
   * busiest apart and the rest as one series. The step (default: the shortest of SERIES_STEPS that
   * gives at most DEFAULT_POINTS steps) reads the coarsest rollups whose buckets fit in it.
   */
  async series(query: FlowQuery & { step?: SeriesStep }, now = Date.now()): Promise<ExporterSeriesSet> {
    const { from, to } = windowOf(query, now);
    const span = to - from;
    const step = query.step ?? (Object.keys(SERIES_STEPS) as SeriesStep[]).find((s) => span / SERIES_STEPS[s] <= DEFAULT_POINTS) ?? 'P1D';
    const stepMs = SERIES_STEPS[step];
    if (span / stepMs > MAX_POINTS) throw bad('step', `A series has at most ${MAX_POINTS} steps: choose a longer step or a shorter window.`);
    const plan = planWindow(from, to, { kind: 'endpoint', ports: false, interfaces: false, maxBucketMs: stepMs });
    const metric = query.metric ?? 'bytes';
    const limit = Math.min(query.limit ?? DEFAULT_FLOW_LIMIT, MAX_FLOW_LIMIT);
    const { points, exporters } = await this.store.series(plan, { exporter: await this.exporterAddress(query.exporter) }, stepMs, metric, limit);
    const series = new Map<string | null, ExporterSeries>();
    for (const { exporter, at, ...totals } of points) {
      const one = series.get(exporter) ?? { exporter, other: exporter === null, total: { bytes: 0, packets: 0, flows: 0 }, points: [] };
      for (const key of ['bytes', 'packets', 'flows'] as const) one.total[key] += totals[key];
      one.points.push({ at: at.toISOString(), ...totals });
      series.set(exporter, one);
    }
    return {
      window: { from: new Date(plan.from).toISOString(), to: new Date(plan.to).toISOString() },
      step,
      rollups: [...new Set(plan.segments.map((s) => s.rollup.table))],
      metric,
      limit,
      capped: exporters > limit,
      data: [...series.values()],
    };
  }

  /** `exporter` is the FLOW_EXPORTER asset's id or the exporter's address. */
  private async exporterAddress(exporter: string | undefined): Promise<string | undefined> {
    if (exporter === undefined || net.isIP(exporter)) return exporter;
    if (!UUID_PATTERN.test(exporter)) throw bad('exporter', 'exporter is a FLOW_EXPORTER asset id or an IP address.');
    const address = await this.store.exporterAddressOf(exporter);
    if (address === undefined) throw bad('exporter', 'No flow exporter has this asset id: GET /api/v1/flow/exporters lists them.');
    return address;
  }

  private answer<R>(plan: WindowPlan, metric: FlowMetric, limit: number, ranking: Ranking<unknown>, rows: R[], other: (rest: Share) => R): RankedSet<R> {
    const capped = ranking.groups > rows.length;
    const rest = {
      bytes: ranking.groupTotals.bytes - sum(rows as Totals[], 'bytes'),
      packets: ranking.groupTotals.packets - sum(rows as Totals[], 'packets'),
      flows: ranking.groupTotals.flows - sum(rows as Totals[], 'flows'),
    };
    return {
      window: { from: new Date(plan.from).toISOString(), to: new Date(plan.to).toISOString() },
      rollups: [...new Set(plan.segments.map((s) => s.rollup.table))],
      metric,
      limit,
      capped,
      total: ranking.total,
      data: capped ? [...rows, other(share(rest, ranking.total, metric))] : rows,
    };
  }

  /** The asset that holds each address, by the identity index. */
  private async assetsOf(addresses: string[]): Promise<Map<string, AssetSummaryRef>> {
    const known = await assetsAtAddresses(this.identities, addresses);
    const idOf = new Map([...known].map(([address, hit]) => [address, hit.assetId]));
    const summaries = await this.summaries([...new Set(idOf.values())]);
    return new Map([...idOf].flatMap(([address, id]) => (summaries.has(id) ? [[address, summaries.get(id) as AssetSummaryRef] as const] : [])));
  }

  private async summaries(ids: string[]): Promise<Map<string, AssetSummaryRef>> {
    const found = await this.assets.summaries([...new Set(ids)]);
    return new Map(found.map(({ id, displayName, assetType, assetCategory }) => [id, { id, displayName, assetType, assetCategory }]));
  }
}

/** The window a query asks for (default: the hour before now), checked. */
function windowOf(query: Pick<FlowQuery, 'from' | 'to'>, now: number): { from: number; to: number } {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - HOUR_MS : Date.parse(query.from);
  if (to > LAST_MINUTE) throw bad('to', 'to must be before 9999-12-31T23:59:00Z.');
  if (from < FIRST_MINUTE) throw bad('from', 'from must be after 0001-01-01T00:00:00Z.');
  if (!(from < to)) throw bad('from', 'from must be before to.');
  if (to - from > MAX_WINDOW_DAYS * 24 * HOUR_MS) throw bad('from', `A window spans at most ${MAX_WINDOW_DAYS} days (the 1-hour rollup's default retention).`);
  return { from, to };
}

const sum = (rows: Totals[], field: keyof Totals) => rows.reduce((s, r) => s + r[field], 0);

/** The row's totals and its share of the window's traffic by the metric (as nfdump's percentages). */
function share(row: Totals, total: Totals, metric: FlowMetric): Share {
  return { bytes: row.bytes, packets: row.packets, flows: row.flows, share: total[metric] > 0 ? row[metric] / total[metric] : 0 };
}
