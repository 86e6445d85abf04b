// Series read from the stores when scraped: the job queue's depth and discovery runs by status.
// A store that does not answer leaves them out of that scrape (its failure is in store_errors_total).
import type { Metrics } from '../../platform/metrics.js';

export interface OperationalSources {
  queueDepth(): Promise<{ waiting: number; running: number }>;
  /** The number of discovery runs in each status. */
  runsByStatus(): Promise<Record<string, number>>;
}

export function registerOperationalGauges(metrics: Metrics, sources: OperationalSources): void {
  metrics.gauge({
    name: 'job_queue_jobs',
    help: 'Jobs of the queue that are due and waiting for a worker (state="waiting") or held by a worker now (state="running").',
    labelNames: ['state'],
    async collect() {
      this.reset();
      const depth = await sources.queueDepth().catch(() => undefined);
      if (!depth) return;
      this.set({ state: 'waiting' }, depth.waiting);
      this.set({ state: 'running' }, depth.running);
    },
  });
  metrics.gauge({
    name: 'discovery_runs',
    help: 'Discovery runs kept, by status.',
    labelNames: ['status'],
    async collect() {
      this.reset();
      const counts = await sources.runsByStatus().catch(() => undefined);
      for (const [status, count] of Object.entries(counts ?? {})) this.set({ status }, count);
    },
  });
}
