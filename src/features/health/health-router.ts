import { Router } from 'express';
import type { HealthService } from './health-service.js';

export function healthRouter(health: HealthService): Router {
  return Router().get('/health', async (_req, res) => {
    const report = await health.check();
    res.status(report.status === 'UP' ? 200 : 503).set('Cache-Control', 'no-store').json(report);
  });
}
