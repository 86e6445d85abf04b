// POST /graph/query: an analyst's read-only Cypher. A cheap check of the text first (nesting), then
// a place in the analysts' bulkhead, then Neo4j's own verdict on its plan and the run
// (ad-hoc-query-graph-repository.ts), all within the time-out and a margin, the audit write
// included. Every request, run or refused, goes to the audit trail with its caller and its text
// (never its results); a request whose audit cannot be written is answered 503 without results.
import { randomUUID } from 'node:crypto';
import neo4j from 'neo4j-driver';
import { withDeadline } from '../../platform/deadline.js';
import { StoreUnavailableError, TooManyRequestsError } from '../../platform/errors.js';
import type { CypherParams } from '../../platform/neo4j/neo4j-graph.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { QueryRefusedError, QueryTimedOutError, type AdHocQueryGraphRepository, type AdHocQueryResult } from './ad-hoc-query-graph-repository.js';
import type { AnalystBulkhead } from './analyst-bulkhead.js';
import { refusalOfText } from './cypher-admission.js';

export const DEFAULT_ROW_LIMIT = 1000;
export const MAX_ROW_LIMIT = 10_000;
/** What the endpoint may take beyond the query's time-out: the EXPLAIN, the answer, the audit write. */
export const ANSWER_MARGIN_MS = 2000;
// A query that waited this much of its time-out for a slot has too little left to run: 429.
const LEAST_RUN_FRACTION = 0.1;

/** A parameter value: a JSON scalar or a list of scalars (api.yaml allows nothing else). */
export type PlainValue = string | number | boolean | null | (string | number | boolean | null)[];

export interface GraphQueryRequest {
  query: string;
  parameters?: Record<string, PlainValue>;
  limit?: number;
}

export interface GraphQueryResponse extends AdHocQueryResult {
  limit: number;
}

/** JSON whole numbers go to Neo4j as integers (LIMIT $n needs one); the driver sends others as floats. */
function toCypher(value: PlainValue): unknown {
  if (Array.isArray(value)) return value.map((v) => toCypher(v));
  return typeof value === 'number' && Number.isSafeInteger(value) ? neo4j.int(value) : value;
}

function outcomeOf(error: unknown): string {
  if (error instanceof QueryRefusedError) return 'REFUSED';
  if (error instanceof QueryTimedOutError) return 'TIMED_OUT';
  if (error instanceof TooManyRequestsError) return 'REJECTED';
  return 'FAILED';
}

export class GraphQueryService {
  constructor(
    private readonly repository: AdHocQueryGraphRepository,
    private readonly bulkhead: AnalystBulkhead,
    private readonly audit: AuditLog,
    private readonly timeoutMs: number,
  ) {}

  async run(actor: Actor, { query, parameters = {}, limit = DEFAULT_ROW_LIMIT }: GraphQueryRequest): Promise<GraphQueryResponse> {
    const deadline = Date.now() + this.timeoutMs + ANSWER_MARGIN_MS;
    const queryId = randomUUID();
    const record = (outcome: string, details: Record<string, unknown> = {}) =>
      withDeadline(
        this.audit.record(actor, { action: 'graph.query', targetKind: 'GRAPH_QUERY', targetId: queryId, details: { query, parameterNames: Object.keys(parameters), limit, outcome, ...details } }),
        Math.max(deadline - Date.now(), 1),
        () => new StoreUnavailableError('PostgreSQL'),
      );

    const tooDeep = refusalOfText(query);
    if (tooDeep) {
      await record('REFUSED', { refusal: tooDeep.kind });
      throw new QueryRefusedError(tooDeep);
    }
    const params: CypherParams = Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, toCypher(v)]));
    let release: (() => void) | undefined;
    try {
      const retryAfterSeconds = this.timeoutMs / 1000;
      release = await this.bulkhead.acquire(`${actor.kind}:${actor.id ?? actor.name ?? ''}`, this.timeoutMs * (1 - LEAST_RUN_FRACTION), retryAfterSeconds);
      const timeoutMs = Math.max(1, deadline - ANSWER_MARGIN_MS - Date.now());
      const result = await this.repository.run(query, params, { limit, timeoutMs, timeoutSettingMs: this.timeoutMs, answerWithinMs: Math.max(1, deadline - Date.now()), queryId });
      await record('OK', { rows: result.rows.length, truncated: result.truncated });
      return { ...result, limit };
    } catch (error) {
      const refusal = error instanceof QueryRefusedError ? { refusal: error.refusal.kind } : {};
      if (!(error instanceof StoreUnavailableError && error.store === 'PostgreSQL')) await record(outcomeOf(error), refusal);
      throw error;
    } finally {
      release?.();
    }
  }
}
