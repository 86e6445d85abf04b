// The scanners feature: remote scanners' records and tokens, their administration, and the
// operations through which they take and report the chunks of their group's runs.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { ApiTokenService } from '../auth/api-token-service.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { RemoteChunkService } from '../discovery/remote-chunk-service.js';
import { scannerChunkRouter } from './scanner-chunk-router.js';
import { ScannerChunkService } from './scanner-chunk-service.js';
import { scannerRouter } from './scanner-router.js';
import { ScannerService } from './scanner-service.js';
import { ScannerStore } from './scanner-store.js';

type Needs = Pick<Platform, 'db' | 'metrics'> & { tokens: ApiTokenService; audit: AuditLog; remoteChunks: RemoteChunkService };

// Claims waiting at once in one API process, and how often each looks for a chunk.
const MAX_WAITING_CLAIMS = 1000;
const CLAIM_POLL_MS = 1000;

export const scannersFeature = defineFeature({
  name: 'scanners',
  build({ db, metrics, tokens, audit, remoteChunks }: Needs) {
    const store = new ScannerStore(db);
    const scanners = new ScannerService(store, tokens, audit);
    const refused = metrics.counter({ name: 'scanner_claims_refused_total', help: 'Claims of remote scanners refused (429) because too many were waiting in this process.' });
    return {
      scanners,
      scannerChunks: new ScannerChunkService(scanners, store, remoteChunks, { maxWaiting: MAX_WAITING_CLAIMS, pollMs: CLAIM_POLL_MS }, () => refused.inc()),
    };
  },
  routes: ({ scanners, scannerChunks }) => [scannerRouter(scanners), scannerChunkRouter(scannerChunks)],
});
