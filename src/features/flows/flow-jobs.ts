// The flow jobs: `flow-retention` drops the day partitions of raw flows and rollups that are past
// their table's retention (service.flows.retention.*), hourly by default and once after a start;
// `flow-inventory` turns exporters into assets and conversations into COMMUNICATES_WITH edges,
// and releases the flow claim of edges flows no longer show, every five minutes (a bounded run:
// see FlowInventory).
import type { Logger } from '../../platform/logger.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { FlowInventory } from './flow-inventory.js';
import type { FlowRetention, FlowStore } from './flow-store.js';

export const FLOW_RETENTION_JOB = 'flow-retention';
export const FLOW_INVENTORY_JOB = 'flow-inventory';
const FLOW_INVENTORY_CRON = '0 */5 * * * *';

export function registerFlowJobs(scheduler: Scheduler, store: FlowStore, inventory: FlowInventory, retention: FlowRetention, cron: string, logger: Logger): void {
  scheduler.define(FLOW_RETENTION_JOB, async () => {
    const dropped = await store.dropExpired(retention, Date.now());
    if (dropped.length > 0) logger.info('flow partitions dropped', { partitions: dropped });
  });
  scheduler.defineRecurring({ name: FLOW_RETENTION_JOB, cron, runAfterStart: true });
  scheduler.define(FLOW_INVENTORY_JOB, async () => {
    const loaded = await inventory.run();
    if (loaded.exporters > 0 || loaded.communications > 0 || loaded.released > 0) logger.info('flow inventory loaded', loaded);
  });
  scheduler.defineRecurring({ name: FLOW_INVENTORY_JOB, cron: FLOW_INVENTORY_CRON, runAfterStart: false });
}
