// The scanners feature: remote scanners' records and tokens, and their administration.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ApiTokenService } from '../auth/api-token-service.js';
import type { AuditLog } from '../auth/audit-log.js';
import { scannerRouter } from './scanner-router.js';
import { ScannerService } from './scanner-service.js';
import { ScannerStore } from './scanner-store.js';

type Needs = Pick<Platform, 'db'> & { tokens: ApiTokenService; audit: AuditLog };

export const scannersFeature = defineFeature({
  name: 'scanners',
  build({ db, tokens, audit }: Needs) {
    return { scanners: new ScannerService(new ScannerStore(db), tokens, audit) };
  },
  routes: ({ scanners }) => [scannerRouter(scanners)],
});
