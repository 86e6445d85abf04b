// GET and POST /runs/{runId}/diagnosis (docs/interface.md §4.3; roles per api.yaml).
import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { DiagnosisService } from './diagnosis-service.js';

export function diagnosisRouter(diagnosis: DiagnosisService): Router {
  const router = Router();
  router.get('/api/v1/runs/:runId/diagnosis', async (req, res) => {
    res.json({ data: await diagnosis.get(req.params.runId) });
  });
  router.post('/api/v1/runs/:runId/diagnosis', async (req, res) => {
    res.json({ data: await diagnosis.refresh(actorOf(req), req.params.runId) });
  });
  return router;
}
