// Runs an analyst's own Cypher on the analysts' driver (its own small pool, analyst-bulkhead.ts) in
// a READ-mode explicit transaction that Neo4j stops at its time-out: first EXPLAINed in that
// transaction and admitted only on Neo4j's own plan (cypher-admission.ts), then run. Rows are pulled
// until the cap, plus one to know whether there were more; the transaction is always rolled back.
// A Neo4j that does not answer at all (stopped, or stuck) is given up at the request's deadline: the
// caller gets a 503 and the transaction is terminated on the server if it still runs there.
import neo4j, { type Driver, type Session } from 'neo4j-driver';
import { withDeadline } from '../../platform/deadline.js';
import { AppError, BadRequestError, StoreUnavailableError, UnprocessableContentError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { isTransactionTimedOut, type CypherParams, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import { refusalOfPlan, type Refusal } from './cypher-admission.js';
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
  /** The transaction's time-out on the server: the setting, less any wait for a slot. */
  timeoutMs: number;
  /** service.graph-query.timeout-ms, as the answer names it. */
  timeoutSettingMs: number;
  /** How long to wait for Neo4j's answers at all (the time-out and a margin). */
  answerWithinMs: number;
  /** Carried as transaction metadata: SHOW TRANSACTIONS tells the query apart, and a give-up terminates it by it. */
  queryId: string;
}

const MESSAGE_MAX = 600;
const TERMINATE_WITHIN_MS = 5000;

/** The statement was not run: Neo4j's plan of it is not a plain read of the graph. */
export class QueryRefusedError extends BadRequestError {
  constructor(readonly refusal: Refusal) {
    super(`The query was not run: ${refusal.reason}`, [{ path: 'body.query', message: refusal.kind }]);
  }
}

/** Neo4j stopped the query at its time-out. */
export class QueryTimedOutError extends UnprocessableContentError {
  constructor(timeoutSettingMs: number) {
    super(`The query ran longer than ${timeoutSettingMs} ms (service.graph-query.timeout-ms, less any wait for a slot) and was stopped.`);
  }
}

/** Neo4j stopped the query for want of memory, or on someone's request. */
export class QueryStoppedError extends UnprocessableContentError {}

export class AdHocQueryGraphRepository {
  constructor(
    /** The analysts' own driver. */
    private readonly driver: Driver,
    /** The service's graph: its database, and its connection to terminate a given-up query. */
    private readonly graph: NeoGraph,
    private readonly logger: Logger,
  ) {}

  async run(query: string, params: CypherParams, { limit, timeoutMs, timeoutSettingMs, answerWithinMs, queryId }: AdHocQueryOptions): Promise<AdHocQueryResult> {
    const session = this.driver.session({ database: this.graph.database, defaultAccessMode: neo4j.session.READ, fetchSize: Math.min(limit + 1, 1000) });
    let gaveUp = false;
    try {
      return await withDeadline(this.explainAndRun(session, query, params, limit, timeoutMs, queryId), answerWithinMs, () => {
        gaveUp = true;
        return new StoreUnavailableError('Neo4j');
      });
    } catch (error) {
      const problem = translate(error, timeoutSettingMs);
      if (problem instanceof StoreUnavailableError && !(error instanceof AppError)) this.logger.warn('an analyst query failed in Neo4j', { queryId, code: codeOf(error) || String(error) });
      throw problem;
    } finally {
      if (gaveUp) {
        void this.terminate(queryId);
        // Closing waits for the server's answer: in the background, and never reported.
        void session.close().catch(() => undefined);
      } else {
        await session.close().catch(() => undefined);
      }
    }
  }

  private async explainAndRun(session: Session, query: string, params: CypherParams, limit: number, timeoutMs: number, queryId: string): Promise<AdHocQueryResult> {
    const tx = await session.beginTransaction({ timeout: timeoutMs, metadata: { graphQueryId: queryId } });
    try {
      const { summary } = await tx.run(`EXPLAIN ${query}`, params);
      const refusal = refusalOfPlan({ queryType: summary.queryType, plan: summary.plan }, this.graph.database);
      if (refusal) throw new QueryRefusedError(refusal);
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
    } finally {
      await tx.rollback().catch(() => undefined);
    }
  }

  /** Ends the query's transaction on the server, if it still runs there (bounded; failures ignored: the server's own time-out ends it too). */
  private async terminate(queryId: string): Promise<void> {
    const work = async () => {
      const found = await this.graph.driver.executeQuery('SHOW TRANSACTIONS YIELD transactionId, metaData WHERE metaData.graphQueryId = $queryId RETURN transactionId', { queryId }, { database: this.graph.database });
      const ids = found.records.map((r) => r.get('transactionId') as string);
      if (ids.length) await this.graph.driver.executeQuery('TERMINATE TRANSACTIONS $ids', { ids }, { database: this.graph.database });
    };
    await withDeadline(work(), TERMINATE_WITHIN_MS, () => new StoreUnavailableError('Neo4j')).catch(() => undefined);
  }
}

const codeOf = (error: unknown) => String((error as { code?: unknown } | null)?.code ?? '');
const messageOf = (error: unknown) => String((error as { message?: unknown } | null)?.message ?? '').slice(0, MESSAGE_MAX);

/**
 * Every answer of Neo4j as a documented problem: the caller's query at fault is a 400, a query Neo4j
 * stopped (time, memory, termination) a 422, anything else a 503 naming Neo4j. Never a 500.
 */
export function translate(error: unknown, timeoutSettingMs: number): AppError {
  if (error instanceof AppError) return error;
  const code = codeOf(error);
  if (isTransactionTimedOut(error)) return new QueryTimedOutError(timeoutSettingMs);
  if (code === 'Neo.ClientError.Statement.AccessMode') return new BadRequestError('The query tried to write; the query endpoint only reads.');
  if (code === 'Neo.TransientError.General.MemoryPoolOutOfMemoryError') {
    return new QueryStoppedError(`The query needed more memory than Neo4j lets one query, or all of them, use, and was stopped (${messageOf(error)}).`);
  }
  if (code === 'Neo.TransientError.General.OutOfMemoryError') {
    return new QueryStoppedError('The query needed more memory than the graph database has (its Java heap), and was stopped.');
  }
  if (/^Neo\.(Client|Transient)Error\.Transaction\.(Terminated|LockClientStopped)$/.test(code)) {
    return new QueryStoppedError('The query was terminated on the Neo4j server before it finished.');
  }
  if (/^Neo\.ClientError\.(Statement|Procedure|Schema|Request|General)\./.test(code)) {
    return new BadRequestError(`Neo4j did not accept the query (${code}): ${messageOf(error)}`);
  }
  if (/^Neo\.DatabaseError\.Statement\./.test(code)) {
    return new QueryStoppedError(`Neo4j could not run the query (${code}): ${messageOf(error)}`);
  }
  // Unreachable, unavailable, out of service, or an error of Neo4j's own.
  return new StoreUnavailableError('Neo4j');
}
