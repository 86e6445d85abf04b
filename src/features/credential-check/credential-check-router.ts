// POST /api/v1/credentials/{credentialId}/test (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml).
import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { CredentialCheck } from './credential-check.js';

export function credentialCheckRouter(check: CredentialCheck): Router {
  return Router().post('/api/v1/credentials/:credentialId/test', async (req, res) => {
    res.json({ data: await check.test(actorOf(req), req.params.credentialId, req.body) });
  });
}
