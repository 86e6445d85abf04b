// The credentials vault over HTTP (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml): metadata only,
// never a secret.
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest, parseSort } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import { CREDENTIAL_KIND_CATALOGUE } from './credential-kinds.js';
import type { CredentialService } from './credential-service.js';
import type { CredentialQuery } from './credential-query.js';

export function credentialRouter(credentials: CredentialService): Router {
  const router = Router();

  router.get('/api/v1/credential-kinds', (_req, res) => {
    res.json({ data: CREDENTIAL_KIND_CATALOGUE });
  });

  router.get('/api/v1/credentials', async (req, res) => {
    const q = queryOf(req, 'listCredentials');
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await credentials.list({
      ...page,
      sort: parseSort<CredentialQuery['sort']['field']>(q.sort, { field: 'name', direction: 'asc' }),
      kinds: q.kind,
      q: q.q,
    });
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/credentials', async (req, res) => {
    res.status(201).json({ data: await credentials.create(actorOf(req), req.body) });
  });

  router.get('/api/v1/credentials/:credentialId', async (req, res) => {
    res.json({ data: await credentials.get(req.params.credentialId) });
  });

  router.get('/api/v1/credentials/:credentialId/targets', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await credentials.targetsNaming(req.params.credentialId, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.put('/api/v1/credentials/:credentialId', async (req, res) => {
    res.json({ data: await credentials.update(actorOf(req), req.params.credentialId, req.body) });
  });

  router.delete('/api/v1/credentials/:credentialId', async (req, res) => {
    await credentials.delete(actorOf(req), req.params.credentialId);
    res.status(204).end();
  });

  return router;
}
