// The maintenance jobs, registered on the job queue (recurring, and the retention sweep and the
// compaction of row counts once after each start) and runnable now by name for operators and tests.
import { NotFoundError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { RowCounts } from '../../platform/postgres/row-counts.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { AgingSweep } from './aging-sweep.js';
import type { RetentionSweep } from './retention-sweep.js';

export const MAINTENANCE_JOBS = ['retention-sweep', 'aging-sweep', 'row-count-compaction'] as const;
export type MaintenanceJob = (typeof MAINTENANCE_JOBS)[number];

export class MaintenanceJobs {
  private readonly runners: Record<MaintenanceJob, () => Promise<Record<string, number>>>;

  constructor(
    retention: RetentionSweep,
    aging: AgingSweep,
    rowCounts: RowCounts,
    private readonly logger: Logger,
  ) {
    this.runners = {
      'retention-sweep': async () => ({ ...(await retention.run()) }),
      'aging-sweep': async () => ({ ...(await aging.run()) }),
      'row-count-compaction': async () => ({ changesFolded: await rowCounts.compact() }),
    };
  }

  register(scheduler: Scheduler, crons: Record<MaintenanceJob, string>): void {
    for (const name of MAINTENANCE_JOBS) {
      scheduler.define(name, async () => {
        await this.run(name);
      }, { concurrency: 1 });
      scheduler.defineRecurring({ name, cron: crons[name], runAfterStart: name !== 'aging-sweep' });
    }
  }

  async run(name: string): Promise<{ job: MaintenanceJob; startedAt: string; finishedAt: string; summary: Record<string, number> }> {
    if (!(MAINTENANCE_JOBS as readonly string[]).includes(name)) throw new NotFoundError(`No job named ${name}; jobs: ${MAINTENANCE_JOBS.join(', ')}.`);
    const job = name as MaintenanceJob;
    const startedAt = new Date().toISOString();
    const summary = await this.runners[job]();
    this.logger.info('maintenance job done', { job, ...summary });
    return { job, startedAt, finishedAt: new Date().toISOString(), summary };
  }
}
