// The flow retention job: drops the day partitions of raw flows and rollups that are past their
// table's retention (service.flows.retention.*), hourly by default and once after a start.
import type { Logger } from '../../platform/logger.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { FlowRetention, FlowStore } from './flow-store.js';

export const FLOW_RETENTION_JOB = 'flow-retention';

export function registerFlowJobs(scheduler: Scheduler, store: FlowStore, retention: FlowRetention, cron: string, logger: Logger): void {
  scheduler.define(FLOW_RETENTION_JOB, async () => {
    const dropped = await store.dropExpired(retention, Date.now());
    if (dropped.length > 0) logger.info('flow partitions dropped', { partitions: dropped });
  });
  scheduler.defineRecurring({ name: FLOW_RETENTION_JOB, cron, runAfterStart: true });
}
