// Health for people and for orchestrators: /health and /health/ready report each store (503 naming
// the one that does not answer: take the process out of rotation); /health/live answers as long as
// the process serves HTTP (a restart would not bring a store back).
import { Router, type RequestHandler } from 'express';
import type { HealthService } from './health-service.js';

export function healthRouter(health: HealthService): Router {
  const ready: RequestHandler = async (_req, res) => {
    const report = await health.check();
    res.status(report.status === 'UP' ? 200 : 503).set('Cache-Control', 'no-store').json(report);
  };
  return Router()
    .get('/health', ready)
    .get('/health/ready', ready)
    .get('/health/live', (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ status: 'UP' });
    });
}
