// GET /runs/{runId}/alert: how the team-chat alert of a run went (roles per api.yaml).
import { Router } from 'express';
import type { AlertService } from './alert-service.js';

export function alertRouter(alerts: AlertService): Router {
  const router = Router();
  router.get('/api/v1/runs/:runId/alert', async (req, res) => {
    res.json({ data: await alerts.get(req.params.runId) });
  });
  return router;
}
