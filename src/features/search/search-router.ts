// The one search over HTTP (GET /api/v1/search).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import type { SearchService } from './search-service.js';

// Hits per group by default, and at most (api.yaml, searchInventory).
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

export function searchRouter(search: SearchService): Router {
  const router = Router();
  router.get('/api/v1/search', async (req, res) => {
    const query = queryOf(req, 'searchInventory');
    const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    // Required by api.yaml: the validator refused a request without it.
    const q = query.q as string;
    res.json({ data: await search.search(q, limit), q, limit });
  });
  return router;
}
