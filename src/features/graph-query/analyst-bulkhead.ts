// The analysts' Cypher runs apart from the rest of the service: on a driver of its own whose pool
// holds `concurrency` connections (platform.ts), at most `concurrency` queries at once, at most
// `queueSize` more waiting, and at most `perPrincipal` running or waiting for one caller. A query
// that finds no room, or waits past its time, is answered 429 with Retry-After: however many come,
// the API's own reads and discovery keep their connections and their Neo4j threads.
import type { AppConfig } from '../../platform/config.js';
import { TooManyRequestsError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';

export interface BulkheadLimits {
  concurrency: number;
  queueSize: number;
  perPrincipal: number;
}

export type BulkheadRejection = 'PER_PRINCIPAL' | 'QUEUE_FULL' | 'WAITED_TOO_LONG';

interface Waiter {
  principal: string;
  admit(): void;
}

export class AnalystBulkhead {
  private runningCount = 0;
  private readonly queue: Waiter[] = [];
  // Keys are signed-in principals with a query running or waiting: at most concurrency + queueSize of them.
  private readonly byPrincipal = new Map<string, number>();

  constructor(
    private readonly limits: BulkheadLimits,
    private readonly onRejected: (reason: BulkheadRejection) => void = () => undefined,
  ) {}

  running(): number {
    return this.runningCount;
  }

  waiting(): number {
    return this.queue.length;
  }

  /**
   * A slot for one query of `principal`, waiting at most `waitMs` for it; the returned function
   * gives it back (call it exactly once). `retryAfterSeconds` goes into the 429's Retry-After.
   */
  async acquire(principal: string, waitMs: number, retryAfterSeconds: number): Promise<() => void> {
    const mine = this.byPrincipal.get(principal) ?? 0;
    if (mine >= this.limits.perPrincipal) {
      throw this.reject('PER_PRINCIPAL', `You already have ${mine} queries running or waiting; at most ${this.limits.perPrincipal} at a time (service.graph-query.per-principal).`, retryAfterSeconds);
    }
    if (this.runningCount < this.limits.concurrency) {
      this.take(principal);
      return this.releaser(principal);
    }
    if (this.queue.length >= this.limits.queueSize) {
      throw this.reject('QUEUE_FULL', `${this.runningCount} analyst queries are running and ${this.queue.length} waiting, the most there may be (service.graph-query.concurrency, service.graph-query.queue-size).`, retryAfterSeconds);
    }
    this.byPrincipal.set(principal, mine + 1);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { principal, admit: () => { clearTimeout(timer); resolve(); } };
      const timer = setTimeout(() => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        this.forget(principal);
        reject(this.reject('WAITED_TOO_LONG', `No analyst query slot freed within ${waitMs} ms.`, retryAfterSeconds));
      }, waitMs);
      this.queue.push(waiter);
    });
    return this.releaser(principal);
  }

  private take(principal: string): void {
    this.runningCount += 1;
    this.byPrincipal.set(principal, (this.byPrincipal.get(principal) ?? 0) + 1);
  }

  private releaser(principal: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.forget(principal);
      const next = this.queue.shift();
      // The slot passes to the next waiter (already counted for its principal); or it is free.
      if (next) next.admit();
      else this.runningCount -= 1;
    };
  }

  private forget(principal: string): void {
    const left = (this.byPrincipal.get(principal) ?? 1) - 1;
    if (left > 0) this.byPrincipal.set(principal, left);
    else this.byPrincipal.delete(principal);
  }

  private reject(reason: BulkheadRejection, detail: string, retryAfterSeconds: number): TooManyRequestsError {
    this.onRejected(reason);
    return new TooManyRequestsError(detail, retryAfterSeconds);
  }
}

/** The bulkhead of the settings, its state and refusals in /metrics. */
export function analystBulkhead(metrics: Metrics, config: Pick<AppConfig, 'graphQueryConcurrency' | 'graphQueryQueueSize' | 'graphQueryPerPrincipal'>): AnalystBulkhead {
  const rejections = metrics.counter({
    name: 'graph_query_rejections_total',
    help: 'Queries of POST /graph/query answered 429 by the bulkhead: the caller had too many (PER_PRINCIPAL), the queue was full (QUEUE_FULL), or no slot freed in time (WAITED_TOO_LONG).',
    labelNames: ['reason'],
  });
  const bulkhead = new AnalystBulkhead(
    { concurrency: config.graphQueryConcurrency, queueSize: config.graphQueryQueueSize, perPrincipal: config.graphQueryPerPrincipal },
    (reason) => rejections.inc({ reason }),
  );
  metrics.gauge({
    name: 'graph_query_slots',
    help: 'Queries of POST /graph/query running now (state="running") and waiting for a slot (state="waiting").',
    labelNames: ['state'],
    collect() {
      this.set({ state: 'running' }, bulkhead.running());
      this.set({ state: 'waiting' }, bulkhead.waiting());
    },
  });
  return bulkhead;
}
