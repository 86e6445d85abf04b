// What happens after a run finishes with errors, in jobs of its own so that nothing here can fail
// or slow the run: one job diagnoses the run and then raises its alert (with the diagnosis when
// there is one, without it when the diagnosis is off or failed); another retries the delivery
// after its back-off.
import type { Logger } from '../../platform/logger.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import { STATUSES_WITH_ERRORS, type RunStatus } from '../discovery/run-record.js';
import type { DiagnosisService } from '../diagnosis/diagnosis-service.js';
import type { AlertService } from './alert-service.js';

export const FOLLOW_UP_JOB = 'run-follow-up';
export const ALERT_RETRY_JOB = 'run-alert-retry';

type RunJob = { runId: string };

export class RunFollowUp {
  private readonly logger: Logger;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly diagnosis: DiagnosisService,
    private readonly alerts: AlertService,
    logger: Logger,
  ) {
    this.logger = logger.child({ module: 'run-follow-up' });
  }

  /** Called once by whoever ended the run. Never throws: the run has ended, whatever happens here. */
  async runFinished(runId: string, status: RunStatus): Promise<void> {
    if (!STATUSES_WITH_ERRORS.includes(status) || (!this.diagnosis.enabled && !this.alerts.configured)) return;
    try {
      await this.scheduler.enqueue<RunJob>(FOLLOW_UP_JOB, { runId });
    } catch (error) {
      this.logger.warn('could not queue the diagnosis and alert of a run', { runId, error });
    }
  }

  register(): void {
    this.scheduler.define<RunJob>(FOLLOW_UP_JOB, async ({ runId }) => {
      await this.diagnosis.diagnoseFinished(runId).catch((error: unknown) => this.logger.warn('diagnosis of a finished run failed', { runId, error }));
      await this.retryLater(runId, await this.alerts.raise(runId));
    });
    this.scheduler.define<RunJob>(ALERT_RETRY_JOB, async ({ runId }) => {
      await this.retryLater(runId, await this.alerts.deliver(runId));
    });
  }

  private async retryLater(runId: string, at: Date | undefined): Promise<void> {
    if (at) await this.scheduler.enqueueAt<RunJob>(ALERT_RETRY_JOB, { runId }, at);
  }
}
