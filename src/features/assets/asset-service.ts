// Lifecycle actions of docs/interface.md §3.1: reactivate (STALE, INACTIVE, DECOMMISSIONED to ACTIVE) and
// decommission (any other state to DECOMMISSIONED). A transition not allowed from the current
// state is a 409; both are audited.
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { AssetGraphRepository } from './asset-graph-repository.js';
import type { AssetNode } from './asset-summary.js';
import type { AssetReadModel, AssetRow } from './asset-read-model.js';

export class AssetService {
  constructor(
    private readonly assets: AssetGraphRepository,
    private readonly readModel: AssetReadModel,
    private readonly audit: AuditLog,
  ) {}

  async get(id: string): Promise<AssetRow> {
    const row = await this.readModel.get(id);
    if (!row) throw new NotFoundError(`No asset with id ${id}.`);
    return row;
  }

  /** Throws 404 unless an asset has this id. */
  async require(id: string): Promise<void> {
    if (!(await this.readModel.exists(id))) throw new NotFoundError(`No asset with id ${id}.`);
  }

  decommission(actor: Actor, id: string): Promise<AssetRow> {
    return this.transition(actor, id, 'decommission', (x) => this.assets.decommission(x), 'is already DECOMMISSIONED');
  }

  reactivate(actor: Actor, id: string): Promise<AssetRow> {
    return this.transition(actor, id, 'reactivate', (x) => this.assets.reactivate(x), 'is already ACTIVE');
  }

  private async transition(actor: Actor, id: string, action: string, change: (id: string) => Promise<AssetNode | undefined>, refusal: string): Promise<AssetRow> {
    const before = await this.assets.get(id);
    if (!before) throw new NotFoundError(`No asset with id ${id}.`);
    const after = await change(id);
    if (!after) throw new ConflictError(`The asset ${refusal}: it cannot ${action} from ${before.status}.`);
    await this.audit.record(actor, { action: `asset.${action}`, targetKind: 'ASSET', targetId: id, details: { displayName: before.displayName, from: before.status, to: after.status } });
    return this.get(id);
  }
}
