// The exports feature: assets, relationships and each sub-record kind streamed as CSV or JSON,
// the PostgreSQL ones on the export pool.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReads } from '../assets/asset-summary.js';
import type { RelationshipReads } from '../relationships/relationship-row.js';
import { exportRouter } from './export-router.js';
import { ExportService } from './export-service.js';
import { SubRecordExportStore } from './sub-record-export-store.js';

export const exportsFeature = defineFeature({
  name: 'exports',
  build: ({ copyPool, config, assetReads, relationships }: Platform & { assetReads: AssetReads; relationships: RelationshipReads }) => ({
    exports: new ExportService(assetReads, relationships, new SubRecordExportStore(copyPool), config.storeTimeoutMs),
  }),
  routes: ({ exports, metrics }) => [exportRouter(exports, metrics.exportRows)],
});
