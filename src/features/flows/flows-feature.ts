// The flows feature: the NetFlow/IPFIX and sFlow collector (the collector role), the flow store and
// its retention, the analytics over it, and the inventory job that turns exporters into assets and
// conversations into COMMUNICATES_WITH edges.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReads } from '../assets/asset-summary.js';
import type { IdentityLookup } from '../inventory/asset-identity.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import { FlowDecoder } from './decode/flow-decoder.js';
import { FlowAnalyticsService } from './flow-analytics-service.js';
import { FlowAnalyticsStore } from './flow-analytics-store.js';
import { FlowCollector } from './flow-collector.js';
import { FlowGraphRepository } from './flow-graph-repository.js';
import { FlowInventory } from './flow-inventory.js';
import { registerFlowJobs } from './flow-jobs.js';
import { registerFlowMetrics } from './flow-metrics.js';
import { flowRouter } from './flow-router.js';
import { FlowStore, type FlowRetention } from './flow-store.js';

type Needs = Platform & { inventory: InventoryWriter; identities: IdentityLookup; assetReads: AssetReads };

export const flowsFeature = defineFeature({
  name: 'flows',
  build({ db, graph, flowPool, config, logger, metrics, inventory, identities, assetReads }: Needs) {
    const flowStore = new FlowStore(flowPool, {
      addresses: { capacity: config.flowsMaxCachedAddresses, ttlMs: config.flowsCachedAddressTtlSeconds * 1000 },
      maxExporters: config.flowsMaxExporters,
      maxInterfaceNames: config.flowsMaxInterfaceNames,
    });
    const flowRetention: FlowRetention = {
      raw: config.flowsRetentionRawDays,
      minute: config.flowsRetentionMinuteDays,
      fiveMinute: config.flowsRetentionFiveMinuteDays,
      hour: config.flowsRetentionHourDays,
      exporterDays: config.flowsRetentionExporterDays,
      interfaceNameDays: config.flowsRetentionInterfaceNameDays,
    };
    const flowCollector = new FlowCollector(
      new FlowDecoder({
        maxExporters: config.flowsMaxExporters,
        exporterTtlMs: config.flowsExporterTtlSeconds * 1000,
        maxTemplates: config.flowsMaxTemplates,
        maxTemplatesPerDomain: config.flowsMaxTemplatesPerDomain,
        templateTtlMs: config.flowsTemplateTtlSeconds * 1000,
        maxSamplerIds: config.flowsMaxSamplerIds,
        samplerTtlMs: config.flowsSamplerTtlSeconds * 1000,
      }),
      flowStore,
      {
        bindAddress: config.flowsBindAddress,
        netflowPort: config.flowsNetflowPort,
        sflowPort: config.flowsSflowPort,
        batchSize: config.flowsBatchSize,
        flushMs: config.flowsFlushMs,
        maxAgeMs: config.flowsRetentionRawDays * 86_400_000,
        receiveBufferBytes: config.flowsReceiveBufferBytes,
        allowedExporters: config.flowsAllowedExporters,
      },
      logger.child({ module: 'flows' }),
    );
    registerFlowMetrics(metrics, flowCollector);
    const flowAnalyticsStore = new FlowAnalyticsStore(db);
    const flowGraph = new FlowGraphRepository(graph);
    return {
      flowStore,
      flowRetention,
      flowCollector,
      flowAnalytics: new FlowAnalyticsService(flowAnalyticsStore, identities, assetReads, flowGraph),
      /** The flow-inventory job's steps (exporter assets, COMMUNICATES_WITH from flows). */
      flowInventory: new FlowInventory(flowAnalyticsStore, inventory, identities, flowGraph, config.flowsCommunicationRetireHours * 3_600_000),
    };
  },
  routes: ({ flowAnalytics }) => [flowRouter(flowAnalytics)],
  jobs: ({ scheduler, flowStore, flowInventory, flowRetention, config, logger }) =>
    registerFlowJobs(scheduler, flowStore, flowInventory, flowRetention, config.flowsRetentionCron, logger),
  // The collector listens for flows only in processes with the collector role.
  async start({ config, flowCollector }) {
    if (!config.roles.includes('collector')) return undefined;
    await flowCollector.start();
    return () => flowCollector.stop();
  },
});
