// The flow jobs: `flow-retention` drops the day partitions of raw flows and rollups that are past
// their table's retention (service.flows.retention.*), and deletes exporters not heard from and
// interface names not announced within theirs, hourly by default and once after a start;
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
const DAY_MS = 86_400_000;

export function registerFlowJobs(scheduler: Scheduler, store: FlowStore, inventory: FlowInventory, retention: FlowRetention, cron: string, logger: Logger): void {
  scheduler.define(FLOW_RETENTION_JOB, async () => {
    const now = Date.now();
    const dropped = await store.dropExpired(retention, now);
    if (dropped.length > 0) logger.info('flow partitions dropped', { partitions: dropped });
    const expired = await store.expireExporters(new Date(now - retention.exporterDays * DAY_MS), new Date(now - retention.interfaceNameDays * DAY_MS));
    if (expired.exportersRemoved > 0 || expired.interfaceNamesRemoved > 0) logger.info('flow exporters expired', expired);
  });
  scheduler.defineRecurring({ name: FLOW_RETENTION_JOB, cron, runAfterStart: true });
  scheduler.define(FLOW_INVENTORY_JOB, async () => {
    const loaded = await inventory.run();
    if (loaded.exporters > 0 || loaded.communications > 0 || loaded.released > 0) logger.info('flow inventory loaded', loaded);
  });
  scheduler.defineRecurring({ name: FLOW_INVENTORY_JOB, cron: FLOW_INVENTORY_CRON, runAfterStart: false });
}
