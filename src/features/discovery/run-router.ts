// Scans and runs over HTTP (roles per api.yaml).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import type { DiscoveryService } from './discovery-service.js';

export function runRouter(discovery: DiscoveryService): Router {
  const router = Router();
  router.post('/api/v1/discovery/targets/:targetId/scan', async (req, res) => {
    res.status(202).json({ data: await discovery.scan(actorOf(req), req.params.targetId) });
  });
  router.get('/api/v1/discovery/runs', async (req, res) => {
    const q = queryOf(req, 'listRuns');
    const request = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { page, total } = await discovery.list({ targetId: q.targetId?.toLowerCase(), statuses: q.status }, request);
    res.json(pageEnvelope(req, page.rows, total, request, page));
  });
  router.get('/api/v1/discovery/runs/:runId', async (req, res) => {
    res.json({ data: await discovery.get(req.params.runId) });
  });
  router.get('/api/v1/discovery/runs/:runId/hosts', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await discovery.hosts(req.params.runId, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });
  router.get('/api/v1/discovery/runs/:runId/chunks', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await discovery.chunks(req.params.runId, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });
  router.post('/api/v1/discovery/runs/:runId/cancel', async (req, res) => {
    res.json({ data: await discovery.cancel(actorOf(req), req.params.runId) });
  });
  return router;
}
