// Series read when scraped: the job queue's depth and discovery runs by status (from the stores: one
// that does not answer leaves them out of that scrape, its failure is in store_errors_total), and the
// restarts of the local stores this process supervises.
import type { Metrics } from '../../platform/metrics.js';
import type { SupervisedStore } from '../../platform/store-supervisor.js';

export interface OperationalSources {
  queueDepth(): Promise<{ waiting: number; running: number }>;
  /** The number of discovery runs in each status. */
  runsByStatus(): Promise<Record<string, number>>;
  /** The local stores this process started (none when both are external). */
  supervised: SupervisedStore[];
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
  metrics.counter({
    name: 'local_store_restarts_total',
    help: 'Times a local store (neo4j, postgresql) that this process started was started again after it exited unexpectedly.',
    labelNames: ['store'],
    collect() {
      this.reset();
      for (const store of sources.supervised) this.inc({ store: store.store }, store.restarts());
    },
  });
  metrics.gauge({
    name: 'local_store_up',
    help: 'Whether a local store that this process started is running (1), or exited and waits for its restart (0).',
    labelNames: ['store'],
    collect() {
      this.reset();
      for (const store of sources.supervised) this.set({ store: store.store }, store.running() ? 1 : 0);
    },
  });
}
