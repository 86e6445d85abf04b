// The one place where the knex client of PostgreSQL is made, migrations are run and PostgreSQL
// failures are told apart from other errors.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { foreignCursor, type PageWindow } from '../http/pagination.js';
import type { Logger } from '../logger.js';
import { fromProjectRoot } from '../project-root.js';
import { UUID_PATTERN } from '../uuid.js';

export type Database = Knex;

/** Text as a LIKE pattern that matches it literally (its %, _ and backslash escaped). */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

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

/** The count of `filtered`. */
const countOf = (filtered: Knex.QueryBuilder) => filtered.clone().clearSelect().clearOrder().count('*');

/**
 * `shape` with the total as one more column (the count of the filter, or `counted`: SQL that
 * answers it without a scan): an uncorrelated subquery, which PostgreSQL runs once for the
 * statement, so that a page and its total cost one round trip.
 */
function withTotal(total: Knex.QueryBuilder | Knex.Raw, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder): (query: Knex.QueryBuilder) => Knex.QueryBuilder {
  return (query) => shape(query).select(query.client.raw('(?) AS ??', [total, TOTAL_COLUMN]));
}

/** The rows of a page without their total column, and the total (read apart when the page is empty). */
async function splitTotal<T>(rows: (T & Record<typeof TOTAL_COLUMN, string>)[], readApart: () => Promise<number>): Promise<{ rows: T[]; total: number }> {
  const total = rows[0] ? Number(rows[0][TOTAL_COLUMN]) : await readApart();
  return { rows: rows.map(({ [TOTAL_COLUMN]: _total, ...row }) => row as T), total };
}

/**
 * A page of a filtered query and the total behind it: `shape` selects and orders the page, the
 * count reads the same filter.
 */
export async function pagedQuery<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, page: number, size: number): Promise<{ rows: T[]; total: number }> {
  const rows = await withTotal(countOf(filtered), shape)(filtered.clone()).limit(size).offset(page * size);
  return splitTotal<T>(rows, () => countRows(filtered));
}

/** A time column as a cursor's key holds it: ISO 8601 in UTC to the microsecond, as stored, so that a seek lands exactly. */
export function keyTimeSql(db: Database, column: string, alias: string): Knex.Raw {
  return db.raw(`to_char(?? AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ??`, [column, alias]);
}

/** A column of a sort key: a column name or an expression, and the type a cursor's value must have. */
export interface KeyColumn {
  sql: string | Knex.Raw;
  type: 'text' | 'uuid' | 'timestamp' | 'integer';
}

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,6})?Z$/;
/** A time of the calendar (no 30 February), in the years that both stores and JavaScript hold. */
function isTimestamp(v: unknown): boolean {
  const seconds = typeof v === 'string' ? TIMESTAMP.exec(v)?.[1] : undefined;
  return seconds !== undefined && seconds >= '0001' && new Date(`${seconds}Z`).toISOString().startsWith(seconds);
}
// What a cursor's value must be, checked before any SQL runs: a value PostgreSQL refuses would be a 500.
const KEY_VALUE_TYPES: Record<KeyColumn['type'], (v: unknown) => boolean> = {
  text: (v) => typeof v === 'string',
  uuid: (v) => typeof v === 'string' && UUID_PATTERN.test(v),
  timestamp: isTimestamp,
  // int4, as the key columns of this type are.
  integer: (v) => Number.isInteger(v) && Math.abs(v as number) <= 2_147_483_647,
};

/** A key column given by name is a text column unless said otherwise. */
const keyColumnOf = (c: string | KeyColumn): KeyColumn => (typeof c === 'string' ? { sql: c, type: 'text' } : c);

/**
 * The rows of a page window over `filtered`, in the order of `keyColumns` (all in `direction`,
 * the last one unique); the caller selects what it needs to give each row's key back. A seek
 * compares the whole key as one row value, which a btree index on the key columns serves in
 * either direction. Backwards windows read in reverse and turn the rows round. A cursor's key
 * that does not fit the columns is refused before any SQL runs.
 */
