// The history feature: an asset's changes over time, merged from PostgreSQL (the sources' values)
// and the graph (status log and edge periods).
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetService } from '../assets/asset-service.js';
import { HistoryGraphRepository } from './history-graph-repository.js';
import { historyRouter } from './history-router.js';
import { HistoryService } from './history-service.js';
import { HistoryStore } from './history-store.js';

export const historyFeature = defineFeature({
  name: 'history',
  build({ graph, db }: Platform & { assets: AssetService }) {
    return { history: new HistoryService([new HistoryStore(db), new HistoryGraphRepository(graph)]) };
  },
  routes: ({ history, assets }) => [historyRouter(history, assets)],
});
