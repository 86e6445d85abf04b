// Insight feeds (issue 13): the registry's feeds, each run on its store as one statement, with
// the assets its rows name resolved in one lookup (id, displayName, assetType, assetCategory).
// A capped, ranked set: at most `limit` rows (default 50, cap 500) and whether more were left out.
import { BadRequestError, NotFoundError } from '../../platform/errors.js';
import type { AssetReads, AssetSummaryRef } from '../assets/asset-summary.js';
import type { InsightGraphRepository } from './insight-graph-repository.js';
import { DEFAULT_INSIGHT_LIMIT, MAX_INSIGHT_LIMIT, type FeedParameter, type InsightFeed } from './insight-feeds.js';
import type { FeedRow, InsightStore } from './insight-store.js';

const HOUR_MS = 3_600_000;

export interface InsightRow {
  /** 1 for the first row. */
  rank: number;
  assets: AssetSummaryRef[];
  evidence: Record<string, unknown>;
}

export interface InsightResult {
  feed: string;
  limit: number;
  /** true when the feed had more rows than `limit`. */
  capped: boolean;
  rows: InsightRow[];
}

export class InsightService {
  private readonly byName: Map<string, InsightFeed>;

  constructor(
    private readonly feeds: InsightFeed[],
    private readonly graph: InsightGraphRepository,
    private readonly store: InsightStore,
    private readonly assets: AssetReads,
  ) {
    this.byName = new Map(feeds.map((f) => [f.name, f]));
    graph.require(feeds.filter((f) => f.store === 'neo4j').map((f) => f.statement));
    store.require(feeds.filter((f) => f.store === 'postgres').map((f) => f.statement));
    // Fixed inputs (the end-of-life catalogue) are read now: a malformed one stops the start.
    for (const feed of feeds) feed.inputs?.();
  }

  list(): Omit<InsightFeed, 'statement' | 'inputs'>[] {
    return this.feeds.map(({ name, title, description, store, parameters }) => ({ name, title, description, store, parameters }));
  }

  /** Runs a feed with the query the caller sent (already typed by the API's validator). */
  async run(name: string, query: Record<string, unknown>): Promise<InsightResult> {
    const feed = this.byName.get(name);
    if (!feed) throw new NotFoundError(`No insight feed "${name}": GET /api/v1/insights lists them.`);
    const foreign = Object.keys(query).filter((key) => key !== 'limit' && !feed.parameters.some((p) => p.name === key));
    if (foreign.length > 0) {
      throw new BadRequestError(`Feed ${name} takes ${feed.parameters.map((p) => p.name).concat('limit').join(', ')}.`, foreign.map((key) => ({ path: `query.${key}`, message: `not a parameter of feed ${name}` })));
    }
    const limit = Math.min(Number(query.limit ?? DEFAULT_INSIGHT_LIMIT), MAX_INSIGHT_LIMIT);
    const params = { ...feed.inputs?.(), ...Object.fromEntries(feed.parameters.map((p) => [p.name, valueOf(p, query[p.name])])), limit: limit + 1 };
    const found: FeedRow[] = feed.store === 'neo4j' ? await this.graph.run(feed.statement, params) : await this.store.run(feed.statement, params);
    const rows = found.slice(0, limit);
    const summaries = new Map((await this.assets.summaries([...new Set(rows.flatMap((r) => r.assetIds))]))
      .map(({ id, displayName, assetType, assetCategory }) => [id, { id, displayName, assetType, assetCategory }]));
    return {
      feed: name,
      limit,
      capped: found.length > limit,
      rows: rows.map((r, i) => ({
        rank: i + 1,
        // An asset named twice is listed once; one gone from the graph since is left out.
        assets: [...new Set(r.assetIds)].flatMap((id) => summaries.get(id) ?? []),
        evidence: r.evidence,
      })),
    };
  }
}

/** A parameter's value, or its default (for a date-time, that many hours before now). */
function valueOf(parameter: FeedParameter, sent: unknown): unknown {
  if (parameter.type === 'integer') return sent === undefined ? parameter.default : Number(sent);
  return new Date(sent === undefined ? Date.now() - parameter.default * HOUR_MS : String(sent)).toISOString();
}
