// The audit trail, newest first, and the actions it holds (ADMINISTRATOR, per api.yaml).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { AuditLog } from './audit-log.js';

export function auditRouter(audit: AuditLog): Router {
  return Router().get('/api/v1/audit-events/actions', async (_req, res) => {
    const { actions, capped } = await audit.actions();
    res.json({ data: actions, capped });
  }).get('/api/v1/audit-events', async (req, res) => {
    const q = queryOf(req, 'listAuditEvents');
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await audit.list({
      ...page,
      action: q.action,
      actorId: q.actorId,
      targetId: q.targetId,
      from: q.from === undefined ? undefined : new Date(q.from),
      to: q.to === undefined ? undefined : new Date(q.to),
      q: q.q,
    });
    const data = rows.map((r) => ({ ...r, occurredAt: r.occurredAt.toISOString() }));
    res.json(pageEnvelope(req, data, total, page));
  });
}
