// The import feature: a caller's bundle (POST /import), checked and handed to the inventory writer.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import { importRouter } from './import-router.js';
import { ImportService } from './import-service.js';

export const importFeature = defineFeature({
  name: 'import',
  build: ({ config, inventory }: Platform & { inventory: InventoryWriter }) => ({
    importer: new ImportService(inventory, {
      maxAgeDays: Math.min(config.agingInactiveAfterDays, config.retentionSubAssetDays),
      clockSkewSeconds: config.importClockSkewSeconds,
    }),
  }),
  routes: ({ importer }) => [importRouter(importer)],
});
