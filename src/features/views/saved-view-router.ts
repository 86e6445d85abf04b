// Saved views over HTTP: a user's own views (409 for an integration key, which is no user), and
// any view by its id for anyone signed in (a shared link).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import { userOf } from '../auth/authentication-middleware.js';
import type { SavedViewService } from './saved-view-service.js';

const WHAT = 'saved views';

export function savedViewRouter(views: SavedViewService): Router {
  const router = Router();

  router.get('/api/v1/views', async (req, res) => {
    const owner = userOf(req, WHAT);
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await views.list(owner.id, queryOf(req, 'listSavedViews').list, page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/views', async (req, res) => {
    res.status(201).json({ data: await views.create(userOf(req, WHAT).id, req.body) });
  });

  router.get('/api/v1/views/:viewId', async (req, res) => {
    res.json({ data: await views.get(req.params.viewId) });
  });

  router.put('/api/v1/views/:viewId', async (req, res) => {
    res.json({ data: await views.update(userOf(req, WHAT).id, req.params.viewId, req.body) });
  });

  router.delete('/api/v1/views/:viewId', async (req, res) => {
    await views.delete(userOf(req, WHAT).id, req.params.viewId);
    res.status(204).end();
  });

  return router;
}
