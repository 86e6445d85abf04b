// Every setting of the service, in one table: its dotted name (the names of docs/interface.md, decision 6), the
// environment variable that overrides it, its default and its validation. Nothing else in the
// code reads process.env: settings reach modules through the AppConfig built here.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const PROCESS_ROLES = ['api', 'worker', 'scheduler', 'collector', 'scanner'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];
export const AI_PROVIDERS = ['rules', 'chat-completions'] as const;
export const ALERT_FORMATS = ['slack', 'teams'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

const CRON_FIELD = /^[\d*/,\-?LW#A-Za-z]+$/;
const MEMORY_SIZE = /^\d+[kmg]$/i;

/** A cron expression of 5 fields, or 6 with seconds first. */
export const cronExpression = z
  .string()
  .trim()
  .refine((v) => {
    const fields = v.split(/\s+/);
    return (fields.length === 5 || fields.length === 6) && fields.every((f) => CRON_FIELD.test(f));
  }, 'must be a cron expression of 5 or 6 fields');
const bool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const port = int(0, 65535);
/** An address or a CIDR network: 10.1.2.3, 10.0.0.0/8, fd00::/8. */
const isNetwork = (value: string) => {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = net.isIP(address);
  return family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)));
};
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine((v) => protocols.some((p) => v.startsWith(`${p}://`)), `must start with ${protocols.join('://, ')}://`)
    .optional();

interface Setting<S extends z.ZodType> {
  key: string;
  env: string;
  schema: S;
  default?: z.input<S>;
  description: string;
  /** Secret values are never printed, not even in a validation error. */
  secret?: boolean;
}

function setting<S extends z.ZodType>(
  key: string,
  schema: S,
  description: string,
  options: { default?: z.input<S>; env?: string; secret?: boolean } = {},
): Setting<S> {
  const env = options.env ?? key.toUpperCase().replace(/[.-]/g, '_');
  return { key, env, schema, description, default: options.default, secret: options.secret };
}

