import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_NODE_LIMIT, type TopologyService } from './topology-service.js';

export function topologyRouter(topology: TopologyService): Router {
  return Router().get('/api/v1/topology/:assetId/neighbors', async (req, res) => {
    const q = queryOf(req, 'getTopologyNeighbors');
    const data = await topology.neighbors(req.params.assetId, {
      depth: q.depth ?? 2,
      followInterfaceLinks: q.followInterfaceLinks === true,
      nodeLimit: q.nodeLimit ?? DEFAULT_NODE_LIMIT,
    });
    res.json({ data });
  });
}
