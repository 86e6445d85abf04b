// The topology feature: an asset's neighbourhood to a depth, with the links between interfaces.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReadModel } from '../assets/asset-read-model.js';
import type { AssetReads } from '../assets/asset-summary.js';
import type { PastAssets } from '../history/past-assets.js';
import { InterfaceLinkStore } from './interface-link-store.js';
import { TopologyGraphRepository } from './topology-graph-repository.js';
import { topologyRouter } from './topology-router.js';
import { TopologyService } from './topology-service.js';

export const topologyFeature = defineFeature({
  name: 'topology',
  build: ({ graph, db, assetReads, assetReadModel, pastAssets }: Platform & { assetReads: AssetReads; assetReadModel: AssetReadModel; pastAssets: PastAssets }) => ({
    topology: new TopologyService(new TopologyGraphRepository(graph), assetReads, assetReadModel, new InterfaceLinkStore(db), pastAssets),
  }),
  routes: ({ topology }) => [topologyRouter(topology)],
});
