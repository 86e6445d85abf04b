// The scanners' rows (migration create_scanners), each beside its token in api_tokens, which says
// whether it still works.
import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';

export interface ScannerRecord {
  id: string;
  name: string;
  group: string;
  hint: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastContactAt: Date | null;
  version: string | null;
  chunksDone: number;
}

const SELECT = [
  's.id as id', 's.name as name', 's.scanner_group as group', 't.hint as hint', 't.created_at as createdAt', 't.revoked_at as revokedAt',
  's.last_contact_at as lastContactAt', 's.version as version', 's.chunks_done as chunksDone',
];

// A contact is written at most this often per scanner: its long polls come back every few seconds.
const CONTACT_INTERVAL_MS = 10_000;

export class ScannerStore {
  constructor(private readonly db: Database) {}

  async insert(scanner: { id: string; name: string; group: string }, trx: Knex): Promise<void> {
    await trx('scanners').insert({ id: scanner.id, name: scanner.name, scanner_group: scanner.group });
  }

  private selected(db: Knex = this.db) {
    return db('scanners as s').join('api_tokens as t', 't.id', 's.id').select(SELECT);
  }

  find(id: string): Promise<ScannerRecord | undefined> {
    return this.selected().where('s.id', id).first();
  }

  /** Newest first. */
  list(page: number, size: number): Promise<{ rows: ScannerRecord[]; total: number }> {
    return pagedQuery<ScannerRecord>(this.db('scanners as s').join('api_tokens as t', 't.id', 's.id'), (q) => q.select(SELECT).orderBy([{ column: 't.created_at', order: 'desc' }, { column: 's.id' }]), page, size);
  }

  /** Records a contact (and the version the scanner reported), unless one was recorded a moment ago with the same version. */
  async touch(id: string, version: string | undefined): Promise<void> {
    await this.db('scanners')
      .where({ id })
      .where((w) => w.whereNull('last_contact_at').orWhere('last_contact_at', '<', new Date(Date.now() - CONTACT_INTERVAL_MS)).modify((b) => {
        if (version !== undefined) b.orWhereRaw('version IS DISTINCT FROM ?', [version]);
      }))
      .update({ last_contact_at: this.db.fn.now(), ...(version !== undefined ? { version } : {}) });
  }

  /** Counts a chunk the scanner ended, in the transaction that ended it. */
  async countChunk(id: string, trx: Knex): Promise<void> {
    await trx('scanners').where({ id }).increment('chunks_done', 1);
  }
}
