import type { Knex } from 'knex';
import { countRows, pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { Role } from './roles.js';
import type { UserQuery } from './user-query.js';

export interface UserRecord {
  id: string;
  username: string;
  displayName: string | null;
  passwordHash: string;
  roles: Role[];
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastLoginAt: Date | null;
}

export interface NewUser {
  username: string;
  displayName?: string | null;
  passwordHash: string;
  roles: Role[];
  disabled?: boolean;
}

export type UserChanges = Partial<Pick<UserRecord, 'displayName' | 'passwordHash' | 'roles' | 'disabled'>>;

const COLUMNS = {
  id: 'id',
  username: 'username',
  displayName: 'display_name',
  passwordHash: 'password_hash',
  roles: 'roles',
  disabled: 'disabled',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  lastLoginAt: 'last_login_at',
} as const;

const SELECT = Object.entries(COLUMNS).map(([alias, column]) => `${column} as ${alias}`);

export class UserStore {
  constructor(private readonly db: Database) {}

  async count(): Promise<number> {
    return countRows(this.db('users'));
  }

  findById(id: string, trx: Knex | Database = this.db): Promise<UserRecord | undefined> {
    return trx('users').select(SELECT).where({ id }).first();
  }

  findByUsername(username: string): Promise<UserRecord | undefined> {
    return this.db('users').select(SELECT).whereRaw('lower(username) = lower(?)', [username]).first();
  }

  async list(query: UserQuery): Promise<{ rows: UserRecord[]; total: number }> {
    const filtered = this.db('users').modify((b) => {
      if (query.q) b.where((w) => w.whereILike('username', `%${query.q}%`).orWhereILike('display_name', `%${query.q}%`));
      if (query.role) b.whereRaw('? = ANY(roles)', [query.role]);
      if (query.disabled !== undefined) b.where({ disabled: query.disabled });
    });
    const order = `${COLUMNS[query.sort.field]} ${query.sort.direction} NULLS LAST, id`;
    return pagedQuery<UserRecord>(filtered, (q) => q.select(SELECT).orderByRaw(order), query.page, query.size);
  }

  async insert(user: NewUser, trx: Knex | Database = this.db): Promise<UserRecord> {
    const [row] = await trx('users')
      .insert({
        username: user.username,
        display_name: user.displayName ?? null,
        password_hash: user.passwordHash,
        roles: user.roles,
        disabled: user.disabled ?? false,
      })
      .returning(SELECT);
    return row as UserRecord;
  }

  async update(id: string, changes: UserChanges, trx: Knex | Database = this.db): Promise<UserRecord | undefined> {
    const values: Record<string, unknown> = { updated_at: trx.fn.now() };
    for (const [key, value] of Object.entries(changes)) if (value !== undefined) values[COLUMNS[key as keyof UserChanges]] = value;
    const [row] = await trx('users').where({ id }).update(values).returning(SELECT);
    return row;
  }

  async delete(id: string, trx: Knex | Database = this.db): Promise<boolean> {
    return (await trx('users').where({ id }).delete()) > 0;
  }

  async recordLogin(id: string, trx: Knex = this.db): Promise<void> {
    await trx('users').where({ id }).update({ last_login_at: trx.fn.now() });
  }

  /** Enabled administrators other than the given user, counted inside the caller's transaction. */
  async countOtherActiveAdministrators(exceptId: string, trx: Knex): Promise<number> {
    const rows = await trx('users')
      .select('id')
      .whereRaw("'ADMINISTRATOR' = ANY(roles)")
      .where({ disabled: false })
      .whereNot({ id: exceptId })
      .forUpdate();
    return rows.length;
  }
}
