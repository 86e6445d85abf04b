import type { Knex } from 'knex';
import type { PageWindow, RowKey } from '../../platform/http/pagination.js';
import { isUniqueViolation, keysetPage, keyTimeSql, pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import { ALL_ROWS, type CountedGroups, type RowCounts } from '../../platform/postgres/row-counts.js';
import { restoredResult, storedResult, type AddressResult } from './observation-bundle.js';
import { RUN_STATUSES, type ChunkCounts, type RunError, type RunHistory, type RunRecord, type RunStatus, type RunSummary, type RunTrigger } from './run-record.js';
import type { SharedErrorCode } from './shared-scan-errors.js';
import type { AddressChunk } from './target-addresses.js';

const SELECT = [
  'id', 'target_id as targetId', 'target_name as targetName', 'trigger', 'status', 'queued_at as queuedAt', 'started_at as startedAt',
  'finished_at as finishedAt', 'progress_done as progressDone', 'progress_total as progressTotal', 'hosts_responding as hostsResponding',
  'assets_created as assetsCreated', 'assets_updated as assetsUpdated', 'error_count as errorCount', 'cancel_requested as cancelRequested',
  'failure_reason as failureReason', 'credentials_tried as credentialsTried', 'scanner_group as scannerGroup',
];

// A run's chunks by status, and the addresses they hold and have done: its progress is their sum.
const CHUNKS = `(SELECT json_build_object(
  'total', count(*), 'queued', count(*) FILTER (WHERE c.status = 'QUEUED'), 'running', count(*) FILTER (WHERE c.status = 'RUNNING'),
  'done', count(*) FILTER (WHERE c.status = 'DONE'), 'failed', count(*) FILTER (WHERE c.status = 'FAILED'),
  'cancelled', count(*) FILTER (WHERE c.status = 'CANCELLED'), 'addressesDone', coalesce(sum(c.done), 0), 'addresses', coalesce(sum(c.size), 0))
  FROM discovery_run_chunks c WHERE c.run_id = discovery_runs.id) AS chunks`;

type RunRow = Omit<RunRecord, 'chunks'> & { chunks: ChunkCounts & { addressesDone: number; addresses: number } };

/** A run planned in chunks counts its progress there; one from before chunks, in its own columns. */
function toRecord({ chunks: { addressesDone, addresses, ...chunks }, ...run }: RunRow): RunRecord {
  return chunks.total ? { ...run, progressDone: addressesDone, progressTotal: addresses, chunks } : { ...run, chunks };
}

/** A chunk as the worker that took it sees it. */
export interface RunChunk {
  id: string;
  runId: string;
  targetId: string | null;
  seq: number;
  entries: string[];
  size: number;
  first: string;
  last: string;
  attempts: number;
  /** The ids of the credentials a remote scanner's claim gave at this attempt, by method (heldChunk only). */
  givenCredentials?: Record<string, string[]> | null;
}

/** Who takes a chunk: its lease's key (host:pid, or scanner:<id>) and its name as the run's chunk list shows it. */
export interface ChunkHolder {
  worker: string;
  name: string;
}

/** Starts the lease key of a remote scanner (then its id): it tells its chunks from the central workers' (host:pid). */
export const SCANNER_PREFIX = 'scanner:';

/** The columns a take of a chunk sets: one more attempt, held under a lease by this holder. */
function taken(trx: Knex, holder: ChunkHolder, leaseMs: number) {
  return { status: 'RUNNING', attempts: trx.raw('attempts + 1'), worker: holder.worker, worker_name: holder.name, taken_at: trx.fn.now(), lease_expires_at: new Date(Date.now() + leaseMs) };
}

const CHUNK_SELECT = ['id', 'run_id as runId', 'seq', 'entries', 'size', 'first_address as first', 'last_address as last', 'attempts'];

/** A chunk as the run's chunk list shows it (api.yaml, listRunChunks). */
export interface ChunkRow {
  seq: number;
  firstAddress: string;
  lastAddress: string;
  size: number;
  done: number;
  status: 'QUEUED' | 'RUNNING' | 'DONE' | 'FAILED' | 'CANCELLED';
  attempts: number;
  holderKind: 'WORKER' | 'SCANNER' | null;
  holderName: string | null;
  scannerId: string | null;
  takenAt: Date | null;
  finishedAt: Date | null;
}

const CHUNK_ROW = `seq, first_address AS "firstAddress", last_address AS "lastAddress", size, done, status, attempts,
  CASE WHEN worker LIKE '${SCANNER_PREFIX}%' THEN 'SCANNER' WHEN worker IS NOT NULL THEN 'WORKER' END AS "holderKind",
  worker_name AS "holderName", CASE WHEN worker LIKE '${SCANNER_PREFIX}%' THEN substr(worker, ${SCANNER_PREFIX.length + 1}) END AS "scannerId",
  taken_at AS "takenAt", finished_at AS "finishedAt"`;

const ACTIVE_CHUNK = ['QUEUED', 'RUNNING'];

/** Whether a worker holding a chunk goes on: GO; STOP (the run was cancelled or ended); LOST (its lease passed to another). */
export type ChunkState = 'GO' | 'STOP' | 'LOST';

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

  /** A new QUEUED run, of its target's scanner group as the target names it now; undefined when the target already has a QUEUED or RUNNING one. */
  async create(targetId: string, targetName: string, trigger: RunTrigger, trx: Knex = this.db): Promise<RunRecord | undefined> {
    try {
      const scannerGroup = trx('discovery_targets').select('scanner_group').where({ id: targetId });
      const [row] = await trx('discovery_runs').insert({ target_id: targetId, target_name: targetName, scanner_group: scannerGroup, trigger, status: 'QUEUED' }).returning(this.columns(trx));
      return toRecord(row);
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  private columns(db: Knex = this.db) {
    return [...SELECT, db.raw(CHUNKS)];
  }

  async find(id: string): Promise<RunRecord | undefined> {
    const row = await this.db('discovery_runs').select(this.columns()).where({ id }).first();
    return row && toRecord(row);
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
    const shape = (q: typeof base) => q.select([...this.columns(), keyTimeSql(this.db, 'queued_at', 'keyTime')]);
    const { rows, total } = await keysetPage<RunRow & { keyTime: string }>(base, shape, [{ sql: 'queued_at', type: 'timestamp' }, { sql: 'id', type: 'uuid' }], 'desc', window, this.counts.total(RUNS, groupsOf(filter)));
    return { rows: rows.map(({ keyTime, ...run }) => ({ ...toRecord(run), key: [keyTime, run.id] as RowKey })), total };
  }

  /** The target's runs queued before the given time, newest first. */
  async earlier(targetId: string, before: Date, limit: number): Promise<RunRecord[]> {
    const rows = await this.db('discovery_runs').select(this.columns()).where('target_id', targetId).where('queued_at', '<', before).orderBy('queued_at', 'desc').limit(limit);
    return rows.map(toRecord);
  }

  errors(runId: string): Promise<RunError[]> {
    return this.db('discovery_run_errors').select('address', 'method', 'stage', 'code', 'message').where({ run_id: runId }).orderBy('id').limit(ERRORS_SHOWN);
  }

  /** How many error records of each code the run has (all of them, not only those shown). */
  async errorCounts(runId: string): Promise<Record<string, number>> {
    const rows = await this.db('discovery_run_errors').select('code').count<{ code: string; count: string }[]>('* as count').where({ run_id: runId }).groupBy('code').orderBy([{ column: 'count', order: 'desc' }, { column: 'code' }]);
    return Object.fromEntries(rows.map((r) => [r.code, Number(r.count)]));
  }

  /** Takes a QUEUED run for this worker to plan its chunks, under a lease; undefined if it is no longer QUEUED (cancelled, taken). */
  async claim(id: string, worker: string, leaseMs: number): Promise<RunRecord | undefined> {
    const [row] = await this.db('discovery_runs')
      .where({ id, status: 'QUEUED' })
      .update({ status: 'RUNNING', started_at: this.db.fn.now(), worker, lease_expires_at: new Date(Date.now() + leaseMs) })
      .returning(this.columns());
    return row && toRecord(row);
  }

  /** Writes the chunks of a RUNNING run, queued; answers how many (none when it is no longer RUNNING). */
  async plan(id: string, chunks: AddressChunk[]): Promise<number> {
    return this.db.transaction(async (trx) => {
      if (!(await trx('discovery_runs').where({ id, status: 'RUNNING' }).forShare().first('id'))) return 0;
      const rows = chunks.map((c, seq) => ({ run_id: id, seq, entries: c.entries, first_address: c.first, last_address: c.last, size: c.size }));
      // In slices: a /16 of single addresses would pass PostgreSQL's limit of parameters in one statement.
      for (let i = 0; i < rows.length; i += 1000) await trx('discovery_run_chunks').insert(rows.slice(i, i + 1000));
      await trx('discovery_runs').where({ id }).update({ progress_total: chunks.reduce((n, c) => n + c.size, 0) });
      return rows.length;
    });
  }

  /** Ends the planning lease once the chunks are queued, unless the run has begun loading (which holds a lease of its own). */
  async release(id: string, worker: string): Promise<void> {
    await this.db('discovery_runs').where({ id, worker, status: 'RUNNING' }).whereNull('loading_started_at').update({ lease_expires_at: null });
  }

  /** Renews the lease of a run that is loading its results. */
  /** Counts one more host for the method in the run (one statement: workers count at once); answers how many were counted before it. */
  async countHost(runId: string, method: string): Promise<number> {
    const { rows } = await this.db.raw(
      `UPDATE discovery_runs SET method_hosts = jsonb_set(method_hosts, ARRAY[?::text], to_jsonb(COALESCE((method_hosts->>?)::int, 0) + 1))
        WHERE id = ? RETURNING (method_hosts->>?)::int - 1 AS before`,
      [method, method, runId, method],
    );
    return (rows as { before: number }[])[0]?.before ?? 0;
  }

  async renewLease(id: string, leaseMs: number): Promise<void> {
    await this.db('discovery_runs').where({ id, status: 'RUNNING' }).update({ lease_expires_at: new Date(Date.now() + leaseMs) });
  }

  /**
   * Takes the next QUEUED chunk of a RUNNING run of the central workers (no scanner group) for this
   * worker, under a lease; undefined when none is left or the run is cancelled or loading. The
   * run's row is read FOR SHARE (a cancel, which updates it, waits), the chunk FOR UPDATE SKIP
   * LOCKED (workers taking at once get different chunks).
   */
  async takeChunk(runId: string, worker: string, leaseMs: number): Promise<RunChunk | undefined> {
    return this.db.transaction(async (trx) => {
      const run = await trx('discovery_runs').where({ id: runId, status: 'RUNNING', cancel_requested: false }).whereNull('loading_started_at').whereNull('scanner_group').forShare().first('target_id');
      if (!run) return undefined;
      const next = trx('discovery_run_chunks').select('id').where({ run_id: runId, status: 'QUEUED' }).orderBy('seq').limit(1).forUpdate().skipLocked();
      const [chunk] = await trx('discovery_run_chunks')
        .whereIn('id', next)
        .update(taken(trx, { worker, name: worker }, leaseMs))
        .returning(CHUNK_SELECT);
      return chunk && { ...chunk, id: String(chunk.id), targetId: run.target_id };
    });
  }

  /**
   * Takes the next QUEUED chunk of the RUNNING runs of a scanner group (the oldest run first) for a
   * remote scanner, under a lease, as takeChunk does for the central workers.
   */
  async claimChunk(group: string, holder: ChunkHolder, leaseMs: number): Promise<RunChunk | undefined> {
    return this.db.transaction(async (trx) => {
      const { rows: [next] } = await trx.raw<{ rows: { id: string; run_id: string }[] }>(
        `SELECT c.id, c.run_id FROM discovery_run_chunks c JOIN discovery_runs r ON r.id = c.run_id
          WHERE r.status = 'RUNNING' AND r.scanner_group = ? AND NOT r.cancel_requested AND r.loading_started_at IS NULL AND c.status = 'QUEUED'
          ORDER BY r.queued_at, c.seq LIMIT 1 FOR UPDATE OF c SKIP LOCKED`, [group]);
      if (!next) return undefined;
      // The run's row as a take reads it: a cancel that comes at the same time waits or is seen.
      const run = await trx('discovery_runs').where({ id: next.run_id, status: 'RUNNING', cancel_requested: false }).whereNull('loading_started_at').forShare().first('target_id');
      if (!run) return undefined;
      const [chunk] = await trx('discovery_run_chunks')
        .where({ id: next.id })
        .update(taken(trx, holder, leaseMs))
        .returning(CHUNK_SELECT);
      return { ...chunk, id: String(chunk.id), targetId: run.target_id };
    });
  }

  /** A page of a run's chunks in their order, each with its latest attempt's holder (as ChunkRow). */
  chunkPage(runId: string, page: number, size: number): Promise<{ rows: ChunkRow[]; total: number }> {
    return pagedQuery<ChunkRow>(
      this.db('discovery_run_chunks').where('run_id', runId),
      (q) => q.select(this.db.raw(CHUNK_ROW)).orderBy('seq'),
      page,
      size,
    );
  }

  /** The chunk as its holder saw it when it took it: RUNNING, held by this worker at this attempt (a remote scanner's requests each name it); undefined otherwise. */
  async heldChunk(id: string, worker: string, attempts: number): Promise<RunChunk | undefined> {
    const chunk = await this.db('discovery_run_chunks as c').join('discovery_runs as r', 'r.id', 'c.run_id')
      .where({ 'c.id': id, 'c.worker': worker, 'c.attempts': attempts, 'c.status': 'RUNNING' })
      .first([...CHUNK_SELECT.map((c) => `c.${c}`), 'r.target_id as targetId', 'c.given_credentials as givenCredentials']);
    return chunk && { ...chunk, id: String(chunk.id) };
  }

  /** Records the credentials a remote scanner's claim gave for the chunk at this attempt (what its reports may name). */
  async recordGiven(id: string, attempts: number, given: Record<string, string[]>): Promise<void> {
    await this.db('discovery_run_chunks').where({ id, attempts }).update({ given_credentials: JSON.stringify(given) });
  }

  /** How a chunk taken by this worker at this attempt ended (DONE, CANCELLED, FAILED), if it did: a remote scanner's retried end finds its first. */
  async endedAs(id: string, worker: string, attempts: number): Promise<string | undefined> {
    const row = await this.db('discovery_run_chunks').where({ id, worker, attempts }).whereNotIn('status', ACTIVE_CHUNK).first('status');
    return row?.status;
  }

  /** The addresses of the chunk already scanned (by an earlier attempt): they are not scanned again. */
  doneAddresses(chunkId: string): Promise<string[]> {
    return this.db('discovery_run_results').where({ chunk_id: chunkId }).pluck('address');
  }

  /**
   * Keeps what the chunk scanned since its last report (each address once, whoever scanned it),
   * counts its addresses done and renews its lease, in one transaction; answers whether to go on.
   */
  async saveProgress(chunk: RunChunk, worker: string, results: { address: string; result: AddressResult }[], leaseMs: number): Promise<ChunkState> {
    return this.db.transaction(async (trx) => {
      if (results.length) {
        await trx('discovery_run_results')
          .insert(results.map((r) => ({ run_id: chunk.runId, chunk_id: chunk.id, address: r.address, result: storedResult(r.result) })))
          .onConflict(['chunk_id', 'address'])
          .ignore();
      }
      const held = await trx('discovery_run_chunks')
        .where({ id: chunk.id, worker, attempts: chunk.attempts, status: 'RUNNING' })
        .update({ done: trx.raw('(SELECT count(*) FROM discovery_run_results WHERE chunk_id = ?)', [chunk.id]), lease_expires_at: new Date(Date.now() + leaseMs) });
      if (!held) return 'LOST';
      const run = await trx('discovery_runs').where({ id: chunk.runId }).first('status', 'cancel_requested');
      return run?.status === 'RUNNING' && !run.cancel_requested ? 'GO' : 'STOP';
    });
  }

  /** Ends a chunk this worker holds (DONE, or CANCELLED when its run stopped); false when it no longer holds it. */
  async endChunk(chunk: RunChunk, worker: string, status: 'DONE' | 'CANCELLED', trx: Knex = this.db): Promise<boolean> {
    return (await trx('discovery_run_chunks').where({ id: chunk.id, worker, attempts: chunk.attempts, status: 'RUNNING' }).update({ status, finished_at: trx.fn.now(), lease_expires_at: null })) > 0;
  }

  /** Fails a chunk this worker holds on an unexpected error, with the record naming it. */
  async failChunk(chunk: RunChunk, worker: string, error: RunError): Promise<void> {
    const failed = await this.db('discovery_run_chunks').where({ id: chunk.id, worker, status: 'RUNNING' }).update({ status: 'FAILED', finished_at: this.db.fn.now(), lease_expires_at: null });
    if (failed) await this.addErrors(chunk.runId, [error]);
  }

  /**
   * After a chunk ended: when none of the run is queued or running, the one caller that gets here
   * first (the run's row locked) ends a cancelled run (CANCELLED), or marks the run as loading
   * its results under this worker's lease (LOAD); undefined otherwise. The same lock refuses a
   * cancel once loading.
   */
  async conclude(id: string, worker: string, leaseMs: number): Promise<'LOAD' | 'CANCELLED' | undefined> {
    return this.db.transaction(async (trx) => {
      const run = await trx('discovery_runs').where({ id, status: 'RUNNING' }).whereNull('loading_started_at').forUpdate().first('cancel_requested');
      if (!run) return undefined;
      const { rows: [chunks] } = await trx.raw<{ rows: { active: string; total: string }[] }>(
        'SELECT count(*) FILTER (WHERE status IN (?, ?)) AS active, count(*) AS total FROM discovery_run_chunks WHERE run_id = ?', [...ACTIVE_CHUNK, id]);
      if (Number(chunks?.total) === 0 || Number(chunks?.active) > 0) return undefined;
      if (run.cancel_requested) {
        await this.end(trx, id, 'CANCELLED', undefined);
        return 'CANCELLED';
      }
      await trx('discovery_runs').where({ id }).update({ loading_started_at: trx.fn.now(), worker, lease_expires_at: new Date(Date.now() + leaseMs) });
      return 'LOAD';
    });
  }

  /** What every chunk of the run scanned, in the order it was kept. */
  async results(runId: string): Promise<AddressResult[]> {
    const rows: { result: AddressResult }[] = await this.db('discovery_run_results').select('result').where({ run_id: runId }).orderBy('id');
    return rows.map((r) => restoredResult(r.result));
  }

  /** Adds credentials to those the run offered (its chunks each report theirs). */
  async recordCredentialsTried(runId: string, ids: string[], trx: Knex = this.db): Promise<void> {
    if (ids.length) {
      await trx('discovery_runs').where({ id: runId }).update({ credentials_tried: this.db.raw('ARRAY(SELECT DISTINCT unnest(credentials_tried || ?::uuid[]))', [ids]) });
    }
  }

  async addErrors(runId: string, errors: RunError[]): Promise<void> {
    if (errors.length === 0) return;
    await this.db('discovery_run_errors').insert(errors.map((e) => ({ run_id: runId, ...e, message: e.message.slice(0, 1000) })));
    await this.db('discovery_runs').where({ id: runId }).increment('error_count', errors.length);
    this.recorded(errors);
  }

  /** Ends a RUNNING run; false when it was no longer RUNNING (so that one caller follows up). */
  async finish(id: string, status: RunStatus, summary: RunSummary | undefined, failureReason?: string): Promise<boolean> {
    return this.db.transaction((trx) => this.end(trx, id, status, summary, failureReason));
  }

  /** Ends a RUNNING run in the transaction: its chunks not done are dropped, what they kept is deleted (loaded by now, or never to be). */
  private async end(trx: Knex, id: string, status: RunStatus, summary: RunSummary | undefined, failureReason?: string): Promise<boolean> {
    const updated = await trx('discovery_runs')
      .where({ id, status: 'RUNNING' })
      .update({
        status,
        finished_at: trx.fn.now(),
        lease_expires_at: null,
        failure_reason: failureReason ?? null,
        ...(summary ? { hosts_responding: summary.hostsResponding, assets_created: summary.assetsCreated, assets_updated: summary.assetsUpdated } : {}),
      });
    if (updated) await this.dropChunks(trx, [id]);
    return updated > 0;
  }

  private async dropChunks(trx: Knex, runIds: string[]): Promise<void> {
    await trx('discovery_run_chunks').whereIn('run_id', runIds).whereIn('status', ACTIVE_CHUNK).update({ status: 'CANCELLED', finished_at: trx.fn.now(), lease_expires_at: null });
    await trx('discovery_run_results').whereIn('run_id', runIds).delete();
  }

  /**
   * A QUEUED run is cancelled at once; a RUNNING one drops its queued chunks and is asked to stop
   * (its running chunks stop at their next report, the last one ends it), or ends at once when no
   * chunk is running; a run that is loading its results is not cancelled.
   */
  async cancel(id: string, trx: Knex = this.db): Promise<'CANCELLED' | 'REQUESTED' | 'LOADING' | 'ENDED'> {
    const queued = await trx('discovery_runs').where({ id, status: 'QUEUED' }).update({ status: 'CANCELLED', finished_at: trx.fn.now() });
    if (queued) return 'CANCELLED';
    const running = await trx('discovery_runs').where({ id, status: 'RUNNING' }).whereNull('loading_started_at').update({ cancel_requested: true });
    if (running) {
      await trx('discovery_run_chunks').where({ run_id: id, status: 'QUEUED' }).update({ status: 'CANCELLED', finished_at: trx.fn.now() });
      if (await trx('discovery_run_chunks').where({ run_id: id, status: 'RUNNING' }).first('id')) return 'REQUESTED';
      await this.end(trx, id, 'CANCELLED', undefined);
      return 'CANCELLED';
    }
    return (await trx('discovery_runs').where({ id, status: 'RUNNING' }).first('id')) ? 'LOADING' : 'ENDED';
  }

  /**
   * The chunks whose worker stopped renewing its lease: back to the queue, or FAILED with a
   * WORKER_LOST record naming the chunk once it has used `maxAttempts`, or CANCELLED when their
   * run was cancelled or has ended. Answers the run of each chunk queued again or ended, once per
   * chunk (each needs a worker: to take it, or to conclude the run).
   */
  async expireChunks(maxAttempts: number): Promise<{ requeued: string[]; ended: string[] }> {
    const runIds: string[] = await this.db('discovery_run_chunks').distinct('run_id').where({ status: 'RUNNING' }).where('lease_expires_at', '<', this.db.fn.now()).pluck('run_id');
    const requeued: string[] = [];
    const ended: string[] = [];
    for (const runId of runIds) {
      const lost = await this.db.transaction(async (trx) => {
        // The run's row first, as a take does: a cancel that comes at the same time waits or is seen.
        const run = await trx('discovery_runs').where({ id: runId }).forShare().first('status', 'cancel_requested');
        const stopped = !run || run.status !== 'RUNNING' || run.cancel_requested;
        const rows: { status: string; first: string; last: string; size: number; done: number; attempts: number }[] = await trx('discovery_run_chunks')
          .where({ run_id: runId, status: 'RUNNING' })
          .where('lease_expires_at', '<', trx.fn.now())
          .update({
            status: trx.raw(`CASE WHEN ? THEN 'CANCELLED' WHEN attempts >= ? THEN 'FAILED' ELSE 'QUEUED' END`, [stopped, maxAttempts]),
            finished_at: trx.raw('CASE WHEN ? OR attempts >= ? THEN now() END', [stopped, maxAttempts]),
            lease_expires_at: null,
          })
          .returning(['status', 'first_address as first', 'last_address as last', 'size', 'done', 'attempts']);
        const failed = rows.filter((r) => r.status === 'FAILED');
        const errors = failed.map((c): RunError => ({
          address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST' satisfies SharedErrorCode,
          message: `The chunk ${c.first} to ${c.last} (${c.size} addresses) was lost with its worker (its lease expired) on attempt ${c.attempts} of ${maxAttempts}: ${c.size - c.done} of its addresses were not scanned.`,
        }));
        if (errors.length) {
          await trx('discovery_run_errors').insert(errors.map((e) => ({ run_id: runId, ...e })));
          await trx('discovery_runs').where({ id: runId }).increment('error_count', errors.length);
        }
        for (const r of rows) (r.status === 'QUEUED' ? requeued : ended).push(runId);
        return errors;
      });
      this.recorded(lost);
    }
    return { requeued, ended };
  }

  /** Fails the RUNNING runs whose planning or loading worker stopped renewing its lease, with a WORKER_LOST record each; answers their ids. */
  async failExpired(reason: string): Promise<string[]> {
    const ids = await this.db.transaction(async (trx) => {
      const rows: { id: string }[] = await trx('discovery_runs')
        .where({ status: 'RUNNING' })
        .where('lease_expires_at', '<', trx.fn.now())
        .update({ status: 'FAILED', finished_at: trx.fn.now(), failure_reason: reason, lease_expires_at: null, error_count: trx.raw('error_count + 1') })
        .returning('id');
      if (rows.length) {
        await trx('discovery_run_errors').insert(rows.map((r) => ({ run_id: r.id, address: null, method: 'RUN', stage: 'run', code: 'WORKER_LOST' satisfies SharedErrorCode, message: reason })));
        await this.dropChunks(trx, rows.map((r) => r.id));
      }
      return rows.map((r) => r.id);
    });
    this.recorded(ids.map(() => ({ method: 'RUN', code: 'WORKER_LOST' })));
    return ids;
  }
}
