// GET /insights and GET /insights/{feed} (roles as other inventory reads). A feed answers a
// capped, ranked set: its links carry only `first` (docs/interface.md §4.8), the request as the caller sent it.
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import type { InsightService } from './insight-service.js';

export function insightRouter(insights: InsightService): Router {
  return Router()
    .get('/api/v1/insights', (_req, res) => {
      res.json({ data: insights.list() });
    })
    .get('/api/v1/insights/:feed', async (req, res) => {
      const result = await insights.run(req.params.feed, queryOf(req, 'getInsightFeed'));
      const first = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`).toString();
      res.json({ data: result.rows, feed: result.feed, limit: result.limit, capped: result.capped, links: { first } });
    });
}
