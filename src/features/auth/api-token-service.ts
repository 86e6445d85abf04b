// User API tokens, integration keys and scanner tokens: created (the secret shown once), listed, revoked.
import type { Clock } from '../../platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import type { Knex } from 'knex';
import { generateToken, hashToken, INTEGRATION_KEY_PREFIX, SCANNER_TOKEN_PREFIX, tokenHint, USER_TOKEN_PREFIX, type TokenPrefix } from './api-token.js';
import type { ApiTokenStore, TokenKind, TokenRecord } from './api-token-store.js';
import type { Actor, AuditLog } from './audit-log.js';
import type { TokenLookupCache } from './token-lookup-cache.js';
import type { UserStore } from './user-store.js';

export type TokenStatus = 'ACTIVE' | 'EXPIRED' | 'REVOKED';

export interface TokenView {
  id: string;
  name: string;
  hint: string;
  status: TokenStatus;
  userId?: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedToken extends TokenView {
  /** The token itself: shown in this answer only, never again. */
  token: string;
}

function toTokenView(record: TokenRecord, now: number): TokenView {
  const status: TokenStatus = record.revokedAt ? 'REVOKED' : record.expiresAt && record.expiresAt.getTime() <= now ? 'EXPIRED' : 'ACTIVE';
  return {
    id: record.id,
    name: record.name,
    hint: record.hint,
    status,
    ...(record.userId ? { userId: record.userId } : {}),
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt?.toISOString() ?? null,
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}

/** Per kind: its prefix, its audit events' action prefix and target kind, and its name in messages. */
const KIND: Record<TokenKind, { prefix: TokenPrefix; action: string; target: string; noun: string }> = {
  USER_TOKEN: { prefix: USER_TOKEN_PREFIX, action: 'user-token', target: 'USER_TOKEN', noun: 'token' },
  INTEGRATION_KEY: { prefix: INTEGRATION_KEY_PREFIX, action: 'integration-key', target: 'INTEGRATION_KEY', noun: 'integration key' },
  SCANNER_TOKEN: { prefix: SCANNER_TOKEN_PREFIX, action: 'scanner', target: 'SCANNER', noun: 'scanner' },
};

export class ApiTokenService {
  constructor(
    private readonly tokens: ApiTokenStore,
    private readonly users: UserStore,
    private readonly audit: AuditLog,
    private readonly pepper: string,
    private readonly lookups: TokenLookupCache,
    private readonly clock: Clock,
  ) {}

  /** `expiresAt`: ISO 8601 (validated by api.yaml or the command line); never when left out. */
  async createIntegrationKey(actor: Actor, name: string, expiresAt?: string): Promise<CreatedToken> {
    return this.create(actor, { kind: 'INTEGRATION_KEY', userId: null, name, expiresAt });
  }

  /** A token for a user who holds API_USER (checked against the stored roles, not the caller's). */
  async createUserToken(actor: Actor, userId: string, name: string, expiresAt?: string): Promise<CreatedToken> {
    const user = await this.users.findById(userId);
    if (!user || user.disabled) throw new NotFoundError(`No user with id ${userId}.`);
    if (!user.roles.includes('API_USER')) throw new ForbiddenError('Creating API tokens needs the API_USER role.');
    return this.create(actor, { kind: 'USER_TOKEN', userId, name, expiresAt });
  }

  private async create(actor: Actor, { expiresAt, ...spec }: { kind: TokenKind; userId: string | null; name: string; expiresAt?: string }): Promise<CreatedToken> {
    const expiry = expiresAt ? new Date(expiresAt) : null;
    if (expiry && expiry.getTime() <= this.clock.now()) throw new ConflictError('expiresAt must be in the future.');
    const { record, token } = await this.audit.write(
      actor,
      (trx) => this.issue(actor, { ...spec, expiresAt: expiry }, trx),
      ({ record: created }) => ({
        action: `${KIND[spec.kind].action}.create`,
        targetKind: KIND[spec.kind].target,
        targetId: created.id,
        details: { name: spec.name, userId: spec.userId, expiresAt: expiry?.toISOString() ?? null },
      }),
    );
    return { ...toTokenView(record, this.clock.now()), token };
  }

  /**
   * A new token in the caller's transaction, which audits it: the token itself is in this answer
   * only. A scanner's (its record made in the same transaction) never expires.
   */
  async issue(actor: Actor, spec: { kind: TokenKind; userId: string | null; name: string; expiresAt: Date | null }, trx: Knex): Promise<{ record: TokenRecord; token: string }> {
    const token = generateToken(KIND[spec.kind].prefix);
    const record = await this.tokens.insert({ ...spec, tokenHash: hashToken(token, this.pepper), hint: tokenHint(token), createdBy: actor.kind === 'USER' ? (actor.id ?? null) : null }, trx);
    return { record, token };
  }

  /** The view of a token as a list shows it. */
  view(record: TokenRecord): TokenView {
    return toTokenView(record, this.clock.now());
  }

  async list(filter: { kind: TokenKind; userId?: string }, page: number, size: number): Promise<{ rows: TokenView[]; total: number }> {
    const { rows, total } = await this.tokens.list(filter, page, size);
    const now = this.clock.now();
    return { rows: rows.map((row) => toTokenView(row, now)), total };
  }

  /** Revokes a key or token in the given scope (a user's own tokens, or integration keys). */
  async revoke(actor: Actor, id: string, filter: { kind: TokenKind; userId?: string }): Promise<TokenView> {
    const record = await this.tokens.find(id, filter);
    if (!record) throw new NotFoundError(`No ${KIND[filter.kind].noun} with id ${id}.`);
    const revoked = await this.audit.write(actor, (trx) => this.tokens.revoke(id, trx), (changed) =>
      changed ? {
        action: `${KIND[filter.kind].action}.revoke`,
        targetKind: KIND[filter.kind].target,
        targetId: id,
        details: { name: record.name, userId: record.userId },
      } : undefined);
    // This process forgets the token once the revocation is committed; the others when its notification reaches them.
    if (revoked) this.lookups.clear();
    return toTokenView((await this.tokens.find(id, filter)) as TokenRecord, this.clock.now());
  }
}
