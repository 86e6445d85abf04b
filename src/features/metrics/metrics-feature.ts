// The metrics feature: /metrics, and the series read when it is scraped (the job queue's depth,
// discovery runs by status, the local stores' restarts). It comes after discovery, whose runs it
// counts.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import { metricsRouter } from './metrics-router.js';
import { registerOperationalGauges, type OperationalSources } from './operational-gauges.js';

type Needs = Platform & { runs: { countByStatus: OperationalSources['runsByStatus'] } };

export const metricsFeature = defineFeature({
  name: 'metrics',
  build({ metrics, scheduler, runs, addresses }: Needs) {
    registerOperationalGauges(metrics, {
      queueDepth: () => scheduler.queueDepth(),
      runsByStatus: () => runs.countByStatus(),
      supervised: addresses.supervised ?? [],
    });
    return {};
  },
  routes: ({ metrics }) => [metricsRouter(metrics)],
});
