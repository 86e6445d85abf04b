// The one module that wires agenda (on PostgreSQL through its PostgreSQL backend). Features
// register their jobs here; the process roles decide what this process does with them:
// `worker` runs jobs, `scheduler` keeps the recurring ones scheduled, and every role may enqueue.
import { Agenda, type Job } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { ProcessRole } from '../config.js';
import type { Logger } from '../logger.js';

export type JobData = Record<string, unknown>;
export type JobHandler<D extends JobData = JobData> = (data: D, job: Job<D>) => Promise<void>;

export interface JobOptions {
  /** How many runs of this job one worker may run at once. */
  concurrency?: number;
  /** How long a worker holds the job before another may take it over. */
  lockLifetimeMs?: number;
}

export interface RecurringJob {
  name: string;
  cron: string;
  /** Also run once shortly after every start of a scheduler process. */
  runAfterStart?: boolean;
}

export interface SchedulerOptions {
  databaseUrl: string;
  roles: readonly ProcessRole[];
  lockLifetimeMs: number;
  pollIntervalMs: number;
  workerConcurrency: number;
  logger: Logger;
}

/** How long after a start the jobs that run after every start run. */
export const STARTUP_RUN_DELAY_SECONDS = 30;
const STARTUP_DELAY = `in ${STARTUP_RUN_DELAY_SECONDS} seconds`;

interface Definition {
  name: string;
  handler: JobHandler<JobData>;
  options: JobOptions;
}

export class Scheduler {
  private readonly definitions: Definition[] = [];
  private readonly recurring: RecurringJob[] = [];
  private readonly logger: Logger;
  private pool?: pg.Pool;
  private agenda?: Agenda;

  constructor(private readonly options: SchedulerOptions) {
    this.logger = options.logger.child({ module: 'scheduler' });
  }

  /** Registers a job; call before start(). */
  define<D extends JobData>(name: string, handler: JobHandler<D>, options: JobOptions = {}): void {
    this.definitions.push({ name, handler: handler as JobHandler<JobData>, options });
  }

  /** Declares a recurring job (cron in UTC); scheduler processes keep it scheduled. */
  defineRecurring(job: RecurringJob): void {
    this.recurring.push(job);
  }

  /** Connects the queue (after the stores were checked) and takes up this process's roles. */
  async start(): Promise<void> {
    const { roles, databaseUrl } = this.options;
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: 'asset-inventory-jobs' });
    this.pool.on('error', (error) => this.logger.warn('job queue connection lost', { error }));
    // The table comes from a migration (ensureSchema would race between processes starting together).
    const backend = new PostgresBackend({ pool: this.pool, ensureSchema: false });
    // The LISTEN connection reconnects by itself; unheard, its 'error' event would end the process.
    backend.notificationChannel?.on('error', (error: Error) => this.logger.warn('job notification channel error', { error }));
    const agenda = new Agenda({
      backend,
      name: `${process.pid}`,
      processEvery: this.options.pollIntervalMs,
      maxConcurrency: this.options.workerConcurrency,
      defaultLockLifetime: this.options.lockLifetimeMs,
    });
    this.agenda = agenda;
    agenda.on('error', (error: Error) => this.logger.warn('job queue error', { error }));
    agenda.on('fail', (error: Error, job: Job) => this.logger.warn('job failed', { job: job.attrs.name, error }));
    for (const { name, handler, options } of this.definitions) {
      const lockLifetimeMs = options.lockLifetimeMs ?? this.options.lockLifetimeMs;
      agenda.define<JobData>(name, (job) => this.whileLocked(job, lockLifetimeMs, () => handler(job.attrs.data, job)), {
        concurrency: options.concurrency,
        lockLifetime: options.lockLifetimeMs,
      });
    }
    await agenda.ready;
    if (roles.includes('scheduler')) {
      for (const job of this.recurring) {
        await agenda.every(job.cron, job.name, undefined, { timezone: 'UTC', skipImmediate: true });
        if (job.runAfterStart) await agenda.schedule(STARTUP_DELAY, job.name, {});
      }
    }
    if (roles.includes('worker')) await agenda.start();
    this.logger.info('job queue ready', { roles, recurring: this.recurring.map((j) => j.name) });
  }

  /** Jobs due and waiting for a worker, and jobs a worker holds now (for the metrics). */
  async queueDepth(): Promise<{ waiting: number; running: number }> {
    if (!this.pool) return { waiting: 0, running: 0 };
    const { rows } = await this.pool.query<{ waiting: number; running: number }>(
      `SELECT count(*) FILTER (WHERE locked_at IS NULL AND next_run_at <= now() AND NOT coalesce(disabled, false))::int AS waiting,
              count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS running
         FROM agenda_jobs`,
    );
    return rows[0] ?? { waiting: 0, running: 0 };
  }

  /**
   * Runs a job while renewing its lock: a job is as long as its work (a scan of a large range, a
   * sweep of a large estate) and keeps its worker's slot for that long, while the lock of a worker
   * that died still expires after its lifetime and lets another take the job over.
   */
  private async whileLocked(job: Job<JobData>, lockLifetimeMs: number, work: () => Promise<void>): Promise<void> {
    const renew = setInterval(() => {
      job.touch().catch((error: unknown) => this.logger.warn('job lock not renewed', { job: job.attrs.name, error }));
    }, Math.max(1000, Math.floor(lockLifetimeMs / 3)));
    try {
      await work();
    } finally {
      clearInterval(renew);
    }
  }

  /** Queues a job to run as soon as a worker is free. */
  async enqueue<D extends JobData>(name: string, data: D): Promise<string> {
    const job = await this.started().now(name, data);
    return String(job.attrs._id);
  }

  /** Queues a job to run at a given time (a retry after its back-off). */
  async enqueueAt<D extends JobData>(name: string, data: D, at: Date): Promise<void> {
    await this.started().schedule(at, name, data);
  }

  private started(): Agenda {
    if (!this.agenda) throw new Error('The job queue is not started');
    return this.agenda;
  }

  async stop(): Promise<void> {
    // stop() hands the jobs this worker holds back to the queue for another worker.
    if (this.agenda && this.options.roles.includes('worker')) await this.agenda.stop();
    await this.pool?.end();
    this.agenda = undefined;
    this.pool = undefined;
  }
}
