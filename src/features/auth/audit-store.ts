import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';

export type ActorKind = 'USER' | 'INTEGRATION_KEY' | 'ANONYMOUS' | 'SYSTEM';

export interface AuditEvent {
  actorKind: ActorKind;
  actorId?: string | null;
  actorName?: string | null;
  action: string;
  targetKind?: string | null;
  targetId?: string | null;
  sourceIp?: string | null;
  details?: Record<string, unknown> | null;
}

export interface AuditRecord extends AuditEvent {
  id: number;
  occurredAt: Date;
}

export interface AuditQuery {
  page: number;
  size: number;
  action?: string;
  actorId?: string;
  targetId?: string;
}

const SELECT = [
  'id', 'occurred_at as occurredAt', 'actor_kind as actorKind', 'actor_id as actorId', 'actor_name as actorName', 'action',
  'target_kind as targetKind', 'target_id as targetId', 'source_ip as sourceIp', 'details',
];

export class AuditStore {
  constructor(private readonly db: Database) {}

  async insert(event: AuditEvent, trx: Knex | Database = this.db): Promise<void> {
    await trx('audit_events').insert({
      actor_kind: event.actorKind,
      actor_id: event.actorId ?? null,
      actor_name: event.actorName ?? null,
      action: event.action,
      target_kind: event.targetKind ?? null,
      target_id: event.targetId ?? null,
      source_ip: event.sourceIp ?? null,
      details: event.details ? JSON.stringify(event.details) : null,
    });
  }

  async list(query: AuditQuery): Promise<{ rows: AuditRecord[]; total: number }> {
    const base = this.db('audit_events').modify((b) => {
      if (query.action) b.where('action', query.action);
      if (query.actorId) b.where('actor_id', query.actorId);
      if (query.targetId) b.where('target_id', query.targetId);
    });
    const { rows, total } = await pagedQuery<AuditRecord>(base, (q) => q.select(SELECT).orderBy('id', 'desc'), query.page, query.size);
    return { rows: rows.map((r) => ({ ...r, id: Number(r.id) })), total };
  }
}
