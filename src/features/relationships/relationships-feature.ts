// The relationships feature: the graph's edges, listed and walked in bulk with the next pages read
// ahead (counted, served or stale, in list_read_ahead_pages_total).
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { RelationshipGraphRepository } from './relationship-graph-repository.js';
import { relationshipRouter } from './relationship-router.js';

export const relationshipsFeature = defineFeature({
  name: 'relationships',
  build({ graph, metrics }: Platform) {
    const readAheads = metrics.counter({
      name: 'list_read_ahead_pages_total',
      help: 'Pages of a walk in bulk read before they were asked for: served, or stale (the graph changed since) and read again.',
      labelNames: ['list', 'outcome'],
    });
    return { relationships: new RelationshipGraphRepository(graph, (outcome) => readAheads.inc({ list: 'relationships', outcome })) };
  },
  routes: ({ relationships }) => [relationshipRouter(relationships)],
});
