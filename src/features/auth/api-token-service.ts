// User API tokens and integration keys: created (the secret shown once), listed, revoked.
import type { Clock } from '../../platform/clock.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { generateToken, hashToken, INTEGRATION_KEY_PREFIX, tokenHint, USER_TOKEN_PREFIX } from './api-token.js';
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

const AUDIT_TARGET: Record<TokenKind, string> = { USER_TOKEN: 'USER_TOKEN', INTEGRATION_KEY: 'INTEGRATION_KEY' };

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

  private async create(actor: Actor, { expiresAt: expiry, ...rest }: { kind: TokenKind; userId: string | null; name: string; expiresAt?: string }): Promise<CreatedToken> {
    const spec = { ...rest, expiresAt: expiry ? new Date(expiry) : null };
    if (spec.expiresAt && spec.expiresAt.getTime() <= this.clock.now()) throw new ConflictError('expiresAt must be in the future.');
    const token = generateToken(spec.kind === 'INTEGRATION_KEY' ? INTEGRATION_KEY_PREFIX : USER_TOKEN_PREFIX);
    const record = await this.audit.write(
      actor,
      (trx) => this.tokens.insert({ ...spec, tokenHash: hashToken(token, this.pepper), hint: tokenHint(token), createdBy: actor.kind === 'USER' ? (actor.id ?? null) : null }, trx),
      (created) => ({
        action: spec.kind === 'INTEGRATION_KEY' ? 'integration-key.create' : 'user-token.create',
        targetKind: AUDIT_TARGET[spec.kind],
        targetId: created.id,
        details: { name: spec.name, userId: spec.userId, expiresAt: spec.expiresAt?.toISOString() ?? null },
      }),
    );
    return { ...toTokenView(record, this.clock.now()), token };
  }

  async list(filter: { kind: TokenKind; userId?: string }, page: number, size: number): Promise<{ rows: TokenView[]; total: number }> {
    const { rows, total } = await this.tokens.list(filter, page, size);
    const now = this.clock.now();
    return { rows: rows.map((row) => toTokenView(row, now)), total };
  }

  /** Revokes a key or token in the given scope (a user's own tokens, or integration keys). */
  async revoke(actor: Actor, id: string, filter: { kind: TokenKind; userId?: string }): Promise<TokenView> {
    const record = await this.tokens.find(id, filter);
    if (!record) throw new NotFoundError(`No ${filter.kind === 'INTEGRATION_KEY' ? 'integration key' : 'token'} with id ${id}.`);
    const revoked = await this.audit.write(actor, (trx) => this.tokens.revoke(id, trx), (changed) =>
      changed ? {
        action: filter.kind === 'INTEGRATION_KEY' ? 'integration-key.revoke' : 'user-token.revoke',
        targetKind: AUDIT_TARGET[filter.kind],
        targetId: id,
        details: { name: record.name, userId: record.userId },
      } : undefined);
    // This process forgets the token once the revocation is committed; the others when its notification reaches them.
    if (revoked) this.lookups.clear();
    return toTokenView((await this.tokens.find(id, filter)) as TokenRecord, this.clock.now());
  }
}
