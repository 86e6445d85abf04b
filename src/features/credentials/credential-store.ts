import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { CredentialKind, CredentialKindLookup } from './credential-kinds.js';
import type { CredentialQuery } from './credential-query.js';
import type { SealedSecret } from './vault-cipher.js';

export interface CredentialRecord {
  id: string;
  name: string;
  kind: CredentialKind;
  description: string | null;
  matchPatterns: string[];
  /** Its match patterns may be broad (credential-match.ts). */
  allowBroadMatch: boolean;
  settings: Record<string, unknown>;
  /** Names of the secret fields that hold a value. */
  secretFields: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface CredentialValues {
  name: string;
  kind: CredentialKind;
  description: string | null;
  matchPatterns: string[];
  allowBroadMatch: boolean;
  settings: Record<string, unknown>;
}

const SORT_COLUMNS = { name: 'c.name', kind: 'c.kind', createdAt: 'c.created_at', updatedAt: 'c.updated_at' } as const;

const SELECT = [
  'c.id as id', 'c.name as name', 'c.kind as kind', 'c.description as description', 'c.match_patterns as matchPatterns',
  'c.allow_broad_match as allowBroadMatch', 'c.settings as settings', 'c.created_at as createdAt', 'c.updated_at as updatedAt',
];

/** A discovery target that names a credential. */
export interface CredentialUse {
  id: string;
  name: string;
  enabled: boolean;
}

export class CredentialStore implements CredentialKindLookup {
  constructor(private readonly db: Database) {}

  private withSecretFields(query: Knex.QueryBuilder): Knex.QueryBuilder {
    return query.select(
      this.db.raw(`COALESCE((SELECT array_agg(s.field ORDER BY s.field) FROM credential_secrets s WHERE s.credential_id = c.id), '{}') as "secretFields"`),
    );
  }

  find(id: string, trx: Knex | Database = this.db): Promise<CredentialRecord | undefined> {
    return this.withSecretFields(trx('credentials as c').select(SELECT).where('c.id', id)).first();
  }

  /** The kind of each of these credentials that exists: what a diagnosis may know of them. */
  async kinds(ids: string[]): Promise<CredentialKind[]> {
    if (ids.length === 0) return [];
    return this.db('credentials').whereIn('id', ids).orderBy('kind').pluck('kind');
  }

  async list(query: CredentialQuery): Promise<{ rows: CredentialRecord[]; total: number }> {
    const base = this.db('credentials as c').modify((b) => {
      if (query.kinds?.length) b.whereIn('c.kind', query.kinds);
      if (query.q) b.where((w) => w.whereILike('c.name', `%${query.q}%`).orWhereILike('c.description', `%${query.q}%`));
    });
    const order = [{ column: SORT_COLUMNS[query.sort.field], order: query.sort.direction }, { column: 'c.id' }];
    return pagedQuery<CredentialRecord>(base, (q) => this.withSecretFields(q.select(SELECT)).orderBy(order), query.page, query.size);
  }

  /** The discovery targets that name the credential (offer it besides those matched by pattern), by name. */
  async targetsNaming(id: string, page: number, size: number): Promise<{ rows: CredentialUse[]; total: number }> {
    const base = this.db('discovery_targets as t').whereRaw('? = ANY(t.credential_ids)', [id]);
    return pagedQuery<CredentialUse>(base, (q) => q.select('t.id', 't.name', 't.enabled').orderBy([{ column: 't.name' }, { column: 't.id' }]), page, size);
  }

  async insert(id: string, values: CredentialValues, trx: Knex): Promise<void> {
    await trx('credentials').insert({
      id,
      name: values.name,
      kind: values.kind,
      description: values.description,
      match_patterns: values.matchPatterns,
      allow_broad_match: values.allowBroadMatch,
      settings: JSON.stringify(values.settings),
    });
  }

  async update(id: string, values: Omit<CredentialValues, 'kind'>, trx: Knex): Promise<void> {
    await trx('credentials')
      .where({ id })
      .update({
        name: values.name,
        description: values.description,
        match_patterns: values.matchPatterns,
        allow_broad_match: values.allowBroadMatch,
        settings: JSON.stringify(values.settings),
        updated_at: trx.fn.now(),
      });
  }

  async delete(id: string, trx: Knex): Promise<boolean> {
    return (await trx('credentials').where({ id }).delete()) > 0;
  }

  async putSecret(credentialId: string, field: string, sealed: SealedSecret, trx: Knex): Promise<void> {
    await trx('credential_secrets')
      .insert({ credential_id: credentialId, field, key_version: sealed.keyVersion, iv: sealed.iv, ciphertext: sealed.ciphertext, auth_tag: sealed.authTag })
      .onConflict(['credential_id', 'field'])
      .merge();
  }

  async deleteSecret(credentialId: string, field: string, trx: Knex): Promise<void> {
    await trx('credential_secrets').where({ credential_id: credentialId, field }).delete();
  }

  async secrets(credentialId: string): Promise<Map<string, SealedSecret>> {
    const rows = await this.db('credential_secrets')
      .where({ credential_id: credentialId })
      .select('field', 'key_version as keyVersion', 'iv', 'ciphertext', 'auth_tag as authTag');
    return new Map(rows.map((r) => [r.field as string, r as SealedSecret]));
  }
}
