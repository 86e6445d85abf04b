// The one place where the Neo4j driver is made. Graph repositories run named statements of the
// Cypher catalogue through NeoGraph.
import neo4j, { type Driver, type ManagedTransaction, type QueryResult, type RecordShape } from 'neo4j-driver';
import { withDeadline } from '../deadline.js';
import { StoreUnavailableError } from '../errors.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { unobserved, type StoreObserver } from '../metrics.js';

export interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  timeoutMs: number;
  /** The most connections the driver opens (the driver's default, 100, when unset). */
  maxConnections?: number;
}

export function createDriver({ uri, user, password, timeoutMs, maxConnections }: Neo4jOptions): Driver {
  return neo4j.driver(uri, neo4j.auth.basic(user, password), {
    // Numbers come back as JS numbers: every integer this service stores fits in 2^53.
    disableLosslessIntegers: true,
    connectionTimeout: timeoutMs,
    connectionAcquisitionTimeout: timeoutMs,
    maxTransactionRetryTime: timeoutMs,
    userAgent: 'asset-inventory',
    ...(maxConnections === undefined ? {} : { maxConnectionPoolSize: maxConnections }),
  });
}

/** The server's answer to a transaction that ran past its time-out (TransactionTimedOut and, in 5.x, TransactionTimedOutClientConfiguration). */
export function isTransactionTimedOut(error: unknown): boolean {
  return /^Neo\.ClientError\.Transaction\.TransactionTimedOut/.test(String((error as { code?: unknown } | null)?.code ?? ''));
}

const UNAVAILABLE_CODES = new Set(['ServiceUnavailable', 'SessionExpired', 'Neo.TransientError.General.DatabaseUnavailable']);

export function isNeo4jUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return /Connection acquisition timed out|Failed to connect to server|Could not perform discovery/i.test(error.message);
}

/** Answers when Neo4j runs a query; used by the health check. */
export async function pingNeo4j(driver: Driver, database: string): Promise<void> {
  await driver.executeQuery('RETURN 1', {}, { database });
}

export type CypherParams = Record<string, unknown>;

// The driver's fetch size that pulls a whole result at once.
const FETCH_ALL = -1;

/**
 * The WHERE text of a filtered statement: `always` and, for each filter value that is set, its
 * fixed predicate (which names a parameter of the same key), joined by AND; with the parameters.
 */
