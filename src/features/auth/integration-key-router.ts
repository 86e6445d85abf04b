// Integration keys (ADMINISTRATOR, per api.yaml): full-access keys for other systems.
import { Router } from 'express';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { ApiTokenService } from './api-token-service.js';
import { actorOf } from './authentication-middleware.js';

const SCOPE = { kind: 'INTEGRATION_KEY' as const };

export function integrationKeyRouter(tokens: ApiTokenService): Router {
  const router = Router();

  router.get('/api/v1/integration-keys', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await tokens.list(SCOPE, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/integration-keys', async (req, res) => {
    res.status(201).json({ data: await tokens.createIntegrationKey(actorOf(req), req.body.name, req.body.expiresAt) });
  });

  router.delete('/api/v1/integration-keys/:keyId', async (req, res) => {
    res.json({ data: await tokens.revoke(actorOf(req), req.params.keyId, SCOPE) });
  });

  return router;
}
