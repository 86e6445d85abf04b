// GET /changes (the change feed; roles as other inventory reads).
import { Router } from 'express';
import { DEFAULT_CHANGE_LIMIT, MAX_CHANGE_LIMIT, type ChangeFeedService } from './change-feed-service.js';

export function changeRouter(feed: ChangeFeedService): Router {
  return Router().get('/api/v1/changes', async (req, res) => {
    const after = Number(req.query.after ?? 0);
    const limit = Math.min(Number(req.query.limit ?? DEFAULT_CHANGE_LIMIT), MAX_CHANGE_LIMIT);
    const page = await feed.after(after, limit);
    const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
    url.searchParams.set('after', page.cursor);
    res.json({ data: page.items, cursor: page.cursor, more: page.more, links: { next: url.toString() } });
  });
}
