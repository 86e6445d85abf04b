// Sign-in with throttling, and turning a presented token, key or session into a Principal.
// Every failure is audited with its reason; the caller only ever learns "not valid".
import type { Clock } from '../../platform/clock.js';
import { TooManyRequestsError, UnauthorizedError } from '../../platform/errors.js';
import { checkToken, hashToken, INTEGRATION_KEY_PREFIX } from './api-token.js';
import type { ApiTokenStore } from './api-token-store.js';
import type { Actor, AuditLog } from './audit-log.js';
import type { LoginThrottleStore } from './login-throttle-store.js';
import type { PasswordHasher } from './password-hasher.js';
import { effectiveRoles, ROLES, type Principal } from './roles.js';
import type { TokenLookupCache } from './token-lookup-cache.js';
import type { UserRecord, UserStore } from './user-store.js';

export const LOGIN_FAILED = 'Invalid user name or password.';
const LOGIN_THROTTLED = 'Too many failed sign-in attempts; try again later.';
// An address may fail for several users (a shared NAT) before it is paused.
const ADDRESS_FACTOR = 4;
const TOUCH_INTERVAL_MS = 60_000;

export interface AuthSettings {
  tokenPepper: string;
  loginMaxFailures: number;
  loginLockoutMinutes: number;
}

export interface SessionData {
  userId: string;
  csrfToken: string;
  authenticatedAt: number;
}

export class AuthService {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: ApiTokenStore,
    private readonly throttle: LoginThrottleStore,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditLog,
    private readonly settings: AuthSettings,
    private readonly lookups: TokenLookupCache,
    private readonly clock: Clock,
  ) {}

  /** Checks a user name and password; throws 401 (one message for every cause) or 429. */
  async login(username: string, password: string, ip: string): Promise<UserRecord> {
    const userKey = `user:${username.toLowerCase()}`;
    const addressKey = `ip:${ip}`;
    const actor: Actor = { kind: 'ANONYMOUS', name: username.slice(0, 64), ip };
    const lockedUntil = await this.throttle.lockedUntil([userKey, addressKey]);
    if (lockedUntil) {
      await this.audit.record(actor, { action: 'auth.login-throttled' });
      throw new TooManyRequestsError(LOGIN_THROTTLED, (lockedUntil.getTime() - Date.now()) / 1000);
    }
    const user = await this.users.findByUsername(username);
    const passwordOk = await this.hasher.verify(user?.passwordHash, password);
    const reason = !user ? 'unknown-user' : !passwordOk ? 'wrong-password' : user.disabled ? 'user-disabled' : undefined;
    if (reason || !user) {
      const { loginMaxFailures: limit, loginLockoutMinutes: window } = this.settings;
      // Counted on their own, not in the audit's transaction: a failure counts even if its audit row cannot be written.
      await this.throttle.recordFailure(userKey, limit, window);
      await this.throttle.recordFailure(addressKey, limit * ADDRESS_FACTOR, window);
      await this.audit.record({ ...actor, id: user?.id }, { action: 'auth.failure', details: { method: 'PASSWORD', reason } });
      throw new UnauthorizedError(LOGIN_FAILED);
    }
    await this.audit.write({ kind: 'USER', id: user.id, name: user.username, ip }, async (trx) => {
      await this.throttle.clear(userKey, trx);
      await this.users.recordLogin(user.id, trx);
    }, () => ({ action: 'auth.login' }));
    return user;
  }

  /**
   * The principal of a user API token or an integration key. `integrationKeyHeader` is true when
   * the token came in X-Integration-Api-Key, which only takes integration keys.
   */
  async authenticateToken(token: string, ip: string, integrationKeyHeader: boolean): Promise<Principal> {
    const prefix = checkToken(token);
    const fail = (reason: string, tokenId?: string) => this.refuseToken(ip, reason, tokenId);
    if (!prefix) return fail('malformed-or-bad-checksum');
    if (integrationKeyHeader && prefix !== INTEGRATION_KEY_PREFIX) return fail('user-token-in-integration-key-header');
    const hash = hashToken(token, this.settings.tokenPepper);
    const readMark = this.lookups.readMark;
    const found = this.lookups.get(hash) ?? (await this.tokens.findByHash(hash));
    if (!found) return fail('unknown');
    if (found.revokedAt) return fail('revoked', found.id);
    if (found.expiresAt && found.expiresAt.getTime() <= this.clock.now()) return fail('expired', found.id);
    // lastUsedAt is kept to the minute: most requests need no write.
    if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await this.tokens.touch(found.id);
      found.lastUsedAt = new Date();
    }
    if (found.kind === 'INTEGRATION_KEY') {
      this.lookups.set(hash, found, readMark);
      return { kind: 'INTEGRATION_KEY', id: found.id, name: found.name, method: 'INTEGRATION_KEY', roles: new Set(ROLES), tokenId: found.id };
    }
    if (found.kind === 'SCANNER_TOKEN') {
      this.lookups.set(hash, found, readMark);
      return { kind: 'SCANNER', id: found.id, name: found.name, method: 'SCANNER_TOKEN', roles: new Set(), tokenId: found.id };
    }
    if (!found.userId || found.userDisabled || !found.username) return fail('user-disabled', found.id);
    this.lookups.set(hash, found, readMark);
    return {
      kind: 'USER',
      id: found.userId,
      name: found.username,
      method: 'USER_TOKEN',
      roles: effectiveRoles(found.userRoles ?? []),
      tokenId: found.id,
    };
  }

  /** Audits a refused token or key and throws the one 401 that every such refusal gives. */
  async refuseToken(ip: string, reason: string, tokenId?: string): Promise<never> {
    await this.audit.record({ kind: 'ANONYMOUS', ip }, { action: 'auth.failure', targetKind: 'API_TOKEN', targetId: tokenId, details: { method: 'TOKEN', reason } });
    throw new UnauthorizedError();
  }

  /** The principal of a signed-in browser session, with the user's roles as they are now. */
  async principalForSession(session: SessionData): Promise<Principal | undefined> {
    const user = await this.users.findById(session.userId);
    if (!user || user.disabled) return undefined;
    return { kind: 'USER', id: user.id, name: user.username, method: 'SESSION', roles: effectiveRoles(user.roles), csrfToken: session.csrfToken };
  }
}
