import type { Knex } from 'knex';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Confidence } from '../discovery/scan-error.js';
import type { DiagnosisAnswer } from './diagnosis-provider.js';

export type DiagnosisOutcome = { status: 'OK'; answer: DiagnosisAnswer } | { status: 'ERROR'; reason: string };

export type DiagnosisRecord = {
  runId: string;
  model: string;
  createdAt: Date;
} & DiagnosisOutcome;

interface Row {
  run_id: string;
  status: 'OK' | 'ERROR';
  summary: string | null;
  likely_causes: string[] | null;
  recommended_actions: string[] | null;
  confidence: Confidence | null;
  model: string;
  reason: string | null;
  created_at: Date;
}

function fromRow(row: Row): DiagnosisRecord {
  const common = { runId: row.run_id, model: row.model, createdAt: row.created_at };
  if (row.status === 'ERROR') return { ...common, status: 'ERROR', reason: row.reason ?? '' };
  return {
    ...common,
    status: 'OK',
    answer: {
      summary: row.summary ?? '',
      likelyCauses: row.likely_causes ?? [],
      recommendedActions: row.recommended_actions ?? [],
      confidence: row.confidence ?? 'LOW',
    },
  };
}

export class DiagnosisStore {
  constructor(private readonly db: Database) {}

  async find(runId: string): Promise<DiagnosisRecord | undefined> {
    const row: Row | undefined = await this.db('run_diagnoses').where({ run_id: runId }).first();
    return row && fromRow(row);
  }

  /** Stores the outcome of an attempt in place of the run's previous one. */
  async save(runId: string, model: string, outcome: DiagnosisOutcome, trx: Knex = this.db): Promise<DiagnosisRecord> {
    const answer = outcome.status === 'OK' ? outcome.answer : undefined;
    const [row] = await trx('run_diagnoses')
      .insert({
        run_id: runId,
        status: outcome.status,
        summary: answer?.summary ?? null,
        likely_causes: answer ? JSON.stringify(answer.likelyCauses) : null,
        recommended_actions: answer ? JSON.stringify(answer.recommendedActions) : null,
        confidence: answer?.confidence ?? null,
        model,
        reason: outcome.status === 'ERROR' ? outcome.reason : null,
        created_at: trx.fn.now(),
      })
      .onConflict('run_id')
      .merge()
      .returning('*');
    return fromRow(row as Row);
  }
}
