// Saved views in PostgreSQL (saved_views): a user's named filters, columns and sort of a list page.
import type { components } from '../../platform/http/api-types.js';
import { countRows, isUniqueViolation, pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';

export type ViewList = components['schemas']['ViewList'];

export interface SavedViewValues {
  name: string;
  list: ViewList;
  filters: Record<string, string>;
  columns: string[];
  sort: string | null;
}

export interface SavedViewRecord extends SavedViewValues {
  id: string;
  ownerId: string;
  ownerName: string;
  createdAt: Date;
  updatedAt: Date;
}

const SELECT = [
  'v.id as id', 'v.owner_id as ownerId', 'u.username as ownerName', 'v.name as name', 'v.list as list', 'v.filters as filters',
  'v.columns as columns', 'v.sort as sort', 'v.created_at as createdAt', 'v.updated_at as updatedAt',
];

/** The name is taken among the owner's views of that list. */
export class ViewNameTakenError extends Error {
  override name = 'ViewNameTakenError';
}

const rowOf = (values: SavedViewValues) => ({ name: values.name, list: values.list, filters: JSON.stringify(values.filters), columns: values.columns, sort: values.sort });

export class SavedViewStore {
  constructor(private readonly db: Database) {}

  private selected() {
    return this.db('saved_views as v').join('users as u', 'u.id', 'v.owner_id').select(SELECT);
  }

  find(id: string): Promise<SavedViewRecord | undefined> {
    return this.selected().where('v.id', id).first();
  }

  /** One owner's views, of one list or all, by name. */
  list(ownerId: string, list: ViewList | undefined, page: number, size: number): Promise<{ rows: SavedViewRecord[]; total: number }> {
    const filtered = this.db('saved_views as v').where('v.owner_id', ownerId).modify((q) => {
      if (list) q.where('v.list', list);
    });
    return pagedQuery<SavedViewRecord>(filtered, (q) => q.join('users as u', 'u.id', 'v.owner_id').select(SELECT).orderBy([{ column: 'v.name' }, { column: 'v.list' }, { column: 'v.id' }]), page, size);
  }

  /**
   * Inserts a view unless its owner already has `limit` (then undefined). The owner's row is locked
   * while its views are counted, so that two saves at once cannot both pass the limit.
   */
  async insert(ownerId: string, values: SavedViewValues, limit: number): Promise<string | undefined> {
    try {
      return await this.db.transaction(async (trx) => {
        await trx('users').where({ id: ownerId }).forUpdate().select('id');
        if ((await countRows(trx('saved_views').where({ owner_id: ownerId }))) >= limit) return undefined;
        const [row] = await trx('saved_views').insert({ owner_id: ownerId, ...rowOf(values) }).returning<{ id: string }[]>('id');
        return row?.id;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ViewNameTakenError(values.name);
      throw error;
    }
  }

  /** Replaces an owner's view; false when the owner has no view of that id. */
  async update(ownerId: string, id: string, values: SavedViewValues): Promise<boolean> {
    try {
      const changed = await this.db('saved_views').where({ id, owner_id: ownerId }).update({ ...rowOf(values), updated_at: this.db.fn.now() });
      return changed > 0;
    } catch (error) {
      if (isUniqueViolation(error)) throw new ViewNameTakenError(values.name);
      throw error;
    }
  }

  /** Deletes an owner's view; false when the owner has no view of that id. */
  async delete(ownerId: string, id: string): Promise<boolean> {
    return (await this.db('saved_views').where({ id, owner_id: ownerId }).delete()) > 0;
  }
}