export async function keysetRows<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, keyColumns: (string | KeyColumn)[], direction: 'asc' | 'desc', window: PageWindow): Promise<T[]> {
  const columns = keyColumns.map(keyColumnOf);
  const backwards = window.kind === 'before' || window.kind === 'tail';
  const descending = (direction === 'desc') !== backwards;
  const dir = descending ? 'DESC' : 'ASC';
  const placeholders = columns.map((c) => (typeof c.sql === 'string' ? '??' : '?')).join(', ');
  const query = shape(filtered.clone()).orderByRaw(columns.map((c) => `${typeof c.sql === 'string' ? '??' : '?'} ${dir}`).join(', '), columns.map((c) => c.sql));
  if (window.kind === 'after' || window.kind === 'before') {
    if (window.key.length !== columns.length || columns.some((c, i) => !KEY_VALUE_TYPES[c.type](window.key[i]))) {
      throw foreignCursor();
    }
    const cmp = descending ? '<' : '>';
    // The first column bounded alone too: a planner that cannot read a row comparison over
    // columns of two tables, or over an expression, as a range of an index still reads one here.
    const first = columns[0] as KeyColumn;
    query.whereRaw(`${typeof first.sql === 'string' ? '??' : '?'} ${cmp}= ?`, [first.sql, window.key[0] as string | number]);
    query.whereRaw(`(${placeholders}) ${cmp} (${columns.map(() => '?').join(', ')})`, [...columns.map((c) => c.sql), ...window.key]);
  }
  if (window.kind === 'offset') query.offset(window.offset);
  const rows = (await query.limit(window.limit)) as T[];
  return backwards ? rows.reverse() : rows;
}

/** A total that needs no scan (row-counts.ts): its SQL, as a column of the page's statement, and the same read alone. */
export interface CountedTotal {
  sql: Knex.Raw;
  read(): Promise<number>;
}

/** The rows of a page window (see keysetRows) and the total, counted of `filtered` unless given, in one statement. */
export async function keysetPage<T>(filtered: Knex.QueryBuilder, shape: (query: Knex.QueryBuilder) => Knex.QueryBuilder, keyColumns: (string | KeyColumn)[], direction: 'asc' | 'desc', window: PageWindow, counted?: CountedTotal): Promise<{ rows: T[]; total: number }> {
  const rows = await keysetRows<T & Record<typeof TOTAL_COLUMN, string>>(filtered, withTotal(counted?.sql ?? countOf(filtered), shape), keyColumns, direction, window);
  return splitTotal<T>(rows, () => (counted ? counted.read() : countRows(filtered)));
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

/**
 * A client of its own for migrations, on the same connection settings but with no wait bound per
 * statement: a migration that indexes or counts a table of millions of rows runs for minutes,
 * where a request's statement is bounded by the store time-out.
 */
async function withMigrator<T>(db: Database, work: (migrator: Knex) => Promise<T>): Promise<T> {
  const config = (db.client as { config: Knex.Config }).config;
  const migrator = knexFactory({ ...config, connection: { ...(config.connection as Knex.PgConnectionConfig), query_timeout: undefined }, pool: { min: 0, max: 1 } });
  try {
    return await work(migrator);
  } finally {
    await migrator.destroy();
  }
}

/** Applies the migrations not yet applied. */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const [, applied] = (await withMigrator(db, (m) => m.migrate.latest({ migrationSource }))) as [number, string[]];
  return applied;
}

/** Reverts one applied migration, by its file name (a test of what that migration does to rows). */
export async function revertMigration(db: Database, name: string): Promise<void> {
  await withMigrator(db, (m) => m.migrate.down({ migrationSource, name }));
}

export async function rollbackAll(db: Database): Promise<string[]> {
  const [, reverted] = (await withMigrator(db, (m) => m.migrate.rollback({ migrationSource }, true))) as [number, string[]];
  return reverted;
}
