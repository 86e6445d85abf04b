import type { AlertFormat } from '../../platform/config.js';
import type { Database } from '../../platform/postgres/postgres-client.js';

export type AlertStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface AlertRecord {
  runId: string;
  status: AlertStatus;
  format: AlertFormat;
  attempts: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  lastError: string | null;
}

const SELECT = [
  'run_id as runId', 'status', 'format', 'attempts', 'last_attempt_at as lastAttemptAt', 'next_attempt_at as nextAttemptAt',
  'delivered_at as deliveredAt', 'last_error as lastError',
];

export class AlertStore {
  constructor(private readonly db: Database) {}

  find(runId: string): Promise<AlertRecord | undefined> {
    return this.db('run_alerts').select(SELECT).where({ run_id: runId }).first();
  }

  /** Raises the run's alert as PENDING; a second call (a repeated job) leaves it as it is. */
  async open(runId: string, format: AlertFormat): Promise<void> {
    await this.db('run_alerts').insert({ run_id: runId, status: 'PENDING', format }).onConflict('run_id').ignore();
  }

  async delivered(runId: string, attempts: number): Promise<void> {
    await this.db('run_alerts')
      .where({ run_id: runId })
      .update({ status: 'DELIVERED', attempts, last_attempt_at: this.db.fn.now(), delivered_at: this.db.fn.now(), next_attempt_at: null, last_error: null });
  }

  /** A failed try: PENDING again when a retry is due at `retryAt`, FAILED when none is. */
  async failedAttempt(runId: string, attempts: number, error: string, retryAt: Date | undefined): Promise<void> {
    await this.db('run_alerts')
      .where({ run_id: runId })
      .update({ status: retryAt ? 'PENDING' : 'FAILED', attempts, last_attempt_at: this.db.fn.now(), next_attempt_at: retryAt ?? null, last_error: error });
  }
}
