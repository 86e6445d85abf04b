import type { Knex } from 'knex';
import type { PageWindow, RowKey } from '../../platform/http/pagination.js';
import { isUniqueViolation, keysetPage, keyTimeSql, type Database } from '../../platform/postgres/postgres-client.js';
import { ALL_ROWS, type CountedGroups, type RowCounts } from '../../platform/postgres/row-counts.js';
import { RUN_STATUSES, type RunError, type RunHistory, type RunRecord, type RunStatus, type RunSummary, type RunTrigger } from './run-record.js';
import type { SharedErrorCode } from './shared-scan-errors.js';

const SELECT = [
  'id', 'target_id as targetId', 'target_name as targetName', 'trigger', 'status', 'queued_at as queuedAt', 'started_at as startedAt',
  'finished_at as finishedAt', 'progress_done as progressDone', 'progress_total as progressTotal', 'hosts_responding as hostsResponding',
  'assets_created as assetsCreated', 'assets_updated as assetsUpdated', 'error_count as errorCount', 'cancel_requested as cancelRequested',
  'failure_reason as failureReason', 'credentials_tried as credentialsTried',
];

export const ERRORS_SHOWN = 1000;

export interface RunFilter {
  targetId?: string;
  statuses?: RunStatus[];
}

const RUNS = 'discovery_runs';

/** The groups of runs (status/target, migration 20261130000000) that a filter selects. */
function groupsOf(filter: RunFilter): CountedGroups {
  if (filter.targetId !== undefined) return { keys: (filter.statuses?.length ? filter.statuses : RUN_STATUSES).map((s) => `${s}/${filter.targetId}`) };
  return filter.statuses?.length ? { prefixes: filter.statuses.map((s) => `${s}/`) } : ALL_ROWS;
}

export class RunStore implements RunHistory {
  /** `recorded`: told of every error record written (the /metrics count by method and code). */
  constructor(
    private readonly db: Database,
    private readonly counts: RowCounts,
    private readonly recorded: (errors: Pick<RunError, 'method' | 'code'>[]) => void = () => undefined,
  ) {}

