import { Router } from 'express';
import { DEFAULT_NODE_LIMIT, type TopologyService } from './topology-service.js';

export function topologyRouter(topology: TopologyService): Router {
  return Router().get('/api/v1/topology/:assetId/neighbors', async (req, res) => {
    const data = await topology.neighbors(req.params.assetId as string, {
      depth: Number(req.query.depth ?? 2),
      followInterfaceLinks: (req.query.followInterfaceLinks as unknown) === true,
      nodeLimit: Number(req.query.nodeLimit ?? DEFAULT_NODE_LIMIT),
    });
    res.json({ data });
  });
}
