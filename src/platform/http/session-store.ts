// The browser sessions' store: rows of http_sessions in PostgreSQL, on a pool of their own (built
// with the other store clients in platform.ts). What a session holds is auth's
// (authentication-middleware.ts).
import connectPgSimple from 'connect-pg-simple';
import session from 'express-session';
import type pg from 'pg';

/** The browser sessions in PostgreSQL; close() stops its pruning timer (before its pool ends). */
export type SessionStore = session.Store & { close(): void | Promise<void> };

export function sessionStore(pool: pg.Pool): SessionStore {
  return new (connectPgSimple(session))({ pool, tableName: 'http_sessions', createTableIfMissing: false, pruneSessionInterval: 15 * 60 });
}
