// POST /graph/query (roles in api.yaml: ANALYST, DISCOVERY_ADMIN, ADMINISTRATOR, integration keys).
import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { GraphQueryRequest, GraphQueryService } from './graph-query-service.js';

export function graphQueryRouter(queries: GraphQueryService): Router {
  return Router().post('/api/v1/graph/query', async (req, res) => {
    res.json({ data: await queries.run(actorOf(req), req.body as GraphQueryRequest) });
  });
}
