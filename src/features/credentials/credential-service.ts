// The credentials vault. Secrets are write-only: they are sealed on the way in, and the only way
// out is reveal(), which discovery connectors call in-process; no endpoint returns them. An update
// keeps every secret it does not mention (null removes an optional one).
import { randomUUID } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError, type FieldError } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/postgres/postgres-client.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { KINDS, matchPatternProblem, MAX_SECRET_LENGTH, type CredentialKind } from './credential-kinds.js';
import { broadMatch, type BroadMatchLimits } from './credential-match.js';
import type { CredentialRecord, CredentialStore, CredentialUse } from './credential-store.js';
import type { CredentialQuery } from './credential-query.js';
import type { VaultCipher } from './vault-cipher.js';

/** What the API shows of a credential: its record, dates as text, and whether secrets are set. */
export type CredentialView = Omit<CredentialRecord, 'createdAt' | 'updatedAt'> & {
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string;
};

export interface CredentialInput {
  name: string;
  kind: CredentialKind;
  description?: string | null;
  matchPatterns: string[];
  allowBroadMatch?: boolean;
  settings?: Record<string, unknown>;
  secrets?: Record<string, string | null>;
}

export type CredentialUpdate = Partial<CredentialInput>;

/** A credential with its secrets in clear, for a connector about to use it. */
export interface RevealedCredential extends CredentialView {
  secrets: Record<string, string>;
}

