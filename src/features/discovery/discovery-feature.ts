// The discovery feature: targets and their schedules, runs and their jobs, the pins of hosts'
// keys, and the methods' catalogue. Whoever follows a run's end (alerts) adds itself to
// runListeners; discovery knows no more of it.
import { defineFeature } from '../../platform/feature.js';
import type { Platform, StoreAddresses } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { CredentialService } from '../credentials/credential-service.js';
import type { IdentityLookup } from '../inventory/asset-identity.js';
import type { InventoryWriter } from '../inventory/inventory-writer.js';
import { chunkScanSettings } from './chunk-scan-settings.js';
import { CredentialOffer } from './credential-offer.js';
import { registerDiscoveryJobs } from './discovery-jobs.js';
import { DiscoveryRunner } from './discovery-runner.js';
import { DiscoveryService } from './discovery-service.js';
import { HostStateStore } from './host-state-store.js';
import { methodRouter } from './method-router.js';
import { ObservationLoader } from './observation-loader.js';
import { pinRouter } from './pin-router.js';
import { RemoteChunkService } from './remote-chunk-service.js';
import { PinService } from './pin-service.js';
import { RunListeners } from './run-listener.js';
import { runRouter } from './run-router.js';
import { RunStore } from './run-store.js';
import { ScanGraphRepository } from './scan-graph-repository.js';
import type { TargetLookup } from './target-record.js';
import { targetRouter } from './target-router.js';
import { TargetService } from './target-service.js';
import { TargetStore } from './target-store.js';

type Needs = Platform & { audit: AuditLog; credentials: CredentialService; inventory: InventoryWriter; identities: IdentityLookup };

/** host:port of the stores, which discovery never probes ('localhost' as both loopback forms). */
function storeEndpoints(stores: StoreAddresses): Set<string> {
  const endpoints = new Set<string>();
  for (const [url, defaultPort] of [[stores.databaseUrl, '5432'], [stores.neo4jUri, '7687']] as const) {
    const { hostname, port } = new URL(url);
    const hosts = hostname === 'localhost' ? ['127.0.0.1', '::1'] : [hostname.replace(/^\[|\]$/g, '')];
    for (const host of hosts) endpoints.add(`${host}:${port || defaultPort}`);
  }
  return endpoints;
}

export const discoveryFeature = defineFeature({
  name: 'discovery',
  build({ db, graph, rowCounts, scheduler, config, addresses, logger, metrics, audit, credentials, inventory, identities }: Needs) {
    const hostState = new HostStateStore(db);
    const targetStore = new TargetStore(db);
    const targetLookup: TargetLookup = targetStore;
    const runErrors = metrics.counter({
      name: 'discovery_run_errors_total',
      help: 'Error records of discovery runs, by method and code: what a scan could not reach or read, and what it dropped (a truncated zone or lease list, an invalid lease).',
      labelNames: ['method', 'code'],
    });
    const runs = new RunStore(db, rowCounts, (errors) => {
      for (const { method, code } of errors) runErrors.inc({ method, code });
    });
    const runListeners = new RunListeners();
    /** The load steps of a run (the runner's), for the benchmarks. */
    const mergedRecords = metrics.counter({
      name: 'discovery_estate_records_merged_total',
      help: "Records of one connector scope (a read, or a part of one) loaded as an asset another of its records already is, by method: they share an identity (a MAC, a cloud instance id), so their facts went to one asset. Each record past the first counts.",
      labelNames: ['method'],
    });
    const observationLoader = new ObservationLoader(inventory, identities, new ScanGraphRepository(graph), hostState, ({ method, scope, records }) => {
      mergedRecords.inc({ method }, records);
      logger.warn('records of one estate scope share an identity: loaded as one asset', { method, scope, records });
    });
    const credentialOffer = new CredentialOffer(db, credentials, hostState);
    return {
      targets: new TargetService(targetStore, audit, {
        maxAddresses: config.discoveryMaxAddressesPerTarget,
        minScheduleIntervalSeconds: config.discoveryMinScheduleIntervalSeconds,
      }),
      targetLookup,
      runs,
      runListeners,
      discovery: new DiscoveryService(runs, targetStore, scheduler, audit, hostState),
      hostState,
      remoteChunks: new RemoteChunkService(db, runs, targetStore, credentialOffer, hostState, scheduler, config.discoveryLeaseMs, logger.child({ module: 'remote-chunks' })),
      pins: new PinService(hostState, audit),
      observationLoader,
      discoveryRunner: new DiscoveryRunner(
        runs,
        targetStore,
        credentialOffer,
        hostState,
        { config, hostState },
        observationLoader,
        scheduler,
        { ...chunkScanSettings(config, metrics, logger, storeEndpoints(addresses)), leaseMs: config.discoveryLeaseMs, chunkSize: config.discoveryChunkSize },
        logger,
        runListeners,
      ),
    };
  },
  routes: ({ targets, pins, discovery }) => [methodRouter(), targetRouter(targets), pinRouter(pins), runRouter(discovery)],
  jobs: ({ scheduler, discoveryRunner, discovery, runs, runListeners, config, logger }) =>
    registerDiscoveryJobs(scheduler, discoveryRunner, discovery, runs, runListeners, { concurrency: config.jobsWorkerConcurrency, chunkMaxAttempts: config.discoveryChunkMaxAttempts }, logger),
});
