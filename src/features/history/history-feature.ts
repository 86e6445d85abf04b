// The history feature: an asset's changes over time (GET /assets/{id}/history) and assets as they
// were at a time (as-of reads), from PostgreSQL (the sources' values, written by triggers) and the
// graph (status logs and edge periods). Its reads serve the assets and topology routes.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { FactPrecedence } from '../inventory/asset-facts.js';
import { HistoryGraphRepository } from './history-graph-repository.js';
import { HistoryRetention } from './history-retention.js';
import { HistoryService } from './history-service.js';
import { HistoryStore } from './history-store.js';
import { PastAssets } from './past-assets.js';

export const historyFeature = defineFeature({
  name: 'history',
  build({ graph, db, factPrecedence }: Platform & { factPrecedence: FactPrecedence }) {
    const store = new HistoryStore(db);
    const historyGraph = new HistoryGraphRepository(graph);
    return {
      history: new HistoryService([store, historyGraph]),
      pastAssets: new PastAssets(store, historyGraph, factPrecedence),
      historyRetention: new HistoryRetention(store, historyGraph),
    };
  },
});