export function toCredentialView(record: CredentialRecord): CredentialView {
  return {
    id: record.id,
    name: record.name,
    kind: record.kind,
    description: record.description,
    matchPatterns: record.matchPatterns,
    allowBroadMatch: record.allowBroadMatch,
    settings: record.settings,
    hasSecret: record.secretFields.length > 0,
    secretFields: record.secretFields,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

interface Validated {
  settings: Record<string, unknown>;
  toSeal: Map<string, string>;
  toRemove: string[];
}

function validate(kind: CredentialKind, input: CredentialUpdate, existingSecrets: string[], limits: BroadMatchLimits): Validated {
  const definition = KINDS[kind];
  const errors: FieldError[] = [];
  const parsed = definition.settings.safeParse(input.settings ?? {});
  const settings = parsed.success ? parsed.data : {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.')];
      for (const key of keys) errors.push({ path: `body.settings${key ? `.${key}` : ''}`, message: issue.code === 'unrecognized_keys' ? `is not a setting of ${kind}` : issue.message });
    }
  }
  for (const [i, pattern] of (input.matchPatterns ?? []).entries()) {
    const problem = matchPatternProblem(pattern);
    const broad = problem || input.allowBroadMatch ? undefined : broadMatch(pattern, limits);
    if (problem) errors.push({ path: `body.matchPatterns.${i}`, message: problem });
    else if (broad) {
      errors.push({ path: `body.matchPatterns.${i}`, message: `${broad}: its secret would be offered to every address there that answers, a rogue host too; set allowBroadMatch: true to allow it` });
    }
  }
  const toSeal = new Map<string, string>();
  const toRemove: string[] = [];
  for (const [field, value] of Object.entries(input.secrets ?? {})) {
    const requiredRule = definition.secrets[field];
    if (!requiredRule) errors.push({ path: `body.secrets.${field}`, message: `is not a secret field of ${kind}` });
    else if (value === null) toRemove.push(field);
    else if (value.length === 0 || value.length > MAX_SECRET_LENGTH) errors.push({ path: `body.secrets.${field}`, message: `must be 1 to ${MAX_SECRET_LENGTH} characters` });
    else toSeal.set(field, value);
  }
  const present = new Set([...existingSecrets.filter((f) => !toRemove.includes(f) && definition.secrets[f]), ...toSeal.keys()]);
  for (const [field, isRequired] of Object.entries(definition.secrets)) {
    if (parsed.success && isRequired(settings) && !present.has(field)) errors.push({ path: `body.secrets.${field}`, message: `is required for ${kind}` });
  }
  if (errors.length) throw new BadRequestError('The credential is not valid.', errors);
  return { settings, toSeal, toRemove };
}

export class CredentialService {
  constructor(
    private readonly store: CredentialStore,
    private readonly cipher: VaultCipher,
    private readonly audit: AuditLog,
    private readonly broadMatchLimits: BroadMatchLimits,
  ) {}

  async list(query: CredentialQuery): Promise<{ rows: CredentialView[]; total: number }> {
    const { rows, total } = await this.store.list(query);
    return { rows: rows.map(toCredentialView), total };
  }

  async get(id: string): Promise<CredentialView> {
    return toCredentialView(await this.require(id));
  }

  async create(actor: Actor, input: CredentialInput): Promise<CredentialView> {
    const { settings, toSeal } = validate(input.kind, input, [], this.broadMatchLimits);
    const allowBroadMatch = input.allowBroadMatch ?? false;
    const id = randomUUID();
    await this.unique(input.name, () =>
      this.audit.write(actor, async (trx) => {
        await this.store.insert(id, { name: input.name, kind: input.kind, description: input.description ?? null, matchPatterns: input.matchPatterns, allowBroadMatch, settings }, trx);
        for (const [field, value] of toSeal) await this.store.putSecret(id, field, this.cipher.seal(id, field, value), trx);
      }, () => ({
        action: 'credential.create',
        targetKind: 'CREDENTIAL',
        targetId: id,
        details: { name: input.name, kind: input.kind, matchPatterns: input.matchPatterns, allowBroadMatch, secretFields: [...toSeal.keys()] },
      })),
    );
    return this.get(id);
  }

  async update(actor: Actor, id: string, input: CredentialUpdate): Promise<CredentialView> {
    const current = await this.require(id);
    if (input.kind !== undefined && input.kind !== current.kind) {
      throw new BadRequestError('The kind of a credential cannot change; create a new credential.', [{ path: 'body.kind', message: `is ${current.kind}` }]);
    }
    const merged = {
      name: input.name ?? current.name,
      description: input.description !== undefined ? input.description : current.description,
      matchPatterns: input.matchPatterns ?? current.matchPatterns,
      allowBroadMatch: input.allowBroadMatch ?? current.allowBroadMatch,
      settings: input.settings ?? current.settings,
    };
    const { settings, toSeal, toRemove } = validate(current.kind, { ...merged, secrets: input.secrets }, current.secretFields, this.broadMatchLimits);
    const changed = (['name', 'description', 'matchPatterns', 'allowBroadMatch', 'settings'] as const).filter((k) => input[k] !== undefined && JSON.stringify(input[k]) !== JSON.stringify(current[k]));
    await this.unique(merged.name, () =>
      this.audit.write(actor, async (trx) => {
        await this.store.update(id, { ...merged, settings }, trx);
        for (const [field, value] of toSeal) await this.store.putSecret(id, field, this.cipher.seal(id, field, value), trx);
        for (const field of toRemove) await this.store.deleteSecret(id, field, trx);
      }, () => ({
        action: 'credential.update',
        targetKind: 'CREDENTIAL',
        targetId: id,
        details: {
          name: merged.name,
          changed,
          secretsReplaced: [...toSeal.keys()],
          secretsRemoved: toRemove,
          ...(changed.includes('matchPatterns') ? { matchPatterns: { from: current.matchPatterns, to: merged.matchPatterns } } : {}),
          ...(changed.includes('allowBroadMatch') ? { allowBroadMatch: merged.allowBroadMatch } : {}),
        },
      })),
    );
    return this.get(id);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const current = await this.require(id);
    await this.audit.write(actor, (trx) => this.store.delete(id, trx), () => ({ action: 'credential.delete', targetKind: 'CREDENTIAL', targetId: id, details: { name: current.name, kind: current.kind } }));
  }

  /** The patterns a credential is offered by: a broad one only with allowBroadMatch (it may have been kept before the rule, or under wider settings). */
  patternsOffered(matchPatterns: string[], allowBroadMatch: boolean): string[] {
    return allowBroadMatch ? matchPatterns : matchPatterns.filter((p) => !broadMatch(p, this.broadMatchLimits));
  }

  /** The secrets in clear, for a connector in this process. Never send the result anywhere. */
  async reveal(id: string): Promise<RevealedCredential> {
    const record = await this.require(id);
    const sealed = await this.store.secrets(id);
    const secrets: Record<string, string> = {};
    for (const [field, value] of sealed) secrets[field] = this.cipher.open(id, field, value);
    return { ...toCredentialView(record), secrets };
  }

  /** Where the credential is used: the discovery targets that name it. */
  async targetsNaming(id: string, page: number, size: number): Promise<{ rows: CredentialUse[]; total: number }> {
    await this.require(id);
    return this.store.targetsNaming(id, page, size);
  }

  private async require(id: string): Promise<CredentialRecord> {
    const record = await this.store.find(id);
    if (!record) throw new NotFoundError(`No credential with id ${id}.`);
    return record;
  }

  private async unique(name: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A credential named "${name}" already exists.`);
      throw error;
    }
  }
}
