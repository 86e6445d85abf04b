// Runs an analyst's own Cypher (already checked by read-only-cypher.ts) in a READ-mode explicit
// transaction with a server-side time-out: Neo4j itself refuses writes in it and stops it when the
// time is up. Rows are pulled until the cap, plus one to know whether there were more; the
// transaction is always rolled back.
import neo4j, { type Neo4jError } from 'neo4j-driver';
import { BadRequestError, UnprocessableContentError } from '../../platform/errors.js';
import { isTransactionTimedOut, type CypherParams, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { encodeValue, GraphCollector, type ResultGraph } from './graph-values.js';

export interface AdHocQueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
  /** True when the query had more rows than the cap. */
  truncated: boolean;
  graph: ResultGraph;
}

export interface AdHocQueryOptions {
  limit: number;
  timeoutMs: number;
  /** Carried as transaction metadata, so that SHOW TRANSACTIONS tells the query apart. */
  metadata: Record<string, string>;
}

// Neo4j errors whose message is about the caller's own query, and helps them fix it.
const QUERY_ERROR = /^Neo\.ClientError\.(Statement|Procedure|Schema)\./;
const MESSAGE_MAX = 600;

/** Neo4j stopped the query at its time-out. */
export class QueryTimedOutError extends UnprocessableContentError {
  constructor(timeoutMs: number) {
    super(`The query ran longer than ${timeoutMs} ms (service.graph-query.timeout-ms) and was stopped.`);
  }
}

export class AdHocQueryGraphRepository {
  constructor(private readonly graph: NeoGraph) {}

  async run(query: string, params: CypherParams, { limit, timeoutMs, metadata }: AdHocQueryOptions): Promise<AdHocQueryResult> {
    const session = this.graph.driver.session({ database: this.graph.database, defaultAccessMode: neo4j.session.READ, fetchSize: Math.min(limit + 1, 1000) });
    const tx = session.beginTransaction({ timeout: timeoutMs, metadata });
    try {
      const result = tx.run(query, params);
      const collector = new GraphCollector();
      const rows: Record<string, unknown>[] = [];
      let truncated = false;
      for await (const record of result) {
        if (rows.length === limit) {
          truncated = true;
          break;
        }
        rows.push(Object.fromEntries(record.keys.map((key) => [key, encodeValue(record.get(key), collector)])));
      }
      const columns = (await result.keys()).map(String);
      return { columns, rows, truncated, graph: collector.graph() };
    } catch (error) {
      throw translate(error as Neo4jError, timeoutMs);
    } finally {
      await tx.rollback().catch(() => undefined);
      await session.close();
    }
  }
}

function translate(error: Neo4jError, timeoutMs: number): Error {
  const code = typeof error.code === 'string' ? error.code : '';
  if (isTransactionTimedOut(error)) return new QueryTimedOutError(timeoutMs);
  if (code === 'Neo.ClientError.Statement.AccessMode') {
    return new BadRequestError('The query tried to write; the query endpoint only reads.');
  }
  if (QUERY_ERROR.test(code)) {
    const message = String(error.message ?? '').slice(0, MESSAGE_MAX);
    return new BadRequestError(`Neo4j did not accept the query (${code}): ${message}`);
  }
  return error;
}