  /** A new QUEUED run; undefined when the target already has a QUEUED or RUNNING one. */
  async create(targetId: string, targetName: string, trigger: RunTrigger, trx: Knex = this.db): Promise<RunRecord | undefined> {
    try {
      const [row] = await trx('discovery_runs').insert({ target_id: targetId, target_name: targetName, trigger, status: 'QUEUED' }).returning(SELECT);
      return row as RunRecord;
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  find(id: string): Promise<RunRecord | undefined> {
    return this.db('discovery_runs').select(SELECT).where({ id }).first();
  }

  private filtered(filter: RunFilter) {
    return this.db('discovery_runs').modify((b) => {
      if (filter.targetId) b.where('target_id', filter.targetId);
      if (filter.statuses?.length) b.whereIn('status', filter.statuses);
    });
  }

  count(filter: RunFilter): Promise<number> {
    return this.counts.count(RUNS, groupsOf(filter));
  }

  /** The number of runs in each status (every status named, 0 where none). */
  async countByStatus(): Promise<Record<RunStatus, number>> {
    const counts = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
    for (const [group, n] of await this.counts.groups(RUNS)) counts[group.slice(0, group.indexOf('/')) as RunStatus] += n;
    return counts;
  }

  /** A page of runs newest first through the window, each with its sort key, and the total. */
  async list(filter: RunFilter, window: PageWindow): Promise<{ rows: (RunRecord & { key: RowKey })[]; total: number }> {
    const base = this.filtered(filter);
    // The key keeps queued_at to the microsecond, as text, so that a seek lands exactly.
    const shape = (q: typeof base) => q.select([...SELECT, keyTimeSql(this.db, 'queued_at', 'keyTime')]);
    const { rows, total } = await keysetPage<RunRecord & { keyTime: string }>(base, shape, [{ sql: 'queued_at', type: 'timestamp' }, { sql: 'id', type: 'uuid' }], 'desc', window, this.counts.total(RUNS, groupsOf(filter)));
    return { rows: rows.map(({ keyTime, ...run }) => ({ ...run, key: [keyTime, run.id] as RowKey })), total };
  }

  /** The target's runs queued before the given time, newest first. */
  earlier(targetId: string, before: Date, limit: number): Promise<RunRecord[]> {
    return this.db('discovery_runs').select(SELECT).where('target_id', targetId).where('queued_at', '<', before).orderBy('queued_at', 'desc').limit(limit);
  }

  errors(runId: string): Promise<RunError[]> {
    return this.db('discovery_run_errors').select('address', 'method', 'stage', 'code', 'message').where({ run_id: runId }).orderBy('id').limit(ERRORS_SHOWN);
  }

  /** How many error records of each code the run has (all of them, not only those shown). */
  async errorCounts(runId: string): Promise<Record<string, number>> {
    const rows = await this.db('discovery_run_errors').select('code').count<{ code: string; count: string }[]>('* as count').where({ run_id: runId }).groupBy('code').orderBy([{ column: 'count', order: 'desc' }, { column: 'code' }]);
    return Object.fromEntries(rows.map((r) => [r.code, Number(r.count)]));
  }

  /** Takes a QUEUED run for this worker; undefined if it is no longer QUEUED (cancelled, taken). */
  async claim(id: string, worker: string, leaseMs: number): Promise<RunRecord | undefined> {
    const [row] = await this.db('discovery_runs')
      .where({ id, status: 'QUEUED' })
      .update({ status: 'RUNNING', started_at: this.db.fn.now(), worker, lease_expires_at: new Date(Date.now() + leaseMs) })
      .returning(SELECT);
    return row;
  }

  /** Records progress and renews the lease; answers whether a cancel was asked for. */
  async progress(id: string, done: number, total: number, leaseMs: number): Promise<boolean> {
    const [row] = await this.db('discovery_runs')
      .where({ id, status: 'RUNNING' })
      .update({ progress_done: done, progress_total: total, lease_expires_at: new Date(Date.now() + leaseMs) })
      .returning('cancel_requested');
    return row?.cancel_requested === true;
  }

  /**
   * Marks a RUNNING run as loading its results unless a cancel was asked for first; false then (or
   * when it is no longer RUNNING). The two updates lock the run's row, so a cancel and the start of
   * the load cannot both succeed.
   */
  async beginLoad(id: string): Promise<boolean> {
    return (await this.db('discovery_runs').where({ id, status: 'RUNNING', cancel_requested: false }).update({ loading_started_at: this.db.fn.now() })) > 0;
  }

  async recordCredentialsTried(runId: string, ids: string[]): Promise<void> {
    if (ids.length) await this.db('discovery_runs').where({ id: runId }).update({ credentials_tried: ids });
  }

  async addErrors(runId: string, errors: RunError[]): Promise<void> {
    if (errors.length === 0) return;
    await this.db('discovery_run_errors').insert(errors.map((e) => ({ run_id: runId, ...e, message: e.message.slice(0, 1000) })));
    await this.db('discovery_runs').where({ id: runId }).increment('error_count', errors.length);
    this.recorded(errors);
  }

  /** Ends a RUNNING run; false when it was no longer RUNNING (so that one caller follows up). */
  async finish(id: string, status: RunStatus, summary: RunSummary | undefined, failureReason?: string): Promise<boolean> {
    const updated = await this.db('discovery_runs')
      .where({ id, status: 'RUNNING' })
      .update({
        status,
        finished_at: this.db.fn.now(),
        lease_expires_at: null,
        failure_reason: failureReason ?? null,
        ...(summary ? { hosts_responding: summary.hostsResponding, assets_created: summary.assetsCreated, assets_updated: summary.assetsUpdated } : {}),
      });
    return updated > 0;
  }

  /** A QUEUED run is cancelled at once; a RUNNING one is asked to stop, unless it is loading its results. */
  async cancel(id: string, trx: Knex = this.db): Promise<'CANCELLED' | 'REQUESTED' | 'LOADING' | 'ENDED'> {
    const queued = await trx('discovery_runs').where({ id, status: 'QUEUED' }).update({ status: 'CANCELLED', finished_at: trx.fn.now() });
    if (queued) return 'CANCELLED';
    const running = await trx('discovery_runs').where({ id, status: 'RUNNING' }).whereNull('loading_started_at').update({ cancel_requested: true });
    if (running) return 'REQUESTED';
    return (await trx('discovery_runs').where({ id, status: 'RUNNING' }).first('id')) ? 'LOADING' : 'ENDED';
  }

  /** Fails the RUNNING runs whose worker stopped renewing its lease, with a WORKER_LOST record each; answers their ids. */
  async failExpired(reason: string): Promise<string[]> {
    const ids = await this.db.transaction(async (trx) => {
      const rows: { id: string }[] = await trx('discovery_runs')
        .where({ status: 'RUNNING' })
        .where('lease_expires_at', '<', trx.fn.now())
        .update({ status: 'FAILED', finished_at: trx.fn.now(), failure_reason: reason, lease_expires_at: null, error_count: trx.raw('error_count + 1') })
        .returning('id');
      if (rows.length) {
        await trx('discovery_run_errors').insert(rows.map((r) => ({ run_id: r.id, address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST' satisfies SharedErrorCode, message: reason })));
      }
      return rows.map((r) => r.id);
    });
    this.recorded(ids.map(() => ({ method: 'RUN', code: 'WORKER_LOST' })));
    return ids;
  }
}