export function conjunction<F extends object>(predicates: { [K in keyof F]-?: string }, filter: F, always: string[]): { filters: string; params: CypherParams } {
  const clauses = [...always];
  const params: CypherParams = {};
  for (const key of Object.keys(predicates) as (keyof F & string)[]) {
    const value = filter[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    clauses.push(predicates[key]);
    params[key] = value;
  }
  return { filters: clauses.join(' AND '), params };
}

export class NeoGraph {
  constructor(
    readonly driver: Driver,
    readonly database: string,
    readonly catalog: CypherCatalog,
    private readonly observe: StoreObserver = unobserved,
    /** How long a read may wait for its answer before it is a 503 (a stalled server answers nothing). */
    readonly readTimeoutMs = 0,
    /** How long a write transaction may run or wait; longer than a read's, for batches of thousands of rows. */
    readonly writeTimeoutMs = 0,
  ) {}

  private bounded<T>(work: Promise<T>, ms = this.readTimeoutMs): Promise<T> {
    return ms > 0 ? withDeadline(work, ms, () => new StoreUnavailableError('Neo4j')) : work;
  }

  /** Runs a catalogued read statement (its placeholders filled by `fragments`) and returns plain objects. */
  async read<T extends RecordShape>(statement: string, params: CypherParams = {}, fragments?: Record<string, string>): Promise<T[]> {
    return (await this.autoCommitRead<T>(statement, params, fragments)).rows;
  }

  /**
   * A read, and the bookmark of the database after it: equal bookmarks of two reads mean that no
   * transaction committed between them.
   */
  async readWithBookmark<T extends RecordShape>(statement: string, params: CypherParams = {}, fragments?: Record<string, string>): Promise<{ rows: T[]; bookmark: string }> {
    return this.autoCommitRead<T>(statement, params, fragments);
  }

  /** The bookmark of the database now (see readWithBookmark). */
  async bookmark(): Promise<string> {
    return (await this.run('RETURN 1', {})).bookmark;
  }

  /** Runs a catalogued write statement (its placeholders filled by `fragments`) in a managed (retried) transaction. */
  async write<T extends RecordShape>(statement: string, params: CypherParams = {}, fragments?: Record<string, string>): Promise<T[]> {
    const text = fragments ? this.catalog.render(statement, fragments) : this.catalog.get(statement);
    return this.writeTransaction((tx) => tx.run<T>(text, params)).then(toObjects);
  }

  /**
   * Runs a catalogued read statement and yields its rows `batch` at a time as the consumer asks
   * for them (the driver pulls from the server in batches too), for results too big to hold.
   * Stopping early cancels the rest on the server.
   */
  async *stream<T extends RecordShape>(statement: string, params: CypherParams, fragments: Record<string, string>, batch: number): AsyncGenerator<T[]> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ, fetchSize: batch });
    let stalled = false;
    try {
      const records = session.run<T>(this.catalog.render(statement, fragments), params)[Symbol.asyncIterator]();
      let rows: T[] = [];
      for (;;) {
        const next = await this.bounded(records.next()).catch((error: unknown) => {
          stalled = error instanceof StoreUnavailableError;
          throw error;
        });
        if (next.done) break;
        rows.push(next.value.toObject());
        if (rows.length === batch) {
          yield rows;
          rows = [];
        }
      }
      if (rows.length) yield rows;
    } finally {
      // Closing waits for the server: a stalled one gets its session closed in the background.
      if (stalled) void session.close().catch(() => undefined);
      else await session.close();
    }
  }

  private autoCommitRead<T extends RecordShape>(statement: string, params: CypherParams, fragments?: Record<string, string>): Promise<{ rows: T[]; bookmark: string }> {
    return this.run<T>(fragments ? this.catalog.render(statement, fragments) : this.catalog.get(statement), params);
  }

  /**
   * One read in an auto-commit transaction: RUN and PULL in one round trip, without the BEGIN and
   * COMMIT of a managed transaction, which cost a short read about as much again on this path. A
   * failure that a managed transaction would retry (a cluster member going away) is tried once more.
   */
  private run<T extends RecordShape>(text: string, params: CypherParams): Promise<{ rows: T[]; bookmark: string }> {
    return this.observe('read', () => this.runOnce<T>(text, params));
  }

  private async runOnce<T extends RecordShape>(text: string, params: CypherParams, retried = false): Promise<{ rows: T[]; bookmark: string }> {
    // Every row is held anyway: pulled in one batch, a page of 1,001 rows costs one round trip, not two.
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ, fetchSize: FETCH_ALL });
    let stalled = false;
    try {
      const rows = toObjects(await this.bounded(session.run<T>(text, params)));
      return { rows, bookmark: session.lastBookmarks().join(',') };
    } catch (error) {
      stalled = error instanceof StoreUnavailableError;
      if (!retried && !stalled && neo4j.isRetryableError(error as Error)) return this.runOnce<T>(text, params, true);
      throw error;
    } finally {
      if (stalled) void session.close().catch(() => undefined);
      else await session.close();
    }
  }

  /**
   * A managed write, bounded twice: the server ends a transaction that runs past the time-out (and
   * frees its locks), and the wait ends then too when the server does not answer at all. Either is
   * a 503; a write cut short this way is MERGEd again by the caller's retry.
   */
  private writeTransaction<T>(work: (tx: ManagedTransaction) => Promise<T>): Promise<T> {
    return this.observe('write', async () => {
      const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
      let stalled = false;
      try {
        return await this.bounded(session.executeWrite(work, this.writeTimeoutMs > 0 ? { timeout: this.writeTimeoutMs } : {}), this.writeTimeoutMs);
      } catch (error) {
        stalled = error instanceof StoreUnavailableError;
        if (isTransactionTimedOut(error)) throw new StoreUnavailableError('Neo4j');
        throw error;
      } finally {
        if (stalled) void session.close().catch(() => undefined);
        else await session.close();
      }
    });
  }
}

function toObjects<T extends RecordShape>(result: QueryResult<T>): T[] {
  return result.records.map((r) => r.toObject());
}

/** Cypher has no parameter for LIMIT/SKIP of type float: JS numbers must be sent as integers. */
export const int = neo4j.int;

const ISO_MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A Neo4j temporal value as ISO 8601 in UTC (milliseconds), or null: a DateTime, or its text as
 * Cypher's toString() writes it (statements return text where rows are many: cheaper to decode).
 */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  // Cypher writes a UTC datetime stored to the millisecond in exactly this form: no Date to parse.
  if (typeof value === 'string' && ISO_MILLIS.test(value)) return value;
  if (neo4j.isDateTime(value as never)) return (value as { toStandardDate(): Date }).toStandardDate().toISOString();
  const date = new Date(String(value));
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}
