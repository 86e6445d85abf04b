// The health feature: /health, /health/live and /health/ready, from whether each store answers.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { healthRouter } from './health-router.js';
import { HealthService } from './health-service.js';

export const healthFeature = defineFeature({
  name: 'health',
  build: ({ db, driver, config }: Platform) => ({ health: new HealthService(db, driver, config.neo4jDatabase) }),
  routes: ({ health }) => [healthRouter(health)],
});
