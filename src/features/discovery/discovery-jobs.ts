// The discovery jobs on the queue: a run per scan (planned into chunks on a worker), a job per
// chunk (any worker takes the next chunk of the run), the targets' schedules, and a sweeper that
// hands the chunks whose worker stopped renewing its lease (it crashed or was killed) back to the
// queue, or fails them after their last attempt, and fails runs lost while planning or loading.
import os from 'node:os';
import type { Logger } from '../../platform/logger.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { DiscoveryRunner } from './discovery-runner.js';
import { CHUNK_JOB, RUN_JOB, type DiscoveryService } from './discovery-service.js';
import type { RunListener } from './run-listener.js';
import type { RunStore } from './run-store.js';

const LEASE_SWEEP_JOB = 'discovery-lease-sweep';
const LEASE_SWEEP_CRON = '*/15 * * * * *';
const SCHEDULE_JOB = 'discovery-schedule';
const SCHEDULE_CRON = '*/30 * * * * *';
export const LEASE_EXPIRED = 'The worker running it stopped reporting (its lease expired); run the scan again.';

export function registerDiscoveryJobs(
  scheduler: Scheduler,
  runner: DiscoveryRunner,
  discovery: DiscoveryService,
  runs: RunStore,
  followUp: RunListener,
  options: { concurrency: number; chunkMaxAttempts: number },
  logger: Logger,
): void {
  const worker = `${os.hostname()}:${process.pid}`;
  // The leases of runs and chunks (in the store) tell live work from dead; a job that the queue
  // hands out again after its lock expired finds the run no longer QUEUED, or no chunk left to
  // take, and does nothing more than a chunk job does then (see whether the run can end).
  scheduler.define<{ runId: string }>(RUN_JOB, (data) => runner.run(data.runId, worker), { concurrency: options.concurrency });
  // A chunk job takes chunks until its run has none left: one slot of the worker stays free for the
  // other jobs (the lease sweep below above all, or a lost worker's chunks would wait for the run).
  scheduler.define<{ runId: string }>(CHUNK_JOB, (data) => runner.runChunk(data.runId, worker), { concurrency: Math.max(1, options.concurrency - 1) });
  scheduler.define(LEASE_SWEEP_JOB, async () => {
    const { requeued, ended } = await runs.expireChunks(options.chunkMaxAttempts);
    if (requeued.length || ended.length) logger.warn('discovery chunks whose lease expired', { requeued: requeued.length, failedOrDropped: ended.length });
    for (const runId of [...requeued, ...ended]) await scheduler.enqueue(CHUNK_JOB, { runId });
    const failed = await runs.failExpired(LEASE_EXPIRED);
    if (failed.length) logger.warn('failed discovery runs whose lease expired', { runs: failed });
    for (const runId of failed) await followUp.runFinished(runId, 'FAILED');
  }, { concurrency: 1 });
  scheduler.defineRecurring({ name: LEASE_SWEEP_JOB, cron: LEASE_SWEEP_CRON });
  // Targets' own schedules: every half minute, the scans whose cron has fired are started.
  scheduler.define(SCHEDULE_JOB, async () => {
    const started = await discovery.startDueScans(new Date());
    if (started) logger.info('scheduled discovery runs started', { started });
  }, { concurrency: 1 });
  scheduler.defineRecurring({ name: SCHEDULE_JOB, cron: SCHEDULE_CRON });
}
