import type { Knex } from 'knex';
import { likeLiteral, pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';

export type ActorKind = 'USER' | 'INTEGRATION_KEY' | 'SCANNER' | 'ANONYMOUS' | 'SYSTEM';

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
  /** The target's name now (its row), else as the event's details recorded it; null when neither says. */
  targetName: string | null;
}

export interface AuditQuery {
  page: number;
  size: number;
  action?: string;
  actorId?: string;
  targetId?: string;
  /** Events at or after this time. */
  from?: Date;
  /** Events before this time. */
  to?: Date;
  /** Text that the action, the actor's name, the target's id or the details hold (case-insensitive). */
  q?: string;
}

// The actions listed for a pick list, at most.
export const MAX_ACTIONS = 500;

const SELECT = [
  'e.id', 'e.occurred_at as occurredAt', 'e.actor_kind as actorKind', 'e.actor_id as actorId', 'e.actor_name as actorName', 'e.action',
  'e.target_kind as targetKind', 'e.target_id as targetId', 'e.source_ip as sourceIp', 'e.details',
];

// The table that names each kind of target, and its name column; a target of another kind (or
// one since deleted) is named by what its event's details recorded.
const TARGET_NAMES = [
  { kind: 'USER', table: 'users', column: 'username' },
  { kind: 'API_TOKEN', table: 'api_tokens', column: 'name' },
  { kind: 'CREDENTIAL', table: 'credentials', column: 'name' },
  { kind: 'DISCOVERY_TARGET', table: 'discovery_targets', column: 'name' },
  { kind: 'DISCOVERY_RUN', table: 'discovery_runs', column: 'target_name' },
];
const DETAIL_NAMES = ['name', 'displayName', 'username'];

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
    const base = this.db({ e: 'audit_events' }).modify((b) => {
      if (query.action) b.where('e.action', query.action);
      if (query.actorId) b.where('e.actor_id', query.actorId);
      if (query.targetId) b.where('e.target_id', query.targetId);
      if (query.from) b.where('e.occurred_at', '>=', query.from);
      if (query.to) b.where('e.occurred_at', '<', query.to);
      if (query.q) {
        // The trigram index of migration 20261207000000 finds the rows that can match.
        const like = `%${likeLiteral(query.q)}%`;
        b.where((w) => w.whereILike('e.action', like).orWhereILike('e.actor_name', like).orWhereILike('e.target_id', like).orWhereRaw('(e.details::text) ILIKE ?', [like]));
      }
    });
    const named = (q: Knex.QueryBuilder) => {
      for (const [i, t] of TARGET_NAMES.entries()) q.leftJoin({ [`t${i}`]: t.table }, (j) => j.on('e.target_kind', this.db.raw('?', [t.kind])).andOn('e.target_id', this.db.raw(`t${i}.id::text`)));
      const names = [...TARGET_NAMES.map((t, i) => `t${i}.${t.column}`), ...DETAIL_NAMES.map((k) => `e.details->>'${k}'`)];
      return q.select([...SELECT, this.db.raw(`coalesce(${names.join(', ')}) AS "targetName"`)]).orderBy('e.id', 'desc');
    };
    const { rows, total } = await pagedQuery<AuditRecord>(base, named, query.page, query.size);
    return { rows: rows.map((r) => ({ ...r, id: Number(r.id) })), total };
  }

  /**
   * The actions the trail holds, in order, at most MAX_ACTIONS: each found by one seek of the
   * action index past the one before (a loose index scan), not by reading every event.
   */
  async actions(): Promise<{ actions: string[]; capped: boolean }> {
    const { rows } = await this.db.raw<{ rows: { action: string }[] }>(
      `WITH RECURSIVE a(action, n) AS (
         (SELECT action, 1 FROM audit_events ORDER BY action LIMIT 1)
         UNION ALL
         SELECT (SELECT e.action FROM audit_events e WHERE e.action > a.action ORDER BY e.action LIMIT 1), a.n + 1 FROM a WHERE a.action IS NOT NULL AND a.n <= ?)
       SELECT action FROM a WHERE action IS NOT NULL`,
      [MAX_ACTIONS],
    );
    return { actions: rows.slice(0, MAX_ACTIONS).map((r) => r.action), capped: rows.length > MAX_ACTIONS };
  }
}
