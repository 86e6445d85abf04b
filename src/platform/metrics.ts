// The service's Prometheus metrics, served at /metrics. One registry per container (tests run
// several services in one process); a feature adds its own series through counter(), gauge() or
// histogram() here; platform.ts times the calls to the stores, and the metrics feature watches the
// queue and the runs.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration } from 'prom-client';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Times one store call: its latency by store and operation, and its failures. */
export type StoreObserver = <T>(operation: string, work: () => Promise<T>) => Promise<T>;

export const unobserved: StoreObserver = (_operation, work) => work();

// Latencies from a cached read (~1 ms) to a store time-out (5 s by default) and beyond.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  readonly storeOperations: Histogram<'store' | 'operation'>;
  readonly storeErrors: Counter<'store' | 'operation'>;
  readonly exportRows: Counter<'dataset' | 'format'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = this.histogram({
      name: 'http_server_request_duration_seconds',
      help: 'HTTP requests by method, route (the api.yaml path, or "unmatched") and status, and how long they took to answer.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
    });
    this.storeOperations = this.histogram({
      name: 'store_operation_duration_seconds',
      help: 'Calls to the stores (postgresql: each SQL statement; neo4j: each read or write transaction), failed ones included.',
      labelNames: ['store', 'operation'],
      buckets: LATENCY_BUCKETS,
    });
    this.storeErrors = this.counter({ name: 'store_errors_total', help: 'Store calls that failed (unreachable store, time-out, refused statement).', labelNames: ['store', 'operation'] });
    this.exportRows = this.counter({ name: 'export_rows_total', help: 'Rows written by the streamed exports.', labelNames: ['dataset', 'format'] });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return new Gauge({ ...config, registers: [this.registry] });
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return new Histogram({ ...config, registers: [this.registry] });
  }

  /** Records one store call that took `seconds`. */
  storeCall(store: string, operation: string, seconds: number, failed: boolean): void {
    this.storeOperations.observe({ store, operation }, seconds);
    if (failed) this.storeErrors.inc({ store, operation });
  }

  /** The observer of one store's calls. */
  storeObserver(store: string): StoreObserver {
    return async (operation, work) => {
      const started = performance.now();
      let failed = true;
      try {
        const result = await work();
        failed = false;
        return result;
      } finally {
        this.storeCall(store, operation, (performance.now() - started) / 1000, failed);
      }
    };
  }

  /** The text exposition of every series. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
