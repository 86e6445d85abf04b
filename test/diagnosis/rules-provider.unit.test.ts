import type { DiagnosisContext } from '../../src/features/diagnosis/diagnosis-provider.js';
import { CONFIDENCE_LEVELS } from '../../src/features/discovery/scan-error.js';
import { RULES_MODEL, RulesProvider } from '../../src/features/diagnosis/rules-provider.js';
import { SCAN_ERRORS, type ScanErrorCode } from '../../src/features/discovery/connectors/registry.js';

const RULES = Object.values(SCAN_ERRORS).map((e) => e.explanation);

function context(errorCounts: Record<string, number>, failureReason: string | null = null): DiagnosisContext {
  const errorCount = Object.values(errorCounts).reduce((a, b) => a + b, 0);
  return {
    run: {
      id: '00000000-0000-4000-8000-000000000001', status: errorCount ? 'COMPLETED_WITH_ERRORS' : 'FAILED', trigger: 'MANUAL', queuedAt: '2026-11-22T05:40:00.000Z',
      startedAt: '2026-11-22T05:40:01.000Z', finishedAt: '2026-11-22T05:40:12.000Z', failureReason, addressesDone: 4, addressesTotal: 4, hostsResponding: 1, errorCount,
    },
    errorCounts,
    errors: [],
    target: { name: 'lab', addresses: ['10.0.0.0/30'], methods: ['SWEEP', 'SSH', 'SNMP'], sshPort: 22, snmpPort: 161 },
    credentialKinds: ['SSH_PASSWORD'],
    previousRuns: [],
  };
}

describe('the rules provider', () => {
  const rules = new RulesProvider();

  it('has a rule for every error code that discovery records, declared beside the code', () => {
    for (const definition of Object.values(SCAN_ERRORS)) expect(definition.explanation.summary.length).toBeGreaterThan(15);
    expect(rules.model).toBe(RULES_MODEL);
  });

  it.each(Object.keys(SCAN_ERRORS))('explains a run whose errors are all %s: its own summary, causes, actions and a confidence', async (code) => {
    const answer = await rules.diagnose(context({ [code]: 2 }));
    const rule = SCAN_ERRORS[code as ScanErrorCode].explanation;
    expect(answer.summary).toBe(`${rule.summary} Error records: 2 × ${code}.`);
    expect(answer.likelyCauses.length).toBeGreaterThanOrEqual(2);
    expect(answer.recommendedActions.length).toBeGreaterThanOrEqual(2);
    for (const line of [...answer.likelyCauses, ...answer.recommendedActions]) expect(line.length).toBeGreaterThan(15);
    expect(CONFIDENCE_LEVELS).toContain(answer.confidence);
  });

  it('gives each code an answer of its own', () => {
    const summaries = RULES.map((r) => r.summary);
    const firstActions = RULES.map((r) => r.actions[0]);
    expect(new Set(summaries).size).toBe(summaries.length);
    expect(new Set(firstActions).size).toBe(firstActions.length);
  });

  it('leads with the most frequent code, adds the causes and actions of the others, and is less sure of a mix', async () => {
    const answer = await rules.diagnose(context({ SSH_AUTH_FAILED: 5, CONNECTION_REFUSED: 1 }));
    expect(answer.summary).toBe(`${SCAN_ERRORS.SSH_AUTH_FAILED.explanation.summary} Error records: 5 × SSH_AUTH_FAILED, 1 × CONNECTION_REFUSED.`);
    expect(answer.likelyCauses).toEqual([...SCAN_ERRORS.SSH_AUTH_FAILED.explanation.causes, ...SCAN_ERRORS.CONNECTION_REFUSED.explanation.causes]);
    expect(answer.recommendedActions.slice(0, SCAN_ERRORS.SSH_AUTH_FAILED.explanation.actions.length)).toEqual(SCAN_ERRORS.SSH_AUTH_FAILED.explanation.actions);
    expect(answer.confidence).toBe('MEDIUM');
    expect((await rules.diagnose(context({ SSH_AUTH_FAILED: 5 }))).confidence).toBe('HIGH');
  });

  it('explains a FAILED run without error records by its failure reason', async () => {
    const answer = await rules.diagnose(context({}, 'The target was deleted before the run started.'));
    expect(answer.summary).toContain('The target was deleted before the run started.');
    expect(answer.likelyCauses.length).toBeGreaterThan(0);
    expect(answer.recommendedActions.length).toBeGreaterThan(0);
    expect(answer.confidence).toBe('LOW');
  });

  it('answers with low confidence for a code written by a newer worker', async () => {
    const answer = await rules.diagnose(context({ TELNET_REFUSED: 1 }));
    expect(answer.summary).toContain('TELNET_REFUSED');
    expect(answer.confidence).toBe('LOW');
  });
});
