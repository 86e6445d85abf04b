// Users: the first administrator, administration by ADMINISTRATORs, and a user's own password.
// The last enabled administrator can be neither disabled, demoted nor deleted.
import { randomBytes } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { isUniqueViolation } from '../../platform/postgres/postgres-client.js';
import { SYSTEM_ACTOR, type Actor, type AuditLog } from './audit-log.js';
import type { PasswordHasher } from './password-hasher.js';
import type { Role } from './roles.js';
import type { TokenLookupCache } from './token-lookup-cache.js';
import type { UserRecord, UserStore } from './user-store.js';
import type { UserQuery } from './user-query.js';

export interface UserView {
  id: string;
  username: string;
  displayName: string | null;
  roles: Role[];
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  lastLoginAt: string | null;
}

export function toUserView(user: UserRecord): UserView {
  return {
    id: user.id,
    username: user.username,
    displayName: user.displayName,
    roles: [...user.roles].sort(),
    disabled: user.disabled,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
  };
}

export interface NewUserInput {
  username: string;
  password: string;
  roles: Role[];
  displayName?: string | null;
  disabled?: boolean;
}

export interface UserUpdateInput {
  displayName?: string | null;
  roles?: Role[];
  disabled?: boolean;
  password?: string;
}

export class UserService {
  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    private readonly lookups: TokenLookupCache,
  ) {}

  /** On first start (no user at all), creates the administrator; a generated password is logged once. */
  async ensureAdministrator(username: string, password: string | undefined): Promise<void> {
    if ((await this.users.count()) > 0) return;
    const chosen = password ?? randomBytes(18).toString('base64url');
    try {
      const passwordHash = await this.hasher.hash(chosen);
      await this.audit.write(SYSTEM_ACTOR, (trx) => this.users.insert({ username, passwordHash, roles: ['ADMINISTRATOR', 'API_USER'] }, trx), (user) => ({
        action: 'user.create', targetKind: 'USER', targetId: user.id, details: { username, roles: user.roles, bootstrap: true },
      }));
    } catch (error) {
      // Another process of the service created it at the same moment.
      if (isUniqueViolation(error)) return;
      throw error;
    }
    if (password) {
      this.logger.info('created the first administrator from SERVICE_ADMIN_PASSWORD', { username });
    } else {
      // The one time a secret is written to the log, on purpose: it is the only way in. Its field is
      // named so that the log's redaction of password-like fields leaves it, and a script finds it.
      this.logger.warn(`created the first administrator "${username}" with a generated password (field firstSignIn); change it after signing in`, { username, firstSignIn: chosen });
    }
  }

  async get(id: string): Promise<UserView> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundError(`No user with id ${id}.`);
    return toUserView(user);
  }

  async list(query: UserQuery): Promise<{ rows: UserView[]; total: number }> {
    const { rows, total } = await this.users.list(query);
    return { rows: rows.map(toUserView), total };
  }

  async create(actor: Actor, input: NewUserInput): Promise<UserView> {
    const passwordHash = await this.hasher.hash(input.password);
    try {
      const user = await this.audit.write(actor, (trx) => this.users.insert({ ...input, roles: unique(input.roles), passwordHash }, trx), (created) => ({
        action: 'user.create', targetKind: 'USER', targetId: created.id, details: { username: created.username, roles: created.roles, disabled: created.disabled },
      }));
      return toUserView(user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A user named "${input.username}" already exists.`);
      throw error;
    }
  }

  async update(actor: Actor, id: string, input: UserUpdateInput): Promise<UserView> {
    const passwordHash = input.password !== undefined ? await this.hasher.hash(input.password) : undefined;
    // What this user's tokens authenticate as may change: this process forgets them at once.
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
    return this.audit.write(actor, async (trx) => {
      const current = await this.users.findById(id, trx);
      if (!current) throw new NotFoundError(`No user with id ${id}.`);
      const losesAdministrator =
        current.roles.includes('ADMINISTRATOR') &&
        !current.disabled &&
        (input.disabled === true || (input.roles !== undefined && !input.roles.includes('ADMINISTRATOR')));
      if (losesAdministrator && (await this.users.countOtherActiveAdministrators(id, trx)) === 0) {
        throw new ConflictError('This is the last enabled administrator: it cannot be disabled or lose the ADMINISTRATOR role.');
      }
      const roles = input.roles !== undefined ? unique(input.roles) : undefined;
      return toUserView((await this.users.update(id, { displayName: input.displayName, roles, disabled: input.disabled, passwordHash }, trx)) as UserRecord);
    }, (updated) => ({ action: 'user.update', targetKind: 'USER', targetId: id, details: { username: updated.username, changed, roles: updated.roles, disabled: updated.disabled } }))
      .finally(() => this.lookups.clear());
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.audit.write(actor, async (trx) => {
      const current = await this.users.findById(id, trx);
      if (!current) throw new NotFoundError(`No user with id ${id}.`);
      if (current.roles.includes('ADMINISTRATOR') && !current.disabled && (await this.users.countOtherActiveAdministrators(id, trx)) === 0) {
        throw new ConflictError('This is the last enabled administrator: it cannot be deleted.');
      }
      await this.users.delete(id, trx);
      return current;
    }, (deleted) => ({ action: 'user.delete', targetKind: 'USER', targetId: id, details: { username: deleted.username } }))
      .finally(() => this.lookups.clear());
  }

  async changeOwnPassword(actor: Actor, userId: string, currentPassword: string, newPassword: string): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw new ForbiddenError();
    if (!(await this.hasher.verify(user.passwordHash, currentPassword))) {
      await this.audit.record(actor, { action: 'auth.failure', targetKind: 'USER', targetId: userId, details: { method: 'PASSWORD_CHANGE', reason: 'wrong-password' } });
      throw new UnauthorizedError('The current password is not correct.');
    }
    const passwordHash = await this.hasher.hash(newPassword);
    await this.audit.write(actor, (trx) => this.users.update(userId, { passwordHash }, trx), () => ({ action: 'user.password-change', targetKind: 'USER', targetId: userId }));
  }
}

function unique(roles: Role[]): Role[] {
  return [...new Set(roles)];
}
