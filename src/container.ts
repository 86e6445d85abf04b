// The composition root: stores first, then services, then what the HTTP layer and the job queue
// need. No other module creates a database client or reads the environment.
import { createAccessServices, type AccessServices } from './access-services.js';
import { sessionStore, type SessionStore } from './features/auth/authentication-middleware.js';
import type { Driver } from 'neo4j-driver';
import pg from 'pg';
import { AlertService } from './features/alerts/alert-service.js';
import { AlertStore } from './features/alerts/alert-store.js';
import { RunFollowUp } from './features/alerts/run-follow-up.js';
import { AssetGraphRepository } from './features/assets/asset-graph-repository.js';
import { AssetReadModel } from './features/assets/asset-read-model.js';
import { SynthesizedAssetStore } from './features/assets/synthesized-asset-store.js';
import { AssetService } from './features/assets/asset-service.js';
import { AssetNameStore } from './features/inventory/asset-name-store.js';
import { FactPrecedence } from './features/inventory/asset-facts.js';
import { FactStore } from './features/inventory/fact-store.js';
import { InventoryWriter } from './features/inventory/inventory-writer.js';
import { ScopeMemberStore } from './features/inventory/scope-member-store.js';
import { ProvenanceService } from './features/inventory/provenance-service.js';
import { IdentityStore } from './features/inventory/identity-store.js';
import { CredentialOffer } from './features/discovery/credential-offer.js';
import { CONNECTOR_FACT_RANKS } from './features/discovery/connectors/registry.js';
import { DiscoveryRunner } from './features/discovery/discovery-runner.js';
import { HostStateStore } from './features/discovery/host-state-store.js';
import { PinService } from './features/discovery/pin-service.js';
import { ObservationLoader } from './features/discovery/observation-loader.js';
import { DiscoveryService } from './features/discovery/discovery-service.js';
import { RunStore } from './features/discovery/run-store.js';
import { registerOperationalGauges } from './features/metrics/operational-gauges.js';
import { ScanGraphRepository } from './features/discovery/scan-graph-repository.js';
import { TargetService } from './features/discovery/target-service.js';
import { TargetStore } from './features/discovery/target-store.js';
import { ExportService } from './features/exports/export-service.js';
import { SubRecordExportStore } from './features/exports/sub-record-export-store.js';
import { ImportService } from './features/import/import-service.js';
import { LoadGraphRepository } from './features/inventory/load-graph-repository.js';
import { RelationshipGraphRepository } from './features/relationships/relationship-graph-repository.js';
import { SubRecordLoader } from './features/inventory/sub-record-loader.js';
import { SubRecordStore } from './features/inventory/sub-record-store.js';
import { ChangeFeedService } from './features/changes/change-feed-service.js';
import { ChangeGraphRepository } from './features/changes/change-graph-repository.js';
import { AgingSweep } from './features/maintenance/aging-sweep.js';
import { MaintenanceJobs } from './features/maintenance/maintenance-jobs.js';
import { RetentionSweep } from './features/maintenance/retention-sweep.js';
import { UnwrittenAssetSweep } from './features/inventory/unwritten-asset-sweep.js';
import { SchemaService } from './features/schema/schema-service.js';
import { InterfaceLinkStore } from './features/topology/interface-link-store.js';
import { TopologyGraphRepository } from './features/topology/topology-graph-repository.js';
import { TopologyService } from './features/topology/topology-service.js';
import { CredentialStore } from './features/credentials/credential-store.js';
import { ChatCompletionsProvider } from './features/diagnosis/chat-completions-provider.js';
import type { DiagnosisProvider } from './features/diagnosis/diagnosis-provider.js';
import { DiagnosisService } from './features/diagnosis/diagnosis-service.js';
import { DiagnosisStore } from './features/diagnosis/diagnosis-store.js';
import { RulesProvider } from './features/diagnosis/rules-provider.js';
import { AdHocQueryGraphRepository } from './features/graph-query/ad-hoc-query-graph-repository.js';
import { GraphQueryService } from './features/graph-query/graph-query-service.js';
import { analystBulkhead } from './features/graph-query/analyst-bulkhead.js';
import { HealthService } from './features/health/health-service.js';
import { INSIGHT_FEEDS } from './features/insights/insight-feeds.js';
import { InsightGraphRepository } from './features/insights/insight-graph-repository.js';
import { InsightService } from './features/insights/insight-service.js';
import { InsightStore } from './features/insights/insight-store.js';
import { FlowDecoder } from './features/flows/decode/flow-decoder.js';
import { FlowAnalyticsService } from './features/flows/flow-analytics-service.js';
import { FlowAnalyticsStore } from './features/flows/flow-analytics-store.js';
import { FlowCollector } from './features/flows/flow-collector.js';
import { FlowGraphRepository } from './features/flows/flow-graph-repository.js';
import { FlowInventory } from './features/flows/flow-inventory.js';
import { registerFlowMetrics } from './features/flows/flow-metrics.js';
import { FlowStore, type FlowRetention } from './features/flows/flow-store.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config.js';
import { loadApiDocument, type OpenApiDocument } from './platform/http/openapi.js';
import type { Logger } from './platform/logger.js';
import { CypherCatalog } from './platform/neo4j/cypher-catalog.js';
import { createDriver, NeoGraph } from './platform/neo4j/neo4j-graph.js';
import { createCopyPool } from './platform/postgres/copy-out.js';
import { createDatabase, observeStatements, type Database } from './platform/postgres/postgres-client.js';
import { RowCounts } from './platform/postgres/row-counts.js';
import { Scheduler } from './platform/scheduler/scheduler.js';
import { Metrics } from './platform/metrics.js';
import type { SupervisedStore } from './platform/store-supervisor.js';

