import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { MaintenanceJobs } from './maintenance-jobs.js';

export function maintenanceRouter(jobs: MaintenanceJobs, audit: AuditLog): Router {
  return Router().post('/api/v1/jobs/:name/run', async (req, res) => {
    const result = await jobs.run(req.params.name);
    await audit.record(actorOf(req), { action: 'job.run', targetKind: 'JOB', targetId: result.job, details: result.summary });
    res.json({ data: result });
  });
}