export const SETTINGS = {
  port: setting('server.port', port, 'HTTP port of the API (0 picks a free port).', { default: 8080, env: 'PORT' }),
  contextPath: setting(
    'service.context-path',
    z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must be empty or a path such as /inventory')
      .transform((v) => v.replace(/\/$/, '')),
    'Prefix of every URL the service serves, /health and /swagger-ui.html included.',
    { default: '' },
  ),
  dataDir: setting('service.data-dir', z.string().min(1), 'Folder of the local stores and generated keys.', {
    default: './data',
  }),
  roles: setting(
    'service.roles',
    z
      .string()
      .transform((v) => v.split(',').map((r) => r.trim()).filter(Boolean))
      .pipe(z.array(z.enum(PROCESS_ROLES)).min(1)),
    'Comma-separated process roles: api (HTTP), worker (runs jobs), scheduler (creates recurring jobs), collector (receives NetFlow, IPFIX and sFlow); or scanner alone (a remote scanner: no store, only service.scanner.url and .token).',
    { default: 'api,worker,scheduler,collector' },
  ),
  shutdownGraceMs: setting(
    'service.shutdown-grace-ms',
    int(1000, 600_000),
    'How long a stop (SIGTERM, SIGINT) may take in order; then whatever still runs is ended (the local Neo4j killed) and the process exits with 1.',
    { default: 30_000 },
  ),
  logLevel: setting('service.log.level', z.enum(['error', 'warn', 'info', 'debug']), 'Log level.', {
    default: 'info',
  }),
  databaseUrl: setting(
    'database.url',
    optionalUrl(['postgres', 'postgresql']),
    'PostgreSQL connection URL. When unset, an embedded PostgreSQL is started under the data folder.',
    { secret: true },
  ),
  databasePoolMax: setting('database.pool-max', int(1, 200), 'Maximum PostgreSQL connections of this process.', {
    default: 10,
  }),
  localPostgresPort: setting(
    'service.local.postgres-port',
    port,
    'Port of the embedded PostgreSQL (only when database.url is unset).',
    { default: 55432 },
  ),
  neo4jUri: setting(
    'neo4j.uri',
    optionalUrl(['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc']),
    'Neo4j URI (bolt:// or neo4j:// for a cluster). When unset, a local Neo4j 5.26 is started under the data folder.',
  ),
  neo4jUser: setting('neo4j.user', z.string().min(1), 'Neo4j user name.', { default: 'neo4j' }),
  neo4jPassword: setting('neo4j.password', z.string(), 'Neo4j password (with neo4j.uri; the local Neo4j\'s is generated into the data folder).', { default: '', secret: true }),
  neo4jDatabase: setting('neo4j.database', z.string().min(1), 'Neo4j database name.', { default: 'neo4j' }),
  localNeo4jBoltPort: setting('service.local.neo4j-bolt-port', port, 'Bolt port of the local Neo4j.', {
    default: 57687,
  }),
  localNeo4jHeap: setting(
    'service.local.neo4j-heap',
    z.string().regex(MEMORY_SIZE, 'must be a size such as 512m or 2g'),
    'Java heap of the local Neo4j.',
    { default: '1g' },
  ),
  localNeo4jPageCache: setting(
    'service.local.neo4j-pagecache',
    z.string().regex(MEMORY_SIZE, 'must be a size such as 256m or 2g'),
    'Page cache of the local Neo4j.',
    { default: '512m' },
  ),
  trustProxy: setting(
    'service.http.trust-proxy',
    z.string().min(1),
    'Which proxies to believe for the client address and https (Express trust proxy: loopback, a CIDR list, a hop count, true or false).',
    { default: 'loopback' },
  ),
  corsOrigins: setting(
    'service.http.cors-origins',
    z
      .string()
      .transform((v) => v.split(',').map((o) => o.trim().replace(/\/$/, '')).filter(Boolean))
      .pipe(z.array(z.string().regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be origins such as https://portal.example.com'))),
    'Comma-separated origins (scheme://host[:port]) whose web pages may call the API from a browser (CORS); empty: none. Such callers use API tokens or integration keys, never the session cookie.',
    { default: '' },
  ),
  adminUsername: setting('service.auth.admin-username', z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/), 'User name of the administrator created at first start.', {
    default: 'admin',
  }),
  adminPassword: setting(
    'service.auth.admin-password',
    z.string().min(12, 'must be at least 12 characters').optional(),
    'Password of the administrator created at first start (when no user exists); a generated one is logged once otherwise.',
    { env: 'SERVICE_ADMIN_PASSWORD', secret: true },
  ),
  sessionIdleMinutes: setting('service.auth.session-idle-minutes', int(1, 1440), 'A browser session ends after this long without a request.', {
    default: 30,
  }),
  sessionAbsoluteHours: setting('service.auth.session-absolute-hours', int(1, 720), 'A browser session ends this long after sign-in, whatever its use.', {
    default: 12,
  }),
  loginMaxFailures: setting('service.auth.login-max-failures', int(1, 1000), 'Failed sign-ins per user name (and 4x that per address) before sign-in is paused.', {
    default: 5,
  }),
  loginLockoutMinutes: setting('service.auth.login-lockout-minutes', int(1, 1440), 'How long sign-in stays paused after too many failures, and the window in which failures are counted.', {
    default: 15,
  }),
  sessionSecret: setting(
    'service.auth.session-secret',
    z.string().min(32, 'must be at least 32 characters').optional(),
    'Key that signs session cookies. Unset: generated once into the data folder.',
    { secret: true },
  ),
  tokenPepper: setting(
    'service.auth.token-pepper',
    z.string().min(32, 'must be at least 32 characters').optional(),
    'Key of the keyed hash under which API tokens and integration keys are stored. Unset: generated once into the data folder.',
    { secret: true },
  ),
  vaultKeys: setting(
    'service.vault.keys',
    z
      .string()
      .regex(/^\d+:[A-Za-z0-9+/]{43}=(,\d+:[A-Za-z0-9+/]{43}=)*$/, 'must be version:base64-of-32-bytes, comma-separated')
      .optional(),
    'Keys that encrypt credential secrets (AES-256-GCM), as version:base64 pairs; the highest version encrypts, all decrypt. Unset: generated once into the data folder.',
    { secret: true },
  ),
  storeTimeoutMs: setting(
    'service.store-timeout-ms',
    int(100, 120_000),
    'How long a request waits for a store (a connection, a Neo4j read, a PostgreSQL statement) before answering 503.',
    { default: 5000 },
  ),
  storeWriteTimeoutMs: setting(
    'service.store-write-timeout-ms',
    int(100, 600_000),
    'How long a Neo4j write transaction (a batch of an import, a scan or a sweep) may run, or wait for a stalled server, before it is ended and the request answers 503.',
    { default: 60_000 },
  ),
  validateResponses: setting(
    'service.http.validate-responses',
    bool,
    'Check every response against api.yaml (for tests; costs throughput).',
    { default: false },
  ),
  jobsLockLifetimeMs: setting(
    'service.jobs.lock-lifetime-ms',
    int(1000, 86_400_000),
    'How long a worker holds a job before another worker may take it over.',
    { default: 600_000 },
  ),
  jobsPollIntervalMs: setting(
    'service.jobs.poll-interval-ms',
    int(100, 3_600_000),
    'How often a worker looks for due jobs (new jobs also arrive at once by notification).',
    { default: 5000 },
  ),
  jobsWorkerConcurrency: setting(
    'service.jobs.worker-concurrency',
    int(1, 64),
    'Jobs one worker process runs at the same time.',
    { default: 4 },
  ),
  agingStaleAfterDays: setting('service.aging.stale-after-days', int(1, 3650), 'An ACTIVE asset not observed for this many days becomes STALE.', {
    default: 7,
  }),
  agingInactiveAfterDays: setting('service.aging.inactive-after-days', int(1, 3650), 'A STALE asset not observed for this many days becomes INACTIVE.', {
    default: 30,
  }),
  agingCron: setting(
    'service.aging.cron',
    cronExpression,
    'When the daily aging sweeper runs (UTC).',
    { default: '0 45 2 * * *' },
  ),
  discoveryMaxAddressesPerTarget: setting(
    'service.discovery.max-addresses-per-target',
    int(1, 1_048_576),
    'The most addresses one discovery target may cover (a /16 is 65,534); a run takes them a chunk at a time.',
    { default: 65_536 },
  ),
  discoveryMinScheduleIntervalSeconds: setting(
    'service.discovery.min-schedule-interval-seconds',
    int(1, 86_400),
    'The shortest time between two scheduled scans of a target that its cron schedule may ask for; a schedule that fires more often is refused.',
    { default: 300 },
  ),
  credentialsBroadMatchIpv4Prefix: setting(
    'service.credentials.broad-match-ipv4-prefix',
    int(0, 32),
    'The widest IPv4 CIDR a credential may match without allowBroadMatch: a credential is offered to every address its pattern covers that answers, a rogue host too.',
    { default: 16 },
  ),
  credentialsBroadMatchIpv6Prefix: setting(
    'service.credentials.broad-match-ipv6-prefix',
    int(0, 128),
    'The widest IPv6 CIDR a credential may match without allowBroadMatch.',
    { default: 48 },
  ),
  importClockSkewSeconds: setting(
    'service.import.clock-skew-seconds',
    int(0, 3600),
    'How far ahead of the service\'s clock the observedAt of an import may be (the sender\'s clock skew).',
    { default: 300 },
  ),
  discoverySweepPorts: setting(
    'service.discovery.sweep-ports',
    z
      .string()
      .transform((v) => v.split(',').map((p) => p.trim()).filter(Boolean).map(Number))
      .pipe(z.array(z.number().int().min(1).max(65535)).min(1).max(64)),
    'TCP ports the SWEEP method connects to; an accepted or refused connection proves a live host.',
    { default: '22,23,80,135,139,443,445,3389,5985,8080' },
  ),
  discoveryIcmp: setting(
    'service.discovery.icmp',
    bool,
    'SWEEP also sends an ICMP echo: with every address\'s connects, in nmap batches, where the worker holds CAP_NET_RAW; otherwise one ping(8) where no port answered.',
    { default: true },
  ),
  discoveryConnectTimeoutMs: setting('service.discovery.connect-timeout-ms', int(50, 60_000), 'How long a discovery connection attempt waits for an answer (SWEEP\'s longest wait: it waits less once it has seen answers).', {
    default: 1500,
  }),
  discoverySweepMinTimeoutMs: setting(
    'service.discovery.sweep-min-timeout-ms',
    int(10, 60_000),
    'The shortest wait of a SWEEP probe: its wait is the answers\' smoothed round-trip time plus four deviations, no less than this and no more than connect-timeout-ms; a host slower to answer than the wait is missed.',
    { default: 250 },
  ),
  discoveryProbeRate: setting(
    'service.discovery.probe-rate',
    int(1, 1_000_000),
    'SWEEP probes (TCP connects, ICMP echoes) one worker sends per second at most, over all the chunks it runs; n workers send up to n times as many.',
    { default: 15_000 },
  ),
  discoveryConcurrency: setting('service.discovery.concurrency', int(1, 4096), 'Addresses one worker probes at the same time, over all the chunks it runs (each holds a socket per SWEEP port while it waits).', {
    default: 1024,
  }),
  discoveryLeaseMs: setting(
    'service.discovery.lease-ms',
    int(1000, 3_600_000),
    'A chunk whose worker has not reported for this long goes back to the queue (or fails after its last attempt); a run lost while planning or loading is failed.',
    { default: 60_000 },
  ),
  discoveryChunkSize: setting(
    'service.discovery.chunk-size',
    int(1, 65_536),
    'The most addresses in one chunk of a run, the unit that workers share and that a lost worker makes another scan again.',
    { default: 256 },
  ),
  discoveryChunkMaxAttempts: setting(
    'service.discovery.chunk-max-attempts',
    int(1, 100),
    'How many times a chunk is taken before a lost worker fails it (WORKER_LOST; the run ends COMPLETED_WITH_ERRORS).',
    { default: 3 },
  ),
  discoveryHostConcurrency: setting('service.discovery.host-concurrency', int(1, 256), 'Hosts one worker inventories (SSH, SNMP) at the same time, over all the chunks it runs; each host gets one connection at a time.', {
    default: 8,
  }),
  discoveryHostTimeoutMs: setting(
    'service.discovery.host-timeout-ms',
    int(1000, 3_600_000),
    'How long one host may take over all its methods; what it gave by then is kept and nothing of it is retired.',
    { default: 180_000 },
  ),
  discoverySshLoginTimeoutMs: setting('service.discovery.ssh-login-timeout-ms', int(100, 300_000), 'How long an SSH connection may take to connect, agree keys and log in.', {
    default: 15_000,
  }),
  discoveryCommandTimeoutMs: setting('service.discovery.command-timeout-ms', int(100, 600_000), 'How long one inventory command over SSH may run.', {
    default: 30_000,
  }),
  discoveryOutputMaxBytes: setting('service.discovery.output-max-bytes', int(1024, 268_435_456), 'The most output read from one inventory command; more leaves its data incomplete.', {
    default: 16_777_216,
  }),
  discoverySnmpTimeoutMs: setting('service.discovery.snmp-timeout-ms', int(100, 60_000), 'How long an SNMP request waits for an answer before a retry.', {
    default: 2000,
  }),
  discoverySnmpRetries: setting('service.discovery.snmp-retries', int(0, 10), 'Retries of an unanswered SNMP request.', { default: 1 }),
  discoverySnmpMaxRows: setting('service.discovery.snmp-max-rows', int(10, 1_000_000), 'The most rows read from one SNMP table; more leaves that table incomplete.', {
    default: 20_000,
  }),
  discoveryNmapPath: setting('service.discovery.nmap-path', z.string().min(1).max(4096), 'The nmap program that FINGERPRINT runs (a name on the PATH, or an absolute path).', {
    default: 'nmap',
  }),
  discoveryVcenterPageSize: setting('service.discovery.vcenter-page-size', int(10, 10_000), 'Objects per page of a vCenter PropertyCollector read (RetrievePropertiesEx maxObjects).', {
    default: 500,
  }),
  scannerUrl: setting(
    'service.scanner.url',
    z
      .string()
      .trim()
      .regex(/^https?:\/\/[^?#\s]+$/, 'must be http(s)://host[:port][/context-path]')
      .transform((v) => v.replace(/\/$/, ''))
      .optional(),
    'The scanner role only: the URL of the service (with its context path) that the scanner takes its chunks from and reports to; https anywhere but a lab.',
  ),
  scannerToken: setting(
    'service.scanner.token',
    z.string().trim().regex(/^svcs_[0-9A-Za-z]{38}$/, 'must be a scanner token (svcs_ and 38 letters or digits), as POST /api/v1/scanners answered it').optional(),
    'The scanner role only: the scanner\'s token (svcs_), made by an administrator with POST /api/v1/scanners; it admits only the scanner operations.',
    { secret: true },
  ),
  scannerWaitSeconds: setting(
    'service.scanner.wait-seconds',
    int(1, 30),
    'The scanner role only: how long one claim waits at the service for a chunk of the scanner\'s group (a long poll) before it asks again.',
    { default: 20 },
  ),
  scannerRetryMaxMs: setting(
    'service.scanner.retry-max-ms',
    int(100, 600_000),
    'The scanner role only: the longest wait between two tries when the service cannot be reached or answers 5xx (the wait doubles from 1 s up to this).',
    { default: 30_000 },
  ),
  fdbMaxMacsPerAccessPort: setting(
    'service.topology.fdb-max-macs-per-access-port',
    int(1, 4096),
    'A switch port that has learnt more MACs than this is an uplink or trunk: its forwarding entries link no host.',
    { default: 8 },
  ),
  graphQueryTimeoutMs: setting(
    'service.graph-query.timeout-ms',
    int(100, 600_000),
    'How long a query of POST /graph/query may run; Neo4j stops it then. The endpoint answers within it and 2 s.',
    { default: 10_000 },
  ),
  graphQueryConcurrency: setting(
    'service.graph-query.concurrency',
    int(1, 64),
    'How many queries of POST /graph/query run at once, on a Neo4j connection pool of their own (the rest of the service never waits for them).',
    { default: 2 },
  ),
  graphQueryQueueSize: setting(
    'service.graph-query.queue-size',
    int(0, 1000),
    'How many more queries of POST /graph/query may wait for a place; beyond, 429 with Retry-After.',
    { default: 8 },
  ),
  graphQueryPerPrincipal: setting(
    'service.graph-query.per-principal',
    int(1, 64),
    'How many queries of POST /graph/query one user or key may have running or waiting; beyond, 429 with Retry-After.',
    { default: 2 },
  ),
  aiEnabled: setting('service.ai.enabled', bool, 'Enables the AI diagnosis of failed discovery runs.', {
    default: false,
  }),
  aiProvider: setting(
    'service.ai.provider',
    z.enum(AI_PROVIDERS),
    'Who diagnoses: rules (built-in rules per error code, model rules-v1) or chat-completions (an OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, llama.cpp server).',
    { default: 'rules' },
  ),
  aiBaseUrl: setting(
    'service.ai.base-url',
    optionalUrl(['http', 'https']),
    'Base URL of the chat-completions endpoint, up to and without /chat/completions (e.g. http://localhost:11434/v1); needed by that provider.',
  ),
  aiModel: setting('service.ai.model', z.string().trim().min(1).max(200).optional(), 'Model asked by the chat-completions provider; needed by that provider.'),
  aiApiKey: setting('service.ai.api-key', z.string().min(1).optional(), 'API key sent as a bearer token to the chat-completions endpoint, when it needs one.', {
    secret: true,
  }),
  aiTimeoutMs: setting('service.ai.timeout-ms', int(100, 600_000), 'How long a diagnosis waits for the chat-completions endpoint.', {
    default: 60_000,
  }),
  publicUrl: setting(
    'service.public-url',
    z
      .string()
      .trim()
      .regex(/^https?:\/\/[^/?#\s]+\/?$/, 'must be http(s)://host[:port], without a path')
      .transform((v) => v.replace(/\/$/, '')),
    'Scheme, host and port under which people reach the service; with the context path it makes the links in alerts.',
    { default: 'http://localhost:8080' },
  ),
  alertWebhookUrl: setting(
    'service.alerts.webhook-url',
    optionalUrl(['http', 'https']),
    'Team-chat incoming webhook that is told of every run that finishes with errors. Unset: no alerts.',
    { secret: true },
  ),
  alertWebhookFormat: setting(
    'service.alerts.webhook-format',
    z.enum(ALERT_FORMATS),
    'Message format of the webhook: slack (Slack, Mattermost, Rocket.Chat) or teams (an Adaptive Card for a Microsoft Teams workflow).',
    { default: 'slack' },
  ),
  alertMaxAttempts: setting('service.alerts.max-attempts', int(1, 20), 'Deliveries tried per alert before it is recorded as FAILED.', {
    default: 5,
  }),
  alertRetryDelayMs: setting(
    'service.alerts.retry-delay-ms',
    int(10, 3_600_000),
    'Wait before the first retry of an alert; each further retry waits twice as long.',
    { default: 30_000 },
  ),
  alertTimeoutMs: setting('service.alerts.timeout-ms', int(100, 120_000), 'How long one delivery waits for the webhook to answer.', {
    default: 10_000,
  }),
  retentionSubAssetDays: setting(
    'service.retention.sub-asset-days',
    int(1, 3650),
    'Days after which software packages and services that were not observed again are removed.',
    { default: 30 },
  ),
  retentionRetiredDays: setting(
    'service.retention.retired-days',
    int(1, 3650),
    'Days a retired relationship is kept for the change feed (GET /changes) before the retention sweep purges it; a feed reader further behind must resync.',
    { default: 30 },
  ),
  historyRetentionDays: setting(
    'service.history.retention-days',
    int(1, 3650),
    'Days of history kept (GET /assets/{id}/history, as-of reads): older changes go at the retention sweep, and a time before answers 410. Retired relationships are kept at least as long.',
    { default: 400 },
  ),
  retentionCron: setting(
    'service.retention.cron',
    cronExpression,
    'When the retention sweep runs (UTC, seconds first when 6 fields).',
    { default: '0 15 2 * * *' },
  ),
  rowCountsCron: setting(
    'service.row-counts.cron',
    cronExpression,
    'When the changes of the row counts kept beside the lists (runs, sub-records) are folded into their base (UTC, seconds first when 6 fields); a count reads the changes since the last fold.',
    { default: '30 * * * * *' },
  ),
  flowsBindAddress: setting(
    'service.flows.bind-address',
    z.string().trim().min(1),
    'Address the flow collector listens on (loopback by default; 0.0.0.0 or :: to hear exporters on the network).',
    { default: '127.0.0.1' },
  ),
  flowsNetflowPort: setting('service.flows.netflow-port', port, 'UDP port of NetFlow v5, v9 and IPFIX (0 picks a free port).', { default: 2055 }),
  flowsSflowPort: setting('service.flows.sflow-port', port, 'UDP port of sFlow v5 (0 picks a free port).', { default: 6343 }),
  flowsBatchSize: setting('service.flows.batch-size', int(1, 1_000_000), 'Flows written to PostgreSQL in one COPY.', { default: 50_000 }),
  flowsFlushMs: setting('service.flows.flush-ms', int(10, 60_000), 'Longest time a received flow waits before it is written.', { default: 1000 }),
  flowsReceiveBufferBytes: setting(
    'service.flows.receive-buffer-bytes',
    int(1024, 1 << 30),
    'Receive buffer (SO_RCVBUF) of each flow socket, which holds datagrams while the collector is busy; the kernel caps it at net.core.rmem_max (the collector warns when it did).',
    { default: 4 << 20 },
  ),
  flowsAllowedExporters: setting(
    'service.flows.allowed-exporters',
    z
      .string()
      .transform((v) => v.split(',').map((n) => n.trim()).filter(Boolean))
      .pipe(z.array(z.string().refine(isNetwork, 'must be addresses or CIDR networks, comma-separated (10.0.0.0/8,fd00::/8)'))),
    'Comma-separated addresses or CIDR networks whose flow datagrams are decoded; datagrams from elsewhere are dropped and counted. Empty: any sender.',
    { default: '' },
  ),
  flowsMaxExporters: setting(
    'service.flows.max-exporters',
    int(1, 1_000_000),
    'Exporters whose counters the collector holds in memory, and rows kept in flow_exporters; beyond, those that never sent a flow are forgotten first, then the least recently heard.',
    { default: 10_000 },
  ),
  flowsExporterTtlSeconds: setting('service.flows.exporter-ttl-seconds', int(10, 604_800), 'Seconds an exporter\'s counters are held in memory after its last datagram.', { default: 3600 }),
  flowsMaxTemplates: setting(
    'service.flows.max-templates',
    int(1, 10_000_000),
    'NetFlow v9/IPFIX templates held, all exporters together; beyond, templates no data set read are forgotten first, then the least recently used.',
    { default: 20_000 },
  ),
  flowsMaxTemplatesPerDomain: setting(
    'service.flows.max-templates-per-domain',
    int(1, 65_535),
    'Templates held per exporter and observation domain; a new one replaces one no data set read, and is refused (counted) when all are in use.',
    { default: 512 },
  ),
  flowsTemplateTtlSeconds: setting(
    'service.flows.template-ttl-seconds',
    int(10, 86_400),
    'Seconds a template is kept without being re-sent (exporters over UDP re-send theirs periodically).',
    { default: 1800 },
  ),
  flowsMaxSamplerIds: setting(
    'service.flows.max-sampler-ids',
    int(1, 10_000_000),
    'Sampling rates (per sampler id or observation domain) and exporter clocks from options records held, all exporters together; beyond, those no flow read are forgotten first.',
    { default: 100_000 },
  ),
  flowsSamplerTtlSeconds: setting('service.flows.sampler-ttl-seconds', int(10, 604_800), 'Seconds a sampling rate or exporter clock is held when neither announced again nor read.', { default: 3600 }),
  flowsMaxCachedAddresses: setting('service.flows.max-cached-addresses', int(1, 10_000_000), 'Encoded flow addresses the batch encoder keeps for reuse.', { default: 100_000 }),
  flowsCachedAddressTtlSeconds: setting('service.flows.cached-address-ttl-seconds', int(1, 86_400), 'Seconds an encoded address is kept.', { default: 600 }),
  flowsMaxInterfaceNames: setting(
    'service.flows.max-interface-names',
    int(1, 1_000_000),
    'Interface names kept per exporter (flow_exporter_interfaces); beyond, the least recently announced are deleted.',
    { default: 1000 },
  ),
  flowsRetentionInterfaceNameDays: setting('service.flows.retention.interface-name-days', int(1, 3650), 'Days an interface name is kept after it was last announced.', { default: 30 }),
  flowsRetentionExporterDays: setting('service.flows.retention.exporter-days', int(1, 3650), 'Days an exporter\'s row (its counters) is kept after its last datagram.', { default: 30 }),
  flowsRetentionRawDays: setting('service.flows.retention.raw-days', int(1, 3650), 'Days raw flow records are kept.', { default: 2 }),
  flowsRetentionMinuteDays: setting('service.flows.retention.minute-days', int(1, 3650), 'Days the 1-minute rollup is kept.', { default: 14 }),
  flowsRetentionFiveMinuteDays: setting('service.flows.retention.five-minute-days', int(1, 3650), 'Days the 5-minute rollup is kept.', { default: 90 }),
  flowsRetentionHourDays: setting('service.flows.retention.hour-days', int(1, 3650), 'Days the 1-hour rollup is kept.', { default: 400 }),
  flowsCommunicationRetireHours: setting(
    'service.flows.communication-retire-hours',
    int(1, 87_600),
    'Hours after the last flow of a pair of assets when its COMMUNICATES_WITH edge loses the flow evidence (retired when no other source reports it).',
    { default: 168 },
  ),
  flowsRetentionCron: setting(
    'service.flows.retention.cron',
    cronExpression,
    'When the flow retention job drops expired partitions (UTC, seconds first when 6 fields).',
    { default: '0 40 * * * *' },
  ),
};

type Settings = typeof SETTINGS;
export type AppConfig = { readonly [K in keyof Settings]: z.output<Settings[K]['schema']> };
export type ConfigOverrides = { [K in keyof Settings]?: z.input<Settings[K]['schema']> };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ConfigSources {
  /** Environment variables (process.env in production). */
  env?: Record<string, string | undefined>;
  /** Values that win over everything else (tests use this). */
  overrides?: ConfigOverrides;
  /** Settings file to read; false reads none. Default: see configFilePath. */
  file?: string | false;
}

/** Settings file: SERVICE_CONFIG_FILE, or ./config/service.yaml when it exists. */
export function configFilePath(env: Record<string, string | undefined>): string | undefined {
  const explicit = env.SERVICE_CONFIG_FILE;
  if (explicit) return explicit;
  const conventional = path.resolve('config', 'service.yaml');
  return existsSync(conventional) ? conventional : undefined;
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, value);
  }
}

function readConfigFile(file: string): Map<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read the settings file ${file}: ${(error as Error).message}`);
  }
  const values = new Map<string, unknown>();
  if (parsed !== null && parsed !== undefined) flatten(parsed, '', values);
  const known = new Set(Object.values(SETTINGS).map((s) => s.key));
  for (const key of values.keys()) {
    if (!known.has(key)) throw new ConfigError(`Unknown setting "${key}" in ${file}`);
  }
  return values;
}

/**
 * Builds the configuration from defaults, the settings file, the environment and overrides (in
 * that order of precedence, last wins) and validates every value. Throws a ConfigError that names
 * the setting and its environment variable.
 */
export function loadConfig({ env = {}, overrides = {}, file = configFilePath(env) }: ConfigSources = {}): AppConfig {
  const fromFile = file ? readConfigFile(file) : new Map<string, unknown>();
  const config: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [keyof Settings, Setting<z.ZodType>][]) {
    let raw: unknown = s.default;
    if (fromFile.has(s.key)) raw = fromFile.get(s.key);
    if (env[s.env] !== undefined && env[s.env] !== '') raw = env[s.env];
    if (overrides[name] !== undefined) raw = overrides[name];
    const result = s.schema.safeParse(raw);
    if (!result.success) {
      const shown = s.secret ? '' : ` (got ${JSON.stringify(raw)})`;
      const reason = result.error.issues.map((i) => i.message).join('; ');
      throw new ConfigError(`Invalid setting ${s.key} (environment variable ${s.env})${shown}: ${reason}`);
    }
    config[name] = result.data;
  }
  const roles = config.roles as ProcessRole[];
  if (roles.includes('scanner') && roles.length > 1) {
    throw new ConfigError(`The scanner role runs alone (setting service.roles, environment variable SERVICE_ROLES): a scanner holds no store, the other roles do (got ${roles.join(',')})`);
  }
  if (roles.includes('scanner') && (!config.scannerUrl || !config.scannerToken)) {
    throw new ConfigError('The scanner role needs service.scanner.url (SERVICE_SCANNER_URL) and service.scanner.token (SERVICE_SCANNER_TOKEN)');
  }
  if (config.aiProvider === 'chat-completions' && (!config.aiBaseUrl || !config.aiModel)) {
    throw new ConfigError('The chat-completions provider (setting service.ai.provider) needs service.ai.base-url (SERVICE_AI_BASE_URL) and service.ai.model (SERVICE_AI_MODEL)');
  }
  return Object.freeze(config) as AppConfig;
}
