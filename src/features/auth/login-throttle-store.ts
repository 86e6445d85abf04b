import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';

export class LoginThrottleStore {
  constructor(private readonly db: Database) {}

  /** The latest time until which any of the keys is locked, if one is locked now. */
  async lockedUntil(keys: string[]): Promise<Date | undefined> {
    const row = await this.db('login_throttle')
      .whereIn('key', keys)
      .where('locked_until', '>', this.db.fn.now())
      .max<{ until: Date | null }>('locked_until as until')
      .first();
    return row?.until ?? undefined;
  }

  /**
   * Counts a failure in the key's window (a new window when the last one has passed) and locks
   * the key for one window once the failures reach the limit. One statement: concurrent failures
   * are all counted.
   */
  async recordFailure(key: string, limit: number, windowMinutes: number): Promise<void> {
    await this.db.raw(
      `INSERT INTO login_throttle (key, failures, window_started_at, locked_until)
       VALUES (:key, 1, now(), CASE WHEN :limit <= 1 THEN now() + make_interval(mins => :window) END)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN login_throttle.window_started_at < now() - make_interval(mins => :window) THEN 1 ELSE login_throttle.failures + 1 END,
         window_started_at = CASE WHEN login_throttle.window_started_at < now() - make_interval(mins => :window) THEN now() ELSE login_throttle.window_started_at END,
         locked_until = CASE
           WHEN login_throttle.window_started_at >= now() - make_interval(mins => :window) AND login_throttle.failures + 1 >= :limit
           THEN now() + make_interval(mins => :window)
           ELSE login_throttle.locked_until END`,
      { key, limit, window: windowMinutes },
    );
  }

  async clear(key: string, trx: Knex = this.db): Promise<void> {
    await trx('login_throttle').where({ key }).delete();
  }
}
