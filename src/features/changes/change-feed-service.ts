// GET /changes: every asset and relationship changed after a point, in the order the changes
// committed, each once with its latest state (created, updated, stale, inactive, decommissioned,
// reactivated, retired), and a cursor to resume from. A consumer that applies the items in order
// ends with exactly the service's state; one further behind than the retention of retired
// relationships has missed some and is told to resync (410).
import { GoneError } from '../../platform/errors.js';
import type { AssetReadModel, AssetRow } from '../assets/asset-read-model.js';
import type { RelationshipRow } from '../relationships/relationship-row.js';
import type { ChangeGraphRepository } from './change-graph-repository.js';

export interface ChangeItem {
  /** The item's place in the feed: pass the last one seen as `after` to resume. */
  seq: string;
  entity: 'ASSET' | 'RELATIONSHIP';
  kind: string;
  id: string;
  changedAt: string | null;
  asset?: AssetRow;
  relationship?: RelationshipRow;
}

export interface ChangePage {
  items: ChangeItem[];
  /** Where the next read starts: the last item's seq, or `after` when nothing changed since. */
  cursor: string;
  more: boolean;
}

export const DEFAULT_CHANGE_LIMIT = 100;
export const MAX_CHANGE_LIMIT = 1000;

export class ChangeFeedService {
  constructor(
    private readonly changes: ChangeGraphRepository,
    private readonly assets: AssetReadModel,
  ) {}

  async after(after: number, limit: number): Promise<ChangePage> {
    const { purgedThrough } = await this.changes.horizon();
    if (after < purgedThrough) {
      throw new GoneError(`Changes up to ${purgedThrough} were purged (retired relationships are kept for service.retention.retired-days): read the lists again, then follow the feed from after=${purgedThrough}.`);
    }
    // One more than asked, to tell whether more follow.
    const [assets, relationships] = await Promise.all([this.changes.assets(after, limit + 1), this.changes.relationships(after, limit + 1)]);
    const merged = [...assets.map((a) => ({ ...a, entity: 'ASSET' as const })), ...relationships.map((r) => ({ ...r, entity: 'RELATIONSHIP' as const }))].sort((a, b) => a.seq - b.seq);
    const page = merged.slice(0, limit);
    const rows = new Map((await this.assets.withParents(page.flatMap((c) => (c.entity === 'ASSET' ? [c.item] : [])))).map((row) => [row.id, row]));
    const items = page.map((c): ChangeItem => {
      if (c.entity === 'ASSET') {
        const asset = rows.get(c.item.id) as AssetRow;
        return { seq: String(c.seq), entity: 'ASSET', kind: c.kind, id: asset.id, changedAt: asset.updatedAt ?? null, asset };
      }
      const relationship = c.item;
      return { seq: String(c.seq), entity: 'RELATIONSHIP', kind: c.kind, id: relationship.id, changedAt: relationship.updatedAt, relationship };
    });
    return { items, cursor: items.at(-1)?.seq ?? String(after), more: merged.length > limit };
  }
}
