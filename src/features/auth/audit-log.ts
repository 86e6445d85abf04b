// Records who did what, when and from where. Callers pass names and ids, never secrets; details
// hold what changed (field names), not values.
import type { Knex } from 'knex';
import type { Logger } from '../../platform/logger.js';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { ActorKind, AuditQuery, AuditRecord, AuditStore } from './audit-store.js';

export interface Actor {
  kind: ActorKind;
  id?: string;
  name?: string;
  ip?: string;
}

export const SYSTEM_ACTOR: Actor = { kind: 'SYSTEM', name: 'system' };
export const COMMAND_LINE_ACTOR: Actor = { kind: 'SYSTEM', name: 'command line' };

export interface AuditEntry {
  action: string;
  targetKind?: string;
  targetId?: string;
  details?: Record<string, unknown>;
}

export class AuditLog {
  private readonly logger: Logger;

  constructor(
    private readonly store: AuditStore,
    logger: Logger,
  ) {
    this.logger = logger.child({ module: 'audit' });
  }

  async record(actor: Actor, entry: AuditEntry, trx?: Knex | Database): Promise<void> {
    await this.store.insert(
      {
        actorKind: actor.kind,
        actorId: actor.id,
        actorName: actor.name,
        sourceIp: actor.ip,
        action: entry.action,
        targetKind: entry.targetKind,
        targetId: entry.targetId,
        details: entry.details,
      },
      trx,
    );
    this.logger.info('audit', { action: entry.action, actorKind: actor.kind, actorName: actor.name, targetId: entry.targetId, sourceIp: actor.ip });
  }

  list(query: AuditQuery): Promise<{ rows: AuditRecord[]; total: number }> {
    return this.store.list(query);
  }
}
