// Discovery targets over HTTP (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import type { TargetService } from './target-service.js';

export function targetRouter(targets: TargetService): Router {
  const router = Router();
  router.get('/api/v1/discovery/targets', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await targets.list(page.page, page.size, queryOf(req, 'listTargets').enabled);
    res.json(pageEnvelope(req, rows, total, page));
  });
  router.post('/api/v1/discovery/targets', async (req, res) => {
    res.status(201).json({ data: await targets.create(actorOf(req), req.body) });
  });
  router.get('/api/v1/discovery/targets/:targetId', async (req, res) => {
    res.json({ data: await targets.get(req.params.targetId) });
  });
  router.put('/api/v1/discovery/targets/:targetId', async (req, res) => {
    res.json({ data: await targets.update(actorOf(req), req.params.targetId, req.body) });
  });
  router.delete('/api/v1/discovery/targets/:targetId', async (req, res) => {
    await targets.delete(actorOf(req), req.params.targetId);
    res.status(204).end();
  });
  return router;
}
