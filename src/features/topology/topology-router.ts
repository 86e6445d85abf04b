import { Router } from 'express';
import type { TopologyService } from './topology-service.js';

export function topologyRouter(topology: TopologyService): Router {
  return Router().get('/api/v1/topology/:assetId/neighbors', async (req, res) => {
    res.json({ data: await topology.neighbors(req.params.assetId as string, Number(req.query.depth ?? 2)) });
  });
}
