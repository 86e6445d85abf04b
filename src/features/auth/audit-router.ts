// The audit trail, newest first (ADMINISTRATOR, per api.yaml).
import { Router } from 'express';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { AuditLog } from './audit-log.js';

export function auditRouter(audit: AuditLog): Router {
  return Router().get('/api/v1/audit-events', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await audit.list({
      ...page,
      action: req.query.action as string | undefined,
      actorId: req.query.actorId as string | undefined,
      targetId: req.query.targetId as string | undefined,
    });
    const data = rows.map((r) => ({ ...r, occurredAt: r.occurredAt.toISOString() }));
    res.json(pageEnvelope(req, data, total, page));
  });
}
