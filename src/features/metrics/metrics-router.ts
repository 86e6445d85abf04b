// GET /metrics: every series of the registry in the Prometheus text format. Access per api.yaml
// (ADMINISTRATOR, which every integration key holds): a scraper sends an integration key as a
// bearer token (Prometheus: `authorization: { credentials_file: ... }`).
import { Router } from 'express';
import { METRICS_CONTENT_TYPE, type Metrics } from '../../platform/metrics.js';

export function metricsRouter(metrics: Metrics): Router {
  return Router().get('/metrics', async (_req, res) => {
    res.set('Cache-Control', 'no-store').type(METRICS_CONTENT_TYPE).send(await metrics.text());
  });
}
