// The credentials vault over HTTP (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml): metadata only,
// never a secret.
import { Router } from 'express';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest, parseSort } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import type { CredentialKind } from './credential-kinds.js';
import type { CredentialService } from './credential-service.js';
import type { CredentialQuery } from './credential-query.js';

export function credentialRouter(credentials: CredentialService): Router {
  const router = Router();

  router.get('/api/v1/credentials', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await credentials.list({
      ...page,
      sort: parseSort<CredentialQuery['sort']['field']>(req.query.sort, { field: 'name', direction: 'asc' }),
      kinds: req.query.kind as CredentialKind[] | undefined,
      q: req.query.q as string | undefined,
    });
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/credentials', async (req, res) => {
    res.status(201).json({ data: await credentials.create(actorOf(req), req.body) });
  });

  router.get('/api/v1/credentials/:credentialId', async (req, res) => {
    res.json({ data: await credentials.get(req.params.credentialId as string) });
  });

  router.put('/api/v1/credentials/:credentialId', async (req, res) => {
    res.json({ data: await credentials.update(actorOf(req), req.params.credentialId as string, req.body) });
  });

  router.delete('/api/v1/credentials/:credentialId', async (req, res) => {
    await credentials.delete(actorOf(req), req.params.credentialId as string);
    res.status(204).end();
  });

  return router;
}