// Exports streaming at the same time; more wait up to service.store-timeout-ms, then get a 503.
const EXPORT_CONNECTIONS = 4;

export interface StoreAddresses {
  databaseUrl: string;
  neo4jUri: string;
  /** The configured Neo4j user and password, or the local Neo4j's. */
  neo4jUser: string;
  neo4jPassword: string;
  /** The local stores this process started and restarts (none for external ones). */
  supervised?: SupervisedStore[];
}

export interface Container extends AccessServices {
  config: AppConfig;
  /** Where the stores are (the local ones included). */
  addresses: StoreAddresses;
  logger: Logger;
  db: Database;
  rowCounts: RowCounts;
  /** Connections of the browser-session store. */
  sessionPool: pg.Pool;
  sessionStore: SessionStore;
  /** Connections of the streamed exports (COPY), apart from the API's. */
  copyPool: pg.Pool;
  driver: Driver;
  /** The analysts' own connections to Neo4j (POST /graph/query). */
  analystDriver: Driver;
  graph: NeoGraph;
  scheduler: Scheduler;
  metrics: Metrics;
  apiDocument: OpenApiDocument;
  health: HealthService;
  assetReadModel: AssetReadModel;
  assets: AssetService;
  relationships: RelationshipGraphRepository;
  topology: TopologyService;
  schema: SchemaService;
  /** The one writer of assets, relationships and sub-records (import, discovery, flows). */
  inventory: InventoryWriter;
  importer: ImportService;
  /** Rows of assets an import never wrote to the graph (its crash between the two stores). */
  unwrittenAssets: UnwrittenAssetSweep;
  provenance: ProvenanceService;
  changes: ChangeFeedService;
  graphQueries: GraphQueryService;
  insights: InsightService;
  maintenance: MaintenanceJobs;
  exports: ExportService;
  targets: TargetService;
  runs: RunStore;
  discovery: DiscoveryService;
  hostState: HostStateStore;
  pins: PinService;
  /** The load steps of a run (the runner's), for the benchmarks. */
  observationLoader: ObservationLoader;
  discoveryRunner: DiscoveryRunner;
  diagnosis: DiagnosisService;
  alerts: AlertService;
  followUp: RunFollowUp;
  /** Connections of the flow collector's COPY batches and partition upkeep. */
  flowPool: pg.Pool;
  flowStore: FlowStore;
  flowRetention: FlowRetention;
  flowCollector: FlowCollector;
  flowAnalytics: FlowAnalyticsService;
  /** The flow-inventory job's steps (exporter assets, COMMUNICATES_WITH from flows). */
  flowInventory: FlowInventory;
}

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

function diagnosisProvider(config: AppConfig): DiagnosisProvider {
  if (config.aiProvider === 'rules') return new RulesProvider();
  // loadConfig made sure that this provider has its base URL and model.
  return new ChatCompletionsProvider({ baseUrl: config.aiBaseUrl as string, model: config.aiModel as string, apiKey: config.aiApiKey, timeoutMs: config.aiTimeoutMs });
}

