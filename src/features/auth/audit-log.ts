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
    private readonly db: Database,
    private readonly store: AuditStore,
    logger: Logger,
  ) {
    this.logger = logger.child({ module: 'audit' });
  }

  /** An event with no write of its own to go with (a sign-in, a refused request). */
  async record(actor: Actor, entry: AuditEntry): Promise<void> {
    await this.insert(actor, entry, this.db);
    this.logged(actor, entry);
  }

  /**
   * Runs a request's PostgreSQL writes and records their audit event in one transaction: both are
   * written or neither is (an audit row that cannot be written undoes the writes). The event is
   * made from the writes' result (`undefined`: none, the writes changed nothing), or given as it
   * is, and then written first: work beyond PostgreSQL (a graph write) starts only once its audit
   * row is in, and a failure of that work takes the row back.
   */
  async write<T>(actor: Actor, work: (trx: Knex.Transaction) => Promise<T>, entry: AuditEntry | ((result: T) => AuditEntry | undefined)): Promise<T> {
    let event = typeof entry === 'function' ? undefined : entry;
    const result = await this.db.transaction(async (trx) => {
      if (event) await this.insert(actor, event, trx);
      const done = await work(trx);
      if (typeof entry === 'function') {
        event = entry(done);
        if (event) await this.insert(actor, event, trx);
      }
      return done;
    });
    if (event) this.logged(actor, event);
    return result;
  }

  private async insert(actor: Actor, entry: AuditEntry, trx: Knex): Promise<void> {
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
  }

  private logged(actor: Actor, entry: AuditEntry): void {
    this.logger.info('audit', { action: entry.action, actorKind: actor.kind, actorName: actor.name, targetId: entry.targetId, sourceIp: actor.ip });
  }

  list(query: AuditQuery): Promise<{ rows: AuditRecord[]; total: number }> {
    return this.store.list(query);
  }

  /** The actions the trail holds (a pick list's choices). */
  actions(): Promise<{ actions: string[]; capped: boolean }> {
    return this.store.actions();
  }
}
