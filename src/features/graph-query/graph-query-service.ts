// POST /graph/query: an analyst's read-only Cypher. Checked first (read-only-cypher.ts), then run
// in a READ transaction with a time-out and a row cap; every request, run or refused, goes to the
// audit trail with its caller and its text (never its results).
import { randomUUID } from 'node:crypto';
import neo4j from 'neo4j-driver';
import { BadRequestError } from '../../platform/errors.js';
import type { CypherParams } from '../../platform/neo4j/neo4j-graph.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { QueryTimedOutError, type AdHocQueryGraphRepository, type AdHocQueryResult } from './ad-hoc-query-graph-repository.js';
import { refusalOf } from './read-only-cypher.js';

export const DEFAULT_ROW_LIMIT = 1000;
export const MAX_ROW_LIMIT = 10_000;

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

export class GraphQueryService {
  constructor(
    private readonly repository: AdHocQueryGraphRepository,
    private readonly audit: AuditLog,
    private readonly timeoutMs: number,
  ) {}

  async run(actor: Actor, { query, parameters = {}, limit = DEFAULT_ROW_LIMIT }: GraphQueryRequest): Promise<GraphQueryResponse> {
    const queryId = randomUUID();
    const record = (outcome: string, details: Record<string, unknown> = {}) =>
      this.audit.record(actor, { action: 'graph.query', targetKind: 'GRAPH_QUERY', targetId: queryId, details: { query, parameterNames: Object.keys(parameters), limit, outcome, ...details } });

    const refusal = refusalOf(query);
    if (refusal) {
      await record('REFUSED', { refusal: refusal.kind });
      throw new BadRequestError(`The query was not run: ${refusal.reason}`, [{ path: 'body.query', message: refusal.kind }]);
    }
    const params: CypherParams = Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, toCypher(v)]));
    try {
      const result = await this.repository.run(query, params, { limit, timeoutMs: this.timeoutMs, metadata: { graphQueryId: queryId } });
      await record('OK', { rows: result.rows.length, truncated: result.truncated });
      return { ...result, limit };
    } catch (error) {
      await record(error instanceof QueryTimedOutError ? 'TIMED_OUT' : 'FAILED');
      throw error;
    }
  }
}
