// The maintenance feature: the retention sweep, the aging sweep and the compaction of row counts,
// as recurring jobs and runnable now by name (POST /jobs/{name}/run).
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { ChangeRetention } from '../changes/change-retention.js';
import type { HistoryRetention } from '../history/history-retention.js';
import type { AssetNameIndex } from '../inventory/asset-name.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import type { UnwrittenAssetSweep } from '../inventory/unwritten-asset-sweep.js';
import { AgingSweep } from './aging-sweep.js';
import { MaintenanceJobs } from './maintenance-jobs.js';
import { maintenanceRouter } from './maintenance-router.js';
import { RetentionSweep } from './retention-sweep.js';

type Needs = Platform & { audit: AuditLog; inventory: InventoryWriter; assetNames: AssetNameIndex; changeRetention: ChangeRetention; unwrittenAssets: UnwrittenAssetSweep; historyRetention: HistoryRetention };

export const maintenanceFeature = defineFeature({
  name: 'maintenance',
  build: ({ db, graph, rowCounts, config, logger, inventory, assetNames, changeRetention, unwrittenAssets, historyRetention }: Needs) => ({
    maintenance: new MaintenanceJobs(
      new RetentionSweep(db, graph, rowCounts, assetNames, changeRetention, unwrittenAssets, historyRetention, {
        subAssetDays: config.retentionSubAssetDays, retiredDays: config.retentionRetiredDays, historyDays: config.historyRetentionDays,
      }),
      new AgingSweep(graph, inventory, config.agingStaleAfterDays, config.agingInactiveAfterDays),
      rowCounts,
      logger,
    ),
  }),
  routes: ({ maintenance, audit }) => [maintenanceRouter(maintenance, audit)],
  jobs: ({ maintenance, scheduler, config }) => maintenance.register(scheduler, { 'retention-sweep': config.retentionCron, 'aging-sweep': config.agingCron, 'row-count-compaction': config.rowCountsCron }),
});
