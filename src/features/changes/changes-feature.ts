// The changes feature: the change feed of assets and relationships, and the retention of its
// entries (which maintenance's sweep runs).
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReadModel } from '../assets/asset-read-model.js';
import { ChangeFeedService } from './change-feed-service.js';
import { ChangeGraphRepository } from './change-graph-repository.js';
import type { ChangeRetention } from './change-retention.js';
import { changeRouter } from './change-router.js';

export const changesFeature = defineFeature({
  name: 'changes',
  build({ graph, assetReadModel }: Platform & { assetReadModel: AssetReadModel }) {
    const changeGraph = new ChangeGraphRepository(graph);
    const changeRetention: ChangeRetention = changeGraph;
    return { changes: new ChangeFeedService(changeGraph, assetReadModel), changeRetention };
  },
  routes: ({ changes }) => [changeRouter(changes)],
});
