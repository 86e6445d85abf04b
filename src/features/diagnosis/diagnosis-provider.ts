// What a diagnosis provider is given and what it answers. The context holds what people may know
// of a run, never a secret: credentials appear by their kind only.
import type { CredentialKind } from '../credentials/credential-kinds.js';
import type { RunError, RunStatus } from '../discovery/run-record.js';
import type { Confidence } from '../discovery/scan-error.js';


export interface DiagnosisContext {
  run: {
    id: string;
    status: RunStatus;
    trigger: string;
    queuedAt: string;
    startedAt: string | null;
    finishedAt: string | null;
    failureReason: string | null;
    addressesDone: number;
    addressesTotal: number;
    hostsResponding: number;
    errorCount: number;
  };
  /** Error records per code, most frequent first. */
  errorCounts: Record<string, number>;
  /** A sample of the error records: the first few of each code. */
  errors: RunError[];
  /** Null once the target is deleted. */
  target: { name: string; addresses: string[]; methods: string[]; sshPort: number; snmpPort: number } | null;
  /** Kinds of the credentials listed on the target. */
  credentialKinds: CredentialKind[];
  /** The target's earlier runs, newest first. */
  previousRuns: { status: RunStatus; finishedAt: string | null; errorCount: number }[];
}

export interface DiagnosisAnswer {
  summary: string;
  likelyCauses: string[];
  recommendedActions: string[];
  confidence: Confidence;
}

export interface DiagnosisProvider {
  /** Name of the model, stored with each diagnosis. */
  readonly model: string;
  diagnose(context: DiagnosisContext): Promise<DiagnosisAnswer>;
}

/** A provider could not give a diagnosis; the reason is safe to store and show (no address, key or raw answer). */
export class DiagnosisFailure extends Error {
  override name = 'DiagnosisFailure';
}
