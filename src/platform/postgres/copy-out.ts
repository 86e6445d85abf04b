// COPY (SELECT ...) TO STDOUT, streamed: the fastest way out of PostgreSQL for the bulk exports.
// COPY takes no bind parameters, so values reach the statement as transaction-local settings set
// by a parameterised set_config() and read back with current_setting(): the statement text holds
// none of the caller's input. Exports have a pool of their own, so that long streams never starve
// the API's queries; a stream given up half-way takes its connection out of the pool (the server
// would otherwise keep sending the rest of the COPY on it).
import type { Readable } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { withDeadline } from '../deadline.js';
import { StoreUnavailableError } from '../errors.js';

export interface CopyPoolOptions {
  url: string;
  max: number;
  timeoutMs: number;
}

export function createCopyPool({ url, max, timeoutMs }: CopyPoolOptions): pg.Pool {
  return new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: timeoutMs, application_name: 'asset-inventory-exports' });
}

/** The name of a transaction-local setting that carries one value into a COPY statement. */
export const copySetting = (name: string) => `inventory_copy.${name}`;

/**
 * Starts COPY (`sql`) TO STDOUT in a read-only transaction where each entry of `settings` is set
 * (read in `sql` as current_setting('inventory_copy.<name>')). Errors of the set-up (a store
 * that is down, a value it refuses) are thrown here, before anything is sent to a client.
 */
export async function copyOut(pool: pg.Pool, sql: string, settings: Record<string, string> = {}): Promise<Readable> {
  const client = await pool.connect();
  // The set-up waits no longer than a connection may take (a stalled server answers nothing); the
  // COPY itself is not bounded here: it streams for as long as the export lasts.
  const setUp = async () => {
    await client.query('BEGIN READ ONLY');
    for (const [name, value] of Object.entries(settings)) await client.query('SELECT set_config($1, $2, true)', [copySetting(name), value]);
  };
  const bound = pool.options.connectionTimeoutMillis;
  try {
    await (bound ? withDeadline(setUp(), bound, () => new StoreUnavailableError('PostgreSQL')) : setUp());
  } catch (error) {
    client.release(true);
    throw error;
  }
  const stream = client.query(copyTo(sql));
  let finished = false;
  const release = (broken: boolean) => {
    if (finished) return;
    finished = true;
    if (broken) client.release(true);
    else client.query('COMMIT').then(() => client.release(), () => client.release(true));
  };
  stream.once('end', () => release(false));
  stream.once('error', () => release(true));
  stream.once('close', () => release(true));
  return stream;
}
