// GET /flow/top-talkers, /flow/conversations, /flow/series (capped sets: links carry only `first`, the request
// as sent, docs/interface.md §4.8) and /flow/exporters (a paginated list). Roles as other
// inventory reads: any signed-in principal.
import { Router, type Request } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { FlowAnalyticsService } from './flow-analytics-service.js';

const firstLink = (req: Request) => ({ first: new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`).toString() });

export function flowRouter(flows: FlowAnalyticsService): Router {
  return Router()
    .get('/api/v1/flow/top-talkers', async (req, res) => {
      res.json({ ...(await flows.topTalkers(queryOf(req, 'getFlowTopTalkers'))), links: firstLink(req) });
    })
    .get('/api/v1/flow/conversations', async (req, res) => {
      res.json({ ...(await flows.conversations(queryOf(req, 'getFlowConversations'))), links: firstLink(req) });
    })
    .get('/api/v1/flow/series', async (req, res) => {
      res.json({ ...(await flows.series(queryOf(req, 'getFlowExporterSeries'))), links: firstLink(req) });
    })
    .get('/api/v1/flow/exporters', async (req, res) => {
      const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const { rows, total } = await flows.exporters(page.page, page.size);
      res.json(pageEnvelope(req, rows, total, page));
    });
}
