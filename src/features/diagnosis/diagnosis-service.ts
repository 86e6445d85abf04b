// The diagnosis of runs that finished with errors (docs/interface.md §2.6 and 3.2): gathers what may be known of
// a run (never a secret), asks the configured provider, and stores the outcome of the attempt in
// place of the previous one. A provider that fails gives status ERROR with a reason that is safe
// to show; it never fails the caller.
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { CredentialKindLookup } from '../credentials/credential-kinds.js';
import { STATUSES_WITH_ERRORS, type RunError, type RunHistory, type RunRecord } from '../discovery/run-record.js';
import { portOf, type TargetLookup } from '../discovery/target-record.js';
import { DiagnosisFailure, type DiagnosisAnswer, type DiagnosisContext, type DiagnosisProvider } from './diagnosis-provider.js';
import type { DiagnosisOutcome, DiagnosisRecord, DiagnosisStore } from './diagnosis-store.js';

export type DiagnosisView =
  | { runId: string; status: 'DISABLED' | 'NOT_APPLICABLE' | 'NONE' }
  | ({ runId: string; status: 'OK'; model: string; createdAt: string } & DiagnosisAnswer)
  | { runId: string; status: 'ERROR'; reason: string; model: string; createdAt: string };

// What the provider sees of a large run: enough to recognise the pattern, not every record.
const ERRORS_PER_CODE = 3;
const ERRORS_SHOWN = 30;
const TARGET_ADDRESSES_SHOWN = 50;
const PREVIOUS_RUNS = 5;

/** ISO 8601 without zone (docs/interface.md §2.6), in UTC: 2026-11-22T05:40:12.123. */
const withoutZone = (date: Date) => date.toISOString().slice(0, -1);

function toView(record: DiagnosisRecord): DiagnosisView {
  const { runId, model } = record;
  const createdAt = withoutZone(record.createdAt);
  return record.status === 'OK' ? { runId, status: 'OK', ...record.answer, model, createdAt } : { runId, status: 'ERROR', reason: record.reason, model, createdAt };
}

/** The first few records of each code. */
function sample(errors: RunError[]): RunError[] {
  const seen = new Map<string, number>();
  return errors
    .filter((e) => {
      const n = seen.get(e.code) ?? 0;
      seen.set(e.code, n + 1);
      return n < ERRORS_PER_CODE;
    })
    .slice(0, ERRORS_SHOWN);
}

export class DiagnosisService {
  private readonly logger: Logger;

  constructor(
    readonly enabled: boolean,
    private readonly provider: DiagnosisProvider,
    private readonly store: DiagnosisStore,
    private readonly runs: RunHistory,
    private readonly targets: TargetLookup,
    private readonly credentials: CredentialKindLookup,
    private readonly audit: AuditLog,
    logger: Logger,
  ) {
    this.logger = logger.child({ module: 'diagnosis' });
  }

  /** The diagnosis of a run, or the status that says why there is none (3.2). */
  async get(runId: string): Promise<DiagnosisView> {
    const run = await this.find(runId);
    if (!this.enabled) return { runId, status: 'DISABLED' };
    if (!STATUSES_WITH_ERRORS.includes(run.status)) return { runId, status: 'NOT_APPLICABLE' };
    const stored = await this.store.find(runId);
    return stored ? toView(stored) : { runId, status: 'NONE' };
  }

  /** Generates or refreshes the diagnosis of a FAILED or COMPLETED_WITH_ERRORS run. */
  async refresh(actor: Actor, runId: string): Promise<DiagnosisView> {
    const run = await this.find(runId);
    if (!this.enabled) return { runId, status: 'DISABLED' };
    if (!STATUSES_WITH_ERRORS.includes(run.status)) {
      throw new ConflictError(`Only a run that finished with errors (${STATUSES_WITH_ERRORS.join(' or ')}) has a diagnosis; this one is ${run.status}.`);
    }
    const outcome = await this.diagnose(run);
    const record = await this.audit.write(actor, (trx) => this.store.save(run.id, this.provider.model, outcome, trx), (saved) => ({
      action: 'run.diagnose', targetKind: 'DISCOVERY_RUN', targetId: runId, details: { status: saved.status, model: saved.model },
    }));
    return toView(record);
  }

  /** The follow-up of a finished run: diagnoses it when the feature is on and the run has errors. */
  async diagnoseFinished(runId: string): Promise<void> {
    const run = await this.runs.find(runId);
    if (run && this.enabled && STATUSES_WITH_ERRORS.includes(run.status)) await this.store.save(run.id, this.provider.model, await this.diagnose(run));
  }

  private async find(runId: string): Promise<RunRecord> {
    const run = await this.runs.find(runId);
    if (!run) throw new NotFoundError(`No discovery run with id ${runId}.`);
    return run;
  }

  /** What the model makes of a run's errors, or why it made nothing; stored by the caller. */
  private async diagnose(run: RunRecord): Promise<DiagnosisOutcome> {
    const context = await this.context(run);
    try {
      return { status: 'OK', answer: await this.provider.diagnose(context) };
    } catch (error) {
      const known = error instanceof DiagnosisFailure;
      const reason = known ? error.message : 'The diagnosis stopped on an unexpected error.';
      this.logger.warn('diagnosis failed', { runId: run.id, model: this.provider.model, reason, ...(known ? {} : { error }) });
      return { status: 'ERROR', reason };
    }
  }

  private async context(run: RunRecord): Promise<DiagnosisContext> {
    const target = run.targetId ? await this.targets.find(run.targetId) : undefined;
    const [errorCounts, errors, credentialKinds, previous] = await Promise.all([
      this.runs.errorCounts(run.id),
      this.runs.errors(run.id),
      this.credentials.kinds(run.credentialsTried.length ? run.credentialsTried : (target?.credentialIds ?? [])),
      target ? this.runs.earlier(target.id, run.queuedAt, PREVIOUS_RUNS) : [],
    ]);
    return {
      run: {
        id: run.id,
        status: run.status,
        trigger: run.trigger,
        queuedAt: run.queuedAt.toISOString(),
        startedAt: run.startedAt?.toISOString() ?? null,
        finishedAt: run.finishedAt?.toISOString() ?? null,
        failureReason: run.failureReason,
        addressesDone: run.progressDone,
        addressesTotal: run.progressTotal,
        hostsResponding: run.hostsResponding,
        errorCount: run.errorCount,
      },
      errorCounts,
      errors: sample(errors),
      target: target
        ? { name: target.name, addresses: target.addresses.slice(0, TARGET_ADDRESSES_SHOWN), methods: target.methods, sshPort: portOf(target, 'SSH'), snmpPort: portOf(target, 'SNMP') }
        : null,
      credentialKinds,
      previousRuns: previous.map((r) => ({ status: r.status, finishedAt: r.finishedAt?.toISOString() ?? null, errorCount: r.errorCount })),
    };
  }
}
