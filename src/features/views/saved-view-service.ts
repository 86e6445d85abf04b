// Saved views: a user keeps named shapes of a list page (filters, columns, sort) on the server, and
// shares one by its link: anyone signed in may open it, only its owner may change or delete it.
// api.yaml bounds the input's size; here its filters are held to the list's own query parameters,
// and each user to MAX_VIEWS_PER_USER views.
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import type { components } from '../../platform/http/api-types.js';
import { ViewNameTakenError, type SavedViewRecord, type SavedViewStore, type SavedViewValues, type ViewList } from './saved-view-store.js';

export type SavedView = components['schemas']['SavedView'];
export type SavedViewInput = components['schemas']['SavedViewInput'];

/** Views one user may keep. */
export const MAX_VIEWS_PER_USER = 100;

/** Query parameters that page a list rather than choose its rows. */
const PAGING = new Set(['page', 'size', 'cursor', 'sort']);

function toView(record: SavedViewRecord): SavedView {
  return {
    id: record.id,
    name: record.name,
    list: record.list,
    filters: record.filters,
    columns: record.columns,
    sort: record.sort,
    owner: { id: record.ownerId, username: record.ownerName },
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export class SavedViewService {
  private readonly filtersOf: Record<ViewList, Set<string>>;

  /** `queryOf`: each list's query parameters, as api.yaml names them. */
  constructor(
    private readonly store: SavedViewStore,
    queryOf: Record<ViewList, readonly string[]>,
  ) {
    this.filtersOf = { ASSETS: new Set(queryOf.ASSETS.filter((p) => !PAGING.has(p))), RELATIONSHIPS: new Set(queryOf.RELATIONSHIPS.filter((p) => !PAGING.has(p))) };
  }

  async list(ownerId: string, list: ViewList | undefined, page: number, size: number): Promise<{ rows: SavedView[]; total: number }> {
    const { rows, total } = await this.store.list(ownerId, list, page, size);
    return { rows: rows.map(toView), total };
  }

  async get(id: string): Promise<SavedView> {
    const record = await this.store.find(id);
    if (!record) throw new NotFoundError('No such view.');
    return toView(record);
  }

  async create(ownerId: string, input: SavedViewInput): Promise<SavedView> {
    const values = this.checked(input);
    const id = await this.named(values, () => this.store.insert(ownerId, values, MAX_VIEWS_PER_USER));
    if (!id) throw new ConflictError(`You have ${MAX_VIEWS_PER_USER} views, as many as a user may keep: delete one first.`);
    return this.get(id);
  }

  async update(ownerId: string, id: string, input: SavedViewInput): Promise<SavedView> {
    const values = this.checked(input);
    if (!(await this.named(values, () => this.store.update(ownerId, id, values)))) throw await this.notOwned(id);
    return this.get(id);
  }

  async delete(ownerId: string, id: string): Promise<void> {
    if (!(await this.store.delete(ownerId, id))) throw await this.notOwned(id);
  }

  /** Why a view could not be changed: it is not there, or it is another user's. */
  private async notOwned(id: string): Promise<Error> {
    return (await this.store.find(id)) ? new ForbiddenError('Only the owner of a view may change or delete it: save a copy of your own.') : new NotFoundError('No such view.');
  }

  private async named<T>(values: SavedViewValues, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof ViewNameTakenError) throw new ConflictError(`You already have a view of ${values.list} named "${values.name}".`);
      throw error;
    }
  }

  private checked(input: SavedViewInput): SavedViewValues {
    const allowed = this.filtersOf[input.list];
    const unknown = Object.keys(input.filters ?? {}).filter((key) => !allowed.has(key));
    if (unknown.length) {
      throw new BadRequestError(
        `A view keeps the filters of its list: ${input.list} takes ${[...allowed].join(', ')}.`,
        unknown.map((key) => ({ path: `body.filters.${key}`, message: `is not a filter of ${input.list}` })),
      );
    }
    return { name: input.name, list: input.list, filters: input.filters ?? {}, columns: input.columns ?? [], sort: input.sort ?? null };
  }
}