export function createContainer(config: AppConfig, logger: Logger, stores: StoreAddresses, clock: Clock = systemClock): Container {
  const metrics = new Metrics();
  const db = createDatabase({ url: stores.databaseUrl, poolMax: config.databasePoolMax, timeoutMs: config.storeTimeoutMs, logger });
  observeStatements(db, (seconds, failed) => metrics.storeCall('postgresql', 'statement', seconds, failed));
  const sessionPool = new pg.Pool({ connectionString: stores.databaseUrl, max: 4, connectionTimeoutMillis: config.storeTimeoutMs, query_timeout: config.storeTimeoutMs, application_name: 'asset-inventory-sessions' });
  sessionPool.on('error', (error) => logger.warn('session store connection lost', { error }));
  const sessions = sessionStore(sessionPool);
  const copyPool = createCopyPool({ url: stores.databaseUrl, max: EXPORT_CONNECTIONS, timeoutMs: config.storeTimeoutMs });
  copyPool.on('error', (error) => logger.warn('export connection lost', { error }));
  const driver = createDriver({
    uri: stores.neo4jUri,
    user: stores.neo4jUser,
    password: stores.neo4jPassword,
    timeoutMs: config.storeTimeoutMs,
  });
  const graph = new NeoGraph(driver, config.neo4jDatabase, new CypherCatalog(), metrics.storeObserver('neo4j'), config.storeTimeoutMs, config.storeWriteTimeoutMs);
  // The analysts' Cypher has a pool of its own: however many of its queries run, the service's never wait for a connection.
  const analystDriver = createDriver({
    uri: stores.neo4jUri,
    user: stores.neo4jUser,
    password: stores.neo4jPassword,
    timeoutMs: config.storeTimeoutMs,
    maxConnections: config.graphQueryConcurrency,
  });
  const scheduler = new Scheduler({
    databaseUrl: stores.databaseUrl,
    roles: config.roles,
    lockLifetimeMs: config.jobsLockLifetimeMs,
    pollIntervalMs: config.jobsPollIntervalMs,
    workerConcurrency: config.jobsWorkerConcurrency,
    logger,
  });
  const access = createAccessServices(db, config, logger, clock);
  const rowCounts = new RowCounts(db);
  const assetGraph = new AssetGraphRepository(graph);
  const assetReadModel = new AssetReadModel(assetGraph, new SynthesizedAssetStore(db, rowCounts));
  const changeGraph = new ChangeGraphRepository(graph);
  const readAheads = metrics.counter({
    name: 'list_read_ahead_pages_total',
    help: 'Pages of a walk in bulk read before they were asked for: served, or stale (the graph changed since) and read again.',
    labelNames: ['list', 'outcome'],
  });
  const relationships = new RelationshipGraphRepository(graph, (outcome) => readAheads.inc({ list: 'relationships', outcome }));
  const identities = new IdentityStore(db);
  const assetNames = new AssetNameStore(db);
  const subRecordStore = new SubRecordStore(db);
  const facts = new FactStore(db);
  // The ranks of discovery's methods, as its connectors declare them: data for the facts' precedence.
  const precedence = new FactPrecedence(CONNECTOR_FACT_RANKS);
  const inventory = new InventoryWriter(
    db, identities, facts, precedence, assetNames, new LoadGraphRepository(graph),
    new SubRecordLoader(subRecordStore, identities, config.fdbMaxMacsPerAccessPort), subRecordStore, new ScopeMemberStore(db), access.audit,
  );
  const importer = new ImportService(inventory, {
    maxAgeDays: Math.min(config.agingInactiveAfterDays, config.retentionSubAssetDays),
    clockSkewSeconds: config.importClockSkewSeconds,
  });
  const hostState = new HostStateStore(db);
  const targetStore = new TargetStore(db);
  const runs = new RunStore(db, rowCounts);
  const unwrittenAssets = new UnwrittenAssetSweep(identities, graph);
  const observationLoader = new ObservationLoader(inventory, identities, new ScanGraphRepository(graph), hostState);
  const diagnosis = new DiagnosisService(config.aiEnabled, diagnosisProvider(config), new DiagnosisStore(db), runs, targetStore, new CredentialStore(db), access.audit, logger);
  const alerts = new AlertService({
    webhookUrl: config.alertWebhookUrl,
    format: config.alertWebhookFormat,
    maxAttempts: config.alertMaxAttempts,
    retryDelayMs: config.alertRetryDelayMs,
    timeoutMs: config.alertTimeoutMs,
    linkBase: `${config.publicUrl}${config.contextPath}`,
  }, new AlertStore(db), runs, diagnosis, logger);
  const followUp = new RunFollowUp(scheduler, diagnosis, alerts, logger);
  registerOperationalGauges(metrics, {
    queueDepth: () => scheduler.queueDepth(),
    runsByStatus: () => runs.countByStatus(),
    supervised: stores.supervised ?? [],
  });
  const flowPool = new pg.Pool({ connectionString: stores.databaseUrl, max: 2, connectionTimeoutMillis: config.storeTimeoutMs, application_name: 'asset-inventory-flows' });
  flowPool.on('error', (error) => logger.warn('flow store connection lost', { error }));
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
    ...access,
    assetReadModel,
    assets: new AssetService(assetGraph, assetReadModel, access.audit),
    relationships,
    topology: new TopologyService(new TopologyGraphRepository(graph), assetGraph, assetReadModel, new InterfaceLinkStore(db)),
    schema: new SchemaService(assetGraph),
    inventory,
    importer,
    unwrittenAssets,
    provenance: new ProvenanceService(facts, precedence),
    changes: new ChangeFeedService(changeGraph, assetReadModel),
    graphQueries: new GraphQueryService(
      new AdHocQueryGraphRepository(analystDriver, graph, logger.child({ module: 'graph-query' })),
      analystBulkhead(metrics, config),
      access.audit,
      config.graphQueryTimeoutMs,
    ),
    insights: new InsightService(INSIGHT_FEEDS, new InsightGraphRepository(graph), new InsightStore(db), assetGraph),
    exports: new ExportService(assetGraph, relationships, new SubRecordExportStore(copyPool), config.storeTimeoutMs),
    targets: new TargetService(targetStore, access.audit, {
      maxAddresses: config.discoveryMaxAddressesPerTarget,
      minScheduleIntervalSeconds: config.discoveryMinScheduleIntervalSeconds,
    }),
    runs,
    discovery: new DiscoveryService(runs, targetStore, scheduler, access.audit, hostState),
    hostState,
    pins: new PinService(hostState, access.audit),
    observationLoader,
    discoveryRunner: new DiscoveryRunner(
      runs,
      targetStore,
      new CredentialOffer(db, access.credentials, hostState),
      hostState,
      { config, hostState },
      observationLoader,
      {
        sweep: { ports: config.discoverySweepPorts, timeoutMs: config.discoveryConnectTimeoutMs, icmp: config.discoveryIcmp },
        concurrency: config.discoveryConcurrency,
        hostConcurrency: config.discoveryHostConcurrency,
        hostTimeoutMs: config.discoveryHostTimeoutMs,
        leaseMs: config.discoveryLeaseMs,
        excluded: storeEndpoints(stores),
      },
      logger,
      followUp,
    ),
    diagnosis,
    alerts,
    followUp,
    flowPool,
    flowStore,
    flowRetention,
    flowCollector,
    flowAnalytics: new FlowAnalyticsService(flowAnalyticsStore, identities, assetGraph, flowGraph),
    flowInventory: new FlowInventory(flowAnalyticsStore, inventory, identities, flowGraph, config.flowsCommunicationRetireHours * 3_600_000),
    maintenance: new MaintenanceJobs(
      new RetentionSweep(db, graph, rowCounts, assetNames, changeGraph, unwrittenAssets, { subAssetDays: config.retentionSubAssetDays, retiredDays: config.retentionRetiredDays }),
      new AgingSweep(graph, inventory, config.agingStaleAfterDays, config.agingInactiveAfterDays),
      rowCounts,
      logger,
    ),
    config,
    addresses: stores,
    logger,
    db,
    rowCounts,
    sessionPool,
    sessionStore: sessions,
    copyPool,
    driver,
    analystDriver,
    graph,
    scheduler,
    metrics,
    apiDocument: loadApiDocument(config.contextPath),
    health: new HealthService(db, driver, config.neo4jDatabase),
  };
}
