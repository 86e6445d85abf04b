// Scans and runs: a scan queues a run (one QUEUED or RUNNING run per target at a time) and a job
// for the workers, which plans its chunks and queues a job for each; runs are listed newest first
// and can be cancelled.
import { CronExpressionParser } from 'cron-parser';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { pageWindow, windowed, type PageRequest, type WindowedRows } from '../../platform/http/pagination.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { components } from '../../platform/http/api-types.js';
import type { ChunkRow, RunStore } from './run-store.js';
import type { ChunkCounts, RunError, RunRecord, RunStatus } from './run-record.js';
import type { HostStateStore, RunHostRow } from './host-state-store.js';
import type { TargetStore } from './target-store.js';

export const RUN_JOB = 'discovery-run';
export const CHUNK_JOB = 'discovery-run-chunk';

export interface RunView {
  id: string;
  targetId: string | null;
  targetName: string;
  trigger: string;
  status: RunStatus;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: { done: number; total: number };
  chunks: ChunkCounts;
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
  failureReason: string | null;
  scannerGroup: string | null;
  errors?: RunError[];
}

export type RunChunkView = components['schemas']['RunChunk'];

function toChunkView({ holderKind, holderName, scannerId, takenAt, finishedAt, ...chunk }: ChunkRow): RunChunkView {
  return {
    ...chunk,
    ranBy: holderKind ? { kind: holderKind, name: holderName ?? '', scannerId } : null,
    takenAt: takenAt?.toISOString() ?? null,
    finishedAt: finishedAt?.toISOString() ?? null,
  };
}

export function toRunView(run: RunRecord, errors?: RunError[]): RunView {
  return {
    id: run.id,
    targetId: run.targetId,
    targetName: run.targetName,
    trigger: run.trigger,
    status: run.status,
    queuedAt: run.queuedAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    progress: { done: run.progressDone, total: run.progressTotal },
    chunks: run.chunks,
    summary: { hostsResponding: run.hostsResponding, assetsCreated: run.assetsCreated, assetsUpdated: run.assetsUpdated, errors: run.errorCount },
    failureReason: run.failureReason,
    scannerGroup: run.scannerGroup,
    ...(errors ? { errors } : {}),
  };
}

export class DiscoveryService {
  constructor(
    private readonly runs: RunStore,
    private readonly targets: TargetStore,
    private readonly scheduler: Scheduler,
    private readonly audit: AuditLog,
    private readonly hostState: HostStateStore,
  ) {}

  async scan(actor: Actor, targetId: string): Promise<RunView> {
    const target = await this.targets.find(targetId);
    if (!target) throw new NotFoundError(`No discovery target with id ${targetId}.`);
    if (!target.enabled) throw new ConflictError(`The target "${target.name}" is disabled.`);
    const run = await this.audit.write(actor, (trx) => this.runs.create(target.id, target.name, 'MANUAL', trx), (created) =>
      created && { action: 'target.scan', targetKind: 'DISCOVERY_TARGET', targetId: target.id, details: { runId: created.id, name: target.name } });
    if (!run) throw new ConflictError(`A run of "${target.name}" is already queued or running.`);
    // Queued once the run is committed: a worker that claimed it sooner would find no run.
    await this.scheduler.enqueue(RUN_JOB, { runId: run.id });
    return toRunView(run);
  }

  /**
   * Starts a SCHEDULED run of every target whose cron fired since the fire time it last acted on.
   * A target that still has a run going skips that fire time.
   */
  async startDueScans(now: Date): Promise<number> {
    let started = 0;
    for (const target of await this.targets.scheduled()) {
      const fireTime = CronExpressionParser.parse(target.schedule, { tz: 'UTC', currentDate: now }).prev().toDate();
      if (fireTime <= target.since || !(await this.targets.takeFireTime(target.id, fireTime))) continue;
      const run = await this.runs.create(target.id, target.name, 'SCHEDULED');
      if (!run) continue;
      await this.scheduler.enqueue(RUN_JOB, { runId: run.id });
      started++;
    }
    return started;
  }

  async list(filter: { targetId?: string; statuses?: RunStatus[] }, request: PageRequest): Promise<{ page: WindowedRows<RunView>; total: number }> {
    // The last page needs the total to know its size; every other page reads beside the count.
    const total = request.cursor && 'tail' in request.cursor ? await this.runs.count(filter) : undefined;
    const window = pageWindow(request, total);
    const { rows, total: counted } = await this.runs.list(filter, window);
    const page = windowed(window, rows, (r) => r.key);
    return { page: { ...page, rows: page.rows.map(({ key: _key, ...r }) => toRunView(r)) }, total: counted };
  }

  async get(id: string): Promise<RunView> {
    const run = await this.runs.find(id);
    if (!run) throw new NotFoundError(`No discovery run with id ${id}.`);
    return toRunView(run, await this.runs.errors(id));
  }

  /** The hosts a run reached: the asset each became, and the identity rule that matched it. */
  async hosts(id: string, page: number, size: number): Promise<{ rows: RunHostRow[]; total: number }> {
    if (!(await this.runs.find(id))) throw new NotFoundError(`No discovery run with id ${id}.`);
    return this.hostState.runHosts(id, page, size);
  }

  async chunks(id: string, page: number, size: number): Promise<{ rows: RunChunkView[]; total: number }> {
    if (!(await this.runs.find(id))) throw new NotFoundError(`No discovery run with id ${id}.`);
    const { rows, total } = await this.runs.chunkPage(id, page, size);
    return { rows: rows.map(toChunkView), total };
  }

  async cancel(actor: Actor, id: string): Promise<RunView> {
    const run = await this.runs.find(id);
    if (!run) throw new NotFoundError(`No discovery run with id ${id}.`);
    const outcome = await this.audit.write(actor, (trx) => this.runs.cancel(id, trx), (done) =>
      done === 'ENDED' || done === 'LOADING' ? undefined : { action: 'run.cancel', targetKind: 'DISCOVERY_RUN', targetId: id, details: { outcome: done } });
    if (outcome === 'ENDED') throw new ConflictError(`The run has already ended (${run.status}).`);
    if (outcome === 'LOADING') throw new ConflictError('The run has scanned every address and is loading what it found: it can no longer be cancelled.');
    return this.get(id);
  }
}
