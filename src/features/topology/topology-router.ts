// GET /topology/{id}/neighbors (now, or as it was at a time) and GET /topology/{id}/changes (what
// changed around an asset between two times).
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
      at: q.at === undefined ? undefined : new Date(q.at),
    });
    res.json({ data });
  }).get('/api/v1/topology/:assetId/changes', async (req, res) => {
    const q = queryOf(req, 'getTopologyChanges');
    const data = await topology.changes(req.params.assetId, {
      depth: q.depth ?? 2,
      nodeLimit: q.nodeLimit ?? DEFAULT_NODE_LIMIT,
      // Required by api.yaml: the validator refused a request without it.
      from: new Date(q.from as string),
      to: q.to === undefined ? new Date() : new Date(q.to),
    });
    res.json({ data });
  });
}
