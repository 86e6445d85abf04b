// The assets feature: graph assets and synthesized ones (sub-record rows) in one read model, their
// lifecycle actions, and their routes (which show an asset's relationships and provenance too).
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { HistoryService } from '../history/history-service.js';
import type { PastAssets } from '../history/past-assets.js';
import type { ProvenanceService } from '../inventory/provenance-service.js';
import type { RelationshipReads } from '../relationships/relationship-row.js';
import { AssetGraphRepository } from './asset-graph-repository.js';
import { AssetReadModel } from './asset-read-model.js';
import { assetRouter } from './asset-router.js';
import { AssetService } from './asset-service.js';
import type { AssetReads } from './asset-summary.js';
import { SynthesizedAssetStore } from './synthesized-asset-store.js';

type Needs = Platform & { audit: AuditLog; relationships: RelationshipReads; provenance: ProvenanceService; history: HistoryService; pastAssets: PastAssets };

export const assetsFeature = defineFeature({
  name: 'assets',
  build({ graph, db, rowCounts, audit, pastAssets }: Needs) {
    const assetGraph = new AssetGraphRepository(graph);
    const assetReadModel = new AssetReadModel(assetGraph, new SynthesizedAssetStore(db, rowCounts), pastAssets);
    const assetReads: AssetReads = assetGraph;
    return { assetReads, assetReadModel, assets: new AssetService(assetGraph, assetReadModel, audit) };
  },
  routes: ({ assetReadModel, assets, relationships, provenance, history }) => [assetRouter(assetReadModel, assets, relationships, provenance, history)],
});
