// The graph-query feature: analysts' read-only Cypher (POST /graph/query) on a Neo4j pool of their
// own, behind a bulkhead.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import { AdHocQueryGraphRepository } from './ad-hoc-query-graph-repository.js';
import { analystBulkhead } from './analyst-bulkhead.js';
import { graphQueryRouter } from './graph-query-router.js';
import { GraphQueryService } from './graph-query-service.js';

export const graphQueryFeature = defineFeature({
  name: 'graph-query',
  build: ({ analystDriver, graph, logger, metrics, config, audit }: Platform & { audit: AuditLog }) => ({
    graphQueries: new GraphQueryService(
      new AdHocQueryGraphRepository(analystDriver, graph, logger.child({ module: 'graph-query' })),
      analystBulkhead(metrics, config),
      audit,
      config.graphQueryTimeoutMs,
    ),
  }),
  routes: ({ graphQueries }) => [graphQueryRouter(graphQueries)],
});
