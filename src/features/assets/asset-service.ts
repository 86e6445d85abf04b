// Lifecycle actions of docs/interface.md §3.1: reactivate (STALE, INACTIVE, DECOMMISSIONED to ACTIVE) and
// decommission (any other state to DECOMMISSIONED). A transition not allowed from the current
// state is a 409; both are audited.
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { statusLogActor } from '../inventory/status-log.js';
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

  /** The asset as it was at `at`; 404 where it did not exist then, 410 before the history's horizon. */
  async getAt(id: string, at: Date): Promise<AssetRow> {
    const row = await this.readModel.getAt(id, at);
    if (!row) throw new NotFoundError(`No asset with id ${id} at ${at.toISOString()}.`);
    return row;
  }

  /** Throws 404 unless an asset has this id. */
  async require(id: string): Promise<void> {
    if (!(await this.readModel.exists(id))) throw new NotFoundError(`No asset with id ${id}.`);
  }

  decommission(actor: Actor, id: string): Promise<AssetRow> {
    return this.transition(actor, id, 'decommission', 'DECOMMISSIONED', (x) => this.assets.decommission(x, statusLogActor(actor)));
  }

  reactivate(actor: Actor, id: string): Promise<AssetRow> {
    return this.transition(actor, id, 'reactivate', 'ACTIVE', (x) => this.assets.reactivate(x, statusLogActor(actor)));
  }

  /** The graph change runs once its audit row is written, inside that row's transaction: a change that fails or is refused takes the row back. */
  private async transition(actor: Actor, id: string, action: string, to: string, change: (id: string) => Promise<AssetNode | undefined>): Promise<AssetRow> {
    const before = await this.assets.get(id);
    if (!before) throw new NotFoundError(`No asset with id ${id}.`);
    await this.audit.write(actor, async () => {
      if (!(await change(id))) throw new ConflictError(`The asset is already ${to}: it cannot ${action} from ${before.status}.`);
    }, { action: `asset.${action}`, targetKind: 'ASSET', targetId: id, details: { displayName: before.displayName, from: before.status, to } });
    return this.get(id);
  }
}
