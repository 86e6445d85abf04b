// Sign-in and sign-out of browser sessions, and what a principal sees of itself: /me, its
// password and its own API tokens.
import { Router } from 'express';
import { BadRequestError } from '../../platform/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { ApiTokenService } from './api-token-service.js';
import type { AuthService } from './auth-service.js';
import { actorOf, beginSession, clientIp, endSession, userOf } from './authentication-middleware.js';
import type { Principal } from './roles.js';
import { toUserView, type UserService } from './user-service.js';

export function authRouter(auth: AuthService, users: UserService, tokens: ApiTokenService, cookiePath: string): Router {
  const router = Router();

  router.post('/api/v1/auth/login', async (req, res) => {
    if (!req.session) throw new BadRequestError('Sign in without an Authorization or X-Integration-Api-Key header.');
    const user = await auth.login(req.body.username, req.body.password, clientIp(req));
    const csrfToken = await beginSession(req, user.id);
    res.json({ data: { user: toUserView(user), csrfToken } });
  });

  router.post('/api/v1/auth/logout', async (req, res) => {
    if (req.principal?.method === 'SESSION') await endSession(req, res, cookiePath);
    res.status(204).end();
  });

  router.get('/api/v1/me', async (req, res) => {
    const p = req.principal as Principal;
    const user = p.kind === 'USER' ? await users.get(p.id) : undefined;
    res.json({
      data: {
        kind: p.kind,
        id: p.id,
        name: p.name,
        method: p.method,
        roles: [...p.roles].sort(),
        ...(p.csrfToken ? { csrfToken: p.csrfToken } : {}),
        ...(user ? { user } : {}),
      },
    });
  });

  router.put('/api/v1/me/password', async (req, res) => {
    const p = userOf(req, 'password');
    await users.changeOwnPassword(actorOf(req), p.id, req.body.currentPassword, req.body.newPassword);
    res.status(204).end();
  });

  router.get('/api/v1/me/tokens', async (req, res) => {
    const p = userOf(req, 'user tokens');
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await tokens.list({ kind: 'USER_TOKEN', userId: p.id }, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/me/tokens', async (req, res) => {
    const p = userOf(req, 'user tokens');
    const created = await tokens.createUserToken(actorOf(req), p.id, req.body.name, req.body.expiresAt);
    res.status(201).json({ data: created });
  });

  router.delete('/api/v1/me/tokens/:tokenId', async (req, res) => {
    const p = userOf(req, 'user tokens');
    res.json({ data: await tokens.revoke(actorOf(req), req.params.tokenId, { kind: 'USER_TOKEN', userId: p.id }) });
  });

  return router;
}
