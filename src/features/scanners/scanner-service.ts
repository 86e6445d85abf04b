// Remote scanners as administrators manage them: created with a token shown once (svcs_, kept as
// a keyed hash like every token, by the auth feature's own code), listed with their last contact,
// version and chunks done, and revoked (the token stops working in every API process at once).
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/postgres/postgres-client.js';
import type { ApiTokenService } from '../auth/api-token-service.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { Principal } from '../auth/roles.js';
import type { ScannerRecord, ScannerStore } from './scanner-store.js';

export interface ScannerView {
  id: string;
  name: string;
  group: string;
  hint: string;
  status: 'ACTIVE' | 'REVOKED';
  createdAt: string;
  revokedAt: string | null;
  lastContactAt: string | null;
  version: string | null;
  chunksDone: number;
}

const SCOPE = { kind: 'SCANNER_TOKEN' as const };

function toView(record: ScannerRecord): ScannerView {
  return {
    id: record.id,
    name: record.name,
    group: record.group,
    hint: record.hint,
    status: record.revokedAt ? 'REVOKED' : 'ACTIVE',
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
    lastContactAt: record.lastContactAt?.toISOString() ?? null,
    version: record.version,
    chunksDone: record.chunksDone,
  };
}

export class ScannerService {
  constructor(
    private readonly store: ScannerStore,
    private readonly tokens: ApiTokenService,
    private readonly audit: AuditLog,
  ) {}

  async create(actor: Actor, input: { name: string; group: string }): Promise<ScannerView & { token: string }> {
    try {
      const { id, token } = await this.audit.write(
        actor,
        async (trx) => {
          const issued = await this.tokens.issue(actor, { kind: 'SCANNER_TOKEN', userId: null, name: input.name, expiresAt: null }, trx);
          await this.store.insert({ id: issued.record.id, ...input }, trx);
          return { id: issued.record.id, token: issued.token };
        },
        (created) => ({ action: 'scanner.create', targetKind: 'SCANNER', targetId: created.id, details: { name: input.name, group: input.group } }),
      );
      return { ...toView((await this.store.find(id)) as ScannerRecord), token };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A scanner named "${input.name}" already exists.`);
      throw error;
    }
  }

  async list(page: number, size: number): Promise<{ rows: ScannerView[]; total: number }> {
    const { rows, total } = await this.store.list(page, size);
    return { rows: rows.map(toView), total };
  }

  async revoke(actor: Actor, id: string): Promise<ScannerView> {
    if (!(await this.store.find(id))) throw new NotFoundError(`No scanner with id ${id}.`);
    await this.tokens.revoke(actor, id, SCOPE);
    return toView((await this.store.find(id)) as ScannerRecord);
  }

  /** The scanner a scanner principal stands for (its token is checked by then), its contact recorded. */
  async identify(principal: Principal, version?: string): Promise<ScannerRecord> {
    const scanner = await this.store.find(principal.id);
    if (!scanner) throw new NotFoundError('No such scanner.');
    await this.store.touch(scanner.id, version);
    return scanner;
  }
}
