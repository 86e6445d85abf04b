// Administration of users and of their API tokens (ADMINISTRATOR, per api.yaml).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest, parseSort } from '../../platform/http/pagination.js';
import type { ApiTokenService } from './api-token-service.js';
import { actorOf } from './authentication-middleware.js';
import type { UserService } from './user-service.js';
import type { UserQuery } from './user-query.js';

export function userRouter(users: UserService, tokens: ApiTokenService): Router {
  const router = Router();

  router.get('/api/v1/users', async (req, res) => {
    const q = queryOf(req, 'listUsers');
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const query: UserQuery = {
      ...page,
      sort: parseSort<UserQuery['sort']['field']>(q.sort, { field: 'username', direction: 'asc' }),
      q: q.q,
      role: q.role,
      disabled: q.disabled,
    };
    const { rows, total } = await users.list(query);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/users', async (req, res) => {
    res.status(201).json({ data: await users.create(actorOf(req), req.body) });
  });

  router.get('/api/v1/users/:userId', async (req, res) => {
    res.json({ data: await users.get(req.params.userId) });
  });

  router.put('/api/v1/users/:userId', async (req, res) => {
    res.json({ data: await users.update(actorOf(req), req.params.userId, req.body) });
  });

  router.delete('/api/v1/users/:userId', async (req, res) => {
    await users.delete(actorOf(req), req.params.userId);
    res.status(204).end();
  });

  router.get('/api/v1/users/:userId/tokens', async (req, res) => {
    await users.get(req.params.userId);
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await tokens.list({ kind: 'USER_TOKEN', userId: req.params.userId }, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.delete('/api/v1/users/:userId/tokens/:tokenId', async (req, res) => {
    const scope = { kind: 'USER_TOKEN' as const, userId: req.params.userId };
    res.json({ data: await tokens.revoke(actorOf(req), req.params.tokenId, scope) });
  });

  return router;
}
