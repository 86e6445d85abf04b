// The insights feature: feeds of findings over the inventory (stale assets, scan failures,
// duplicate candidates, ...), each declared in insight-feeds.ts.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReads } from '../assets/asset-summary.js';
import { INSIGHT_FEEDS } from './insight-feeds.js';
import { InsightGraphRepository } from './insight-graph-repository.js';
import { insightRouter } from './insight-router.js';
import { InsightService } from './insight-service.js';
import { InsightStore } from './insight-store.js';

export const insightsFeature = defineFeature({
  name: 'insights',
  build: ({ graph, db, assetReads }: Platform & { assetReads: AssetReads }) => ({
    insights: new InsightService(INSIGHT_FEEDS, new InsightGraphRepository(graph), new InsightStore(db), assetReads),
  }),
  routes: ({ insights }) => [insightRouter(insights)],
});
