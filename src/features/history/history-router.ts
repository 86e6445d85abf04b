// GET /assets/{id}/history: an asset's or a synthesized row's changes, newest first, paged with
// full links (cursors in prev, next and last), filtered by field and time range.
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { pageEnvelope, pageRequest, pageWindow, windowed } from '../../platform/http/pagination.js';
import type { AssetService } from '../assets/asset-service.js';
import { HISTORY_PAGE, type HistoryService } from './history-service.js';

export function historyRouter(history: HistoryService, assets: AssetService): Router {
  return Router().get('/api/v1/assets/:assetId/history', async (req, res) => {
    const q = queryOf(req, 'getAssetHistory');
    const id = req.params.assetId as string;
    const request = pageRequest(req.query, HISTORY_PAGE.default, HISTORY_PAGE.max);
    const filter = { fields: q.field, from: q.from === undefined ? undefined : Date.parse(q.from), to: q.to === undefined ? undefined : Date.parse(q.to) };
    await assets.require(id);
    const total = await history.count(id, filter);
    const window = pageWindow(request, total);
    const page = windowed(window, await history.read(id, filter, window), (e) => e.key);
    res.json(pageEnvelope(req, page.rows.map((e) => e.entry), total, request, page));
  });
}
