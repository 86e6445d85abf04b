// The built-in provider: the rule that each scan error code declares beside it (a connector's in its
// declaration; the connector registry gathers them), so that the feature explains failed runs with
// no model at all. A code cannot be declared without its rule.
import { SCAN_ERRORS, type ScanErrorCode } from '../discovery/connectors/registry.js';
import type { Confidence, ScanErrorExplanation } from '../discovery/scan-error.js';
import type { DiagnosisAnswer, DiagnosisContext, DiagnosisProvider } from './diagnosis-provider.js';

export const RULES_MODEL = 'rules-v1';

const RANK: Record<Confidence, number> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

/** A code written by a newer worker than this process (during an upgrade). */
function unknownCode(code: string): ScanErrorExplanation {
  return {
    summary: `The run has errors with the code ${code}, which this version of the service has no rule for.`,
    causes: ['A worker of a newer version recorded the error.'],
    actions: ["Read the run's error records.", 'Run the same version on every process of the service.'],
    confidence: 'LOW',
  };
}

function noRecords(failureReason: string | null): DiagnosisAnswer {
  return {
    summary: `The run failed without error records. Its failure reason: ${failureReason ?? 'none was recorded.'}`,
    likelyCauses: ['The target was deleted or changed before the run started.', 'An unexpected error stopped the run before it recorded errors.'],
    recommendedActions: ["Check that the target still exists, and read the service log around the run's time.", 'Run the scan again.'],
    confidence: 'LOW',
  };
}

export class RulesProvider implements DiagnosisProvider {
  readonly model = RULES_MODEL;

  async diagnose({ errorCounts, run }: DiagnosisContext): Promise<DiagnosisAnswer> {
    const codes = Object.keys(errorCounts);
    if (codes.length === 0) return noRecords(run.failureReason);
    // The most frequent code leads; the others add their causes and actions after its own.
    const rules = codes.map((code) => (Object.hasOwn(SCAN_ERRORS, code) ? SCAN_ERRORS[code as ScanErrorCode].explanation : unknownCode(code)));
    const lead = rules[0] as ScanErrorExplanation;
    const counts = codes.map((code) => `${errorCounts[code]} × ${code}`).join(', ');
    return {
      summary: `${lead.summary} Error records: ${counts}.`,
      likelyCauses: [...new Set(rules.flatMap((r) => r.causes))],
      recommendedActions: [...new Set(rules.flatMap((r) => r.actions))],
      // Several kinds of failure at once make any one explanation less certain.
      confidence: rules.length > 1 && RANK[lead.confidence] > RANK.MEDIUM ? 'MEDIUM' : lead.confidence,
    };
  }
}
