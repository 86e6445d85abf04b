import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { Role } from './roles.js';

export type TokenKind = 'USER_TOKEN' | 'INTEGRATION_KEY' | 'SCANNER_TOKEN';

export interface TokenRecord {
  id: string;
  kind: TokenKind;
  userId: string | null;
  name: string;
  hint: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A token found by its hash, with what its owner is now. */
export interface TokenLookup extends TokenRecord {
  username: string | null;
  userRoles: Role[] | null;
  userDisabled: boolean | null;
}

export interface NewToken {
  kind: TokenKind;
  userId: string | null;
  name: string;
  tokenHash: string;
  hint: string;
  createdBy: string | null;
  expiresAt: Date | null;
}

const SELECT = [
  't.id as id', 't.kind as kind', 't.user_id as userId', 't.name as name', 't.hint as hint', 't.created_by as createdBy',
  't.created_at as createdAt', 't.expires_at as expiresAt', 't.last_used_at as lastUsedAt', 't.revoked_at as revokedAt',
];


export class ApiTokenStore {
  constructor(private readonly db: Database) {}

  async insert(token: NewToken, trx: Knex = this.db): Promise<TokenRecord> {
    const [row] = await trx('api_tokens as t')
      .insert({
        kind: token.kind,
        user_id: token.userId,
        name: token.name,
        token_hash: token.tokenHash,
        hint: token.hint,
        created_by: token.createdBy,
        expires_at: token.expiresAt,
      })
      .returning(SELECT.map((c) => c.replace('t.', '')));
    return row as TokenRecord;
  }

  findByHash(tokenHash: string): Promise<TokenLookup | undefined> {
    return this.db('api_tokens as t')
      .leftJoin('users as u', 'u.id', 't.user_id')
      .select([...SELECT, 'u.username as username', 'u.roles as userRoles', 'u.disabled as userDisabled'])
      .where('t.token_hash', tokenHash)
      .first();
  }

  async touch(id: string): Promise<void> {
    await this.db('api_tokens').where({ id }).update({ last_used_at: this.db.fn.now() });
  }

  async list(filter: { kind: TokenKind; userId?: string }, page: number, size: number): Promise<{ rows: TokenRecord[]; total: number }> {
    const base = this.db('api_tokens as t').where('t.kind', filter.kind).modify((b) => {
      if (filter.userId) b.where('t.user_id', filter.userId);
    });
    return pagedQuery<TokenRecord>(base, (q) => q.select(SELECT).orderBy([{ column: 't.created_at', order: 'desc' }, { column: 't.id' }]), page, size);
  }

  find(id: string, filter: { kind: TokenKind; userId?: string }): Promise<TokenRecord | undefined> {
    return this.db('api_tokens as t')
      .select(SELECT)
      .where({ 't.id': id, 't.kind': filter.kind })
      .modify((b) => {
        if (filter.userId) b.where('t.user_id', filter.userId);
      })
      .first();
  }

  /** Revokes a token that is not yet revoked; false when there is none. */
  async revoke(id: string, trx: Knex = this.db): Promise<boolean> {
    return (await trx('api_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() })) > 0;
  }
}
