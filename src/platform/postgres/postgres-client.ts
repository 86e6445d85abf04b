// The one place where the knex client of PostgreSQL is made, migrations are run and PostgreSQL
// failures are told apart from other errors.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { BadRequestError } from '../errors.js';
import type { PageWindow } from '../http/pagination.js';
import type { Logger } from '../logger.js';
import { fromProjectRoot } from '../project-root.js';

export type Database = Knex;

export interface PostgresOptions {
  url: string;
  poolMax: number;
  timeoutMs: number;
  applicationName?: string;
  logger?: Logger;
}

export function createDatabase({ url, poolMax, timeoutMs, applicationName = 'asset-inventory', logger }: PostgresOptions): Database {
  // knex prints its own warnings with console.log unless given a logger.
  const log = (level: 'debug' | 'warn') => (message: unknown) => logger?.[level]('knex', { detail: String(message) });
  return knexFactory({
    log: { warn: log('warn'), error: log('warn'), deprecate: log('debug'), debug: log('debug') },
    client: 'pg',
    // query_timeout bounds the wait for an answer on an open connection (a stalled server never
    // answers); the statement still runs to its end on the server, and the connection stays in step.
    connection: { connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: applicationName },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: timeoutMs,
  });
}

/** Reports how long each SQL statement took and whether it failed (for the metrics). */
export function observeStatements(db: Database, observe: (seconds: number, failed: boolean) => void): void {
  const started = new Map<string, number>();
  db.on('query', (query: { __knexQueryUid: string }) => started.set(query.__knexQueryUid, performance.now()));
  const finished = (failed: boolean) => (_result: unknown, query: { __knexQueryUid: string }) => {
    const at = started.get(query.__knexQueryUid);
    if (at === undefined) return;
    started.delete(query.__knexQueryUid);
    observe((performance.now() - at) / 1000, failed);
  };
  db.on('query-response', finished(false));
  db.on('query-error', finished(true));
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300',
]);

/** True when the error means PostgreSQL could not be reached or dropped the connection. */
export function isPostgresUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: a socket error comes from Node's own realm, which need not be the
  // caller's (jest runs the service in a vm context), and would then go unrecognised (a 500).
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (name === 'KnexTimeoutError') return true;
  return typeof message === 'string' && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Query read timeout|timeout expired/i.test(message);
}

/** True for a PostgreSQL unique-constraint violation (a duplicate name, a second active run). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** The number of rows of a query. */
export async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.clone().clearSelect().clearOrder().count<{ count: string }[]>('* as count');
  return Number(row?.count ?? 0);
}

// The column that carries on each row of a page the total behind it.
const TOTAL_COLUMN = 'page_total';

/**
 * `shape` with the count of `filtered` as one more column: an uncorrelated subquery, which
 * PostgreSQL runs once for the statement, so that a page and its total cost one round trip.
 */
function withTotal(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder): (query: Knex.QueryBuilder) => Knex.QueryBuilder {
  const count = filtered.clone().clearSelect().clearOrder().count('*');
  return (query) => shape(query).select(query.client.raw('(?) AS ??', [count, TOTAL_COLUMN]));
}

/** The rows of a page without their total column, and the total (counted apart when the page is empty). */
async function splitTotal<T>(rows: (T & Record<typeof TOTAL_COLUMN, string>)[], filtered: Knex.QueryBuilder): Promise<{ rows: T[]; total: number }> {
  const total = rows[0] ? Number(rows[0][TOTAL_COLUMN]) : await countRows(filtered);
  return { rows: rows.map(({ [TOTAL_COLUMN]: _total, ...row }) => row as T), total };
}

/**
 * A page of a filtered query and the total behind it: `shape` selects and orders the page, the
 * count reads the same filter.
 */
export async function pagedQuery<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, page: number, size: number): Promise<{ rows: T[]; total: number }> {
  const rows = await withTotal(filtered, shape)(filtered.clone()).limit(size).offset(page * size);
  return splitTotal<T>(rows, filtered);
}

/**
 * The rows of a page window over `filtered`, in the order of `keyColumns` (all in `direction`,
 * the last one unique), with the sort key of each row as `keyOf` reads it back. A seek compares
 * the whole key as one row value, which a btree index on the key columns serves in either
 * direction. Backwards windows read in reverse and turn the rows round.
 */
async function keysetRows<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, keyColumns: string[], direction: 'asc' | 'desc', window: PageWindow): Promise<T[]> {
  const backwards = window.kind === 'before' || window.kind === 'tail';
  const descending = (direction === 'desc') !== backwards;
  const query = shape(filtered.clone()).orderBy(keyColumns.map((column) => ({ column, order: descending ? 'desc' : 'asc' })));
  if (window.kind === 'after' || window.kind === 'before') {
    if (window.key.length !== keyColumns.length) throw new BadRequestError('The cursor does not belong to this list: follow the links of a list as they are.', [{ path: 'query.cursor', message: 'cursor of another list' }]);
    query.whereRaw(`(${keyColumns.map(() => '??').join(', ')}) ${descending ? '<' : '>'} (${keyColumns.map(() => '?').join(', ')})`, [...keyColumns, ...window.key]);
  }
  if (window.kind === 'offset') query.offset(window.offset);
  const rows = (await query.limit(window.limit)) as T[];
  return backwards ? rows.reverse() : rows;
}

/** The rows of a page window (see keysetRows) and the total of `filtered`, in one statement. */
export async function keysetPage<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, keyColumns: string[], direction: 'asc' | 'desc', window: PageWindow): Promise<{ rows: T[]; total: number }> {
  return splitTotal<T>(await keysetRows(filtered, withTotal(filtered, shape), keyColumns, direction, window), filtered);
}

/** Answers when PostgreSQL runs a query; used by the health check. */
export async function pingPostgres(db: Database): Promise<void> {
  await db.raw('SELECT 1');
}

const MIGRATIONS_DIR = fromProjectRoot('migrations');

/** Migrations are plain ES modules in migrations/, named YYYYMMDDHHMMSS_snake_case.js. */
const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{14}_[a-z0-9_]+\.js$/.test(f)).sort();
  },
  getMigrationName(migration) {
    return migration;
  },
  async getMigration(migration) {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, migration)).href)) as Knex.Migration;
  },
};

export async function migrateToLatest(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** Reverts one applied migration, by its file name (a test of what that migration does to rows). */
export async function revertMigration(db: Database, name: string): Promise<void> {
  await db.migrate.down({ migrationSource, name });
}

export async function rollbackAll(db: Database): Promise<string[]> {
  const [, reverted] = (await db.migrate.rollback({ migrationSource }, true)) as [number, string[]];
  return reverted;
}
