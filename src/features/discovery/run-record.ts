// A discovery run as the rest of the service sees it: its record, statuses and errors, and the
// history other features read (alerts and diagnosis), kept apart from the store that holds them.

export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses of a run that finished with errors: it gets a diagnosis and an alert. */
export const STATUSES_WITH_ERRORS: readonly RunStatus[] = ['FAILED', 'COMPLETED_WITH_ERRORS'];
export type RunTrigger = 'MANUAL' | 'SCHEDULED';

/** A run's chunks by status: QUEUED, RUNNING (held by a worker's lease), DONE, FAILED (its attempts used), CANCELLED (dropped). */
export interface ChunkCounts {
  total: number;
  queued: number;
  running: number;
  done: number;
  failed: number;
  cancelled: number;
}

export interface RunRecord {
  id: string;
  targetId: string | null;
  targetName: string;
  trigger: RunTrigger;
  status: RunStatus;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  progressDone: number;
  progressTotal: number;
  hostsResponding: number;
  assetsCreated: number;
  assetsUpdated: number;
  errorCount: number;
  cancelRequested: boolean;
  failureReason: string | null;
  credentialsTried: string[];
  /** The group of remote scanners that takes its chunks; null: the central workers. */
  scannerGroup: string | null;
  chunks: ChunkCounts;
}

export interface RunError {
  address: string | null;
  method: string;
  stage: string;
  /** One of the codes the registry gathers (SCAN_ERRORS in connectors/registry.ts). */
  code: string;
  message: string;
}

export interface RunSummary {
  hostsResponding: number;
  assetsCreated: number;
  assetsUpdated: number;
}

/** The runs other features read: one run, its errors, and the target's earlier runs. */
export interface RunHistory {
  find(id: string): Promise<RunRecord | undefined>;
  earlier(targetId: string, before: Date, limit: number): Promise<RunRecord[]>;
  errors(runId: string): Promise<RunError[]>;
  errorCounts(runId: string): Promise<Record<string, number>>;
}
