// The team-chat alert of a run that finished with errors: raised once per run, delivered with the
// run's diagnosis when it has one, and retried with doubling back-off up to a bounded number of
// attempts. The outcome is kept per run. The webhook URL is a secret: it goes to fetch and nowhere
// else (not to logs, errors or answers).
import type { AlertFormat } from '../../platform/config.js';
import { NotFoundError } from '../../platform/errors.js';
import { OutboundHttpError, postJson } from '../../platform/http/outbound-http.js';
import type { Logger } from '../../platform/logger.js';
import { STATUSES_WITH_ERRORS, type RunHistory, type RunRecord } from '../discovery/run-record.js';
import type { DiagnosisService } from '../diagnosis/diagnosis-service.js';
import { alertMessage, type AlertContent } from './alert-message.js';
import type { AlertStatus, AlertStore } from './alert-store.js';

export interface AlertSettings {
  webhookUrl?: string;
  format: AlertFormat;
  maxAttempts: number;
  /** Wait before the first retry; each further retry waits twice as long. */
  retryDelayMs: number;
  timeoutMs: number;
  /** Public base URL of the service with its context path: where the links in alerts point. */
  linkBase: string;
}

export type AlertView =
  | { runId: string; status: 'NONE' }
  | {
      runId: string;
      status: AlertStatus;
      format: AlertFormat;
      attempts: number;
      lastAttemptAt: string | null;
      nextAttemptAt: string | null;
      deliveredAt: string | null;
      lastError: string | null;
    };

const FIRST_ACTIONS = 3;

export class AlertService {
  private readonly logger: Logger;

  constructor(
    private readonly settings: AlertSettings,
    private readonly store: AlertStore,
    private readonly runs: RunHistory,
    private readonly diagnosis: DiagnosisService,
    logger: Logger,
  ) {
    this.logger = logger.child({ module: 'alerts' });
  }

  get configured(): boolean {
    return this.settings.webhookUrl !== undefined;
  }

  async get(runId: string): Promise<AlertView> {
    if (!(await this.runs.find(runId))) throw new NotFoundError(`No discovery run with id ${runId}.`);
    const alert = await this.store.find(runId);
    if (!alert) return { runId, status: 'NONE' };
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    return { ...alert, lastAttemptAt: iso(alert.lastAttemptAt), nextAttemptAt: iso(alert.nextAttemptAt), deliveredAt: iso(alert.deliveredAt) };
  }

  /** Raises the alert of a run that finished with errors and tries it; answers when to retry, if a retry is due. */
  async raise(runId: string): Promise<Date | undefined> {
    const run = await this.runs.find(runId);
    if (!this.configured || !run || !STATUSES_WITH_ERRORS.includes(run.status)) return undefined;
    await this.store.open(runId, this.settings.format);
    return this.deliver(runId);
  }

  /** Tries a PENDING alert once; answers when to retry, if a retry is due. */
  async deliver(runId: string): Promise<Date | undefined> {
    const [alert, run] = await Promise.all([this.store.find(runId), this.runs.find(runId)]);
    const { webhookUrl, maxAttempts, retryDelayMs, timeoutMs } = this.settings;
    if (!webhookUrl || !alert || alert.status !== 'PENDING' || !run) return undefined;
    const attempts = alert.attempts + 1;
    try {
      await postJson(webhookUrl, alertMessage(alert.format, await this.content(run)), { timeoutMs });
    } catch (error) {
      if (!(error instanceof OutboundHttpError)) throw error;
      const retryAt = attempts < maxAttempts ? new Date(Date.now() + retryDelayMs * 2 ** (attempts - 1)) : undefined;
      await this.store.failedAttempt(runId, attempts, `The webhook ${error.reason}.`, retryAt);
      this.logger.warn(retryAt ? 'alert not delivered; it will be retried' : 'alert not delivered; no attempts left', { runId, attempts, reason: error.reason, retryAt });
      return retryAt;
    }
    await this.store.delivered(runId, attempts);
    this.logger.info('alert delivered', { runId, attempts });
    return undefined;
  }

  private async content(run: RunRecord): Promise<AlertContent> {
    const [errorCounts, diagnosis] = await Promise.all([this.runs.errorCounts(run.id), this.diagnosis.get(run.id)]);
    return {
      targetName: run.targetName,
      status: run.status,
      errorCounts,
      failureReason: run.failureReason,
      runUrl: `${this.settings.linkBase}/api/v1/discovery/runs/${run.id}`,
      ...(diagnosis.status === 'OK' ? { diagnosis: { summary: diagnosis.summary, actions: diagnosis.recommendedActions.slice(0, FIRST_ACTIONS) } } : {}),
    };
  }
}
