// AZURE: one Microsoft Entra tenant's subscriptions read through the official Azure SDK
// (azure-read.ts) with an AZURE_CLIENT_SECRET credential (each in turn until Entra ID accepts one),
// mapped to an estate of the spec's types (azure-estate.ts). The target's address stands for the
// tenant's API (for example management.azure.com): the run records the tenant there; the SDK reaches
// Azure Resource Manager and Entra ID at their public endpoints, or at those settings.AZURE.endpoints
// names (sovereign clouds, Azure Stack Hub, a proxy). The estate is read in parts (the
// subscriptions, each service of each subscription): a part that fails keeps what it read and
// retires nothing, while the parts read in full retire what they no longer show.
import { z } from 'zod';
import type { ConnectorResult } from '../../host-observation.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { AZURE_ERRORS } from './azure-errors.js';
import { toEstate } from './azure-estate.js';

const GUID = z.string().regex(/^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/, 'a subscription id such as 291bba3f-e0a5-47bc-a099-3bdcb2a50a05');
const HTTPS = z.url({ protocol: /^https$/ }).max(2048);

const settings = z.strictObject({
  subscriptions: z.array(GUID).min(1).max(1000).optional().describe('The subscriptions to read (every one the service principal sees by default)'),
  endpoints: z
    .strictObject({
      resourceManager: HTTPS.optional().describe('Azure Resource Manager (https://management.azure.com by default)'),
      login: HTTPS.optional().describe("Microsoft Entra ID's authority host (https://login.microsoftonline.com by default)"),
    })
    .optional()
    .describe('Endpoint URLs for sovereign clouds, Azure Stack Hub and proxies'),
  caCertificate: z.string().max(20_000).regex(/-----BEGIN CERTIFICATE-----/, 'a PEM certificate').optional().describe("PEM authorities trusted for the endpoints, beside the system's"),
  subscriptionConcurrency: z.number().int().min(1).max(32).optional().describe('Subscriptions read at the same time (4 by default)'),
  maxRetries: z.number().int().min(0).max(20).optional().describe('Retries per request; a throttled one (429) waits what Retry-After says (6 by default)'),
  timeoutMs: z.number().int().min(100).max(600_000).optional().describe('How long each request may take (ms; 60,000 by default)'),
  maxResources: z.number().int().min(1).max(5_000_000).optional().describe('Resources read at most, all subscriptions and services together (500,000 by default); more is a partial read'),
});

export const AZURE_DEFAULTS = { subscriptionConcurrency: 4, maxRetries: 6, maxResources: 500_000, requestTimeoutMs: 60_000 };

export async function collectAzure({ address, credentials, settings: targetSettings, deadline }: CollectRequest, { config }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own = settings.parse(targetSettings);
  // The SDK's clients take about a second of CPU to load: only a process that reads Azure does.
  const { DEFAULT_ENDPOINTS, readAzure } = await import('./azure-read.js');
  const { read, errors, credentialId } = await readAzure(address, credentials, {
    endpoints: { ...DEFAULT_ENDPOINTS, ...own.endpoints },
    ...(own.caCertificate ? { caCertificate: own.caCertificate } : {}),
    ...(own.subscriptions ? { subscriptions: own.subscriptions } : {}),
    subscriptionConcurrency: own.subscriptionConcurrency ?? AZURE_DEFAULTS.subscriptionConcurrency,
    maxRetries: own.maxRetries ?? AZURE_DEFAULTS.maxRetries,
    connectTimeoutMs: config.discoveryConnectTimeoutMs,
    requestTimeoutMs: own.timeoutMs ?? AZURE_DEFAULTS.requestTimeoutMs,
    maxResources: own.maxResources ?? AZURE_DEFAULTS.maxResources,
    deadline,
  });
  return { ...(read ? { estate: toEstate(read) } : {}), errors, ...(credentialId ? { credentialId } : {}) };
}

export const azureConnector = {
  method: 'AZURE',
  stage: 'inventory',
  enabledByDefault: false,
  // The cloud's own record of a VM, as AWS's (46): below SSH (50), above vCenter (45); no two sources share a rank.
  factRank: 47,
  description: "A Microsoft Entra tenant's subscriptions, locations, virtual machines, virtual networks and subnets, storage accounts and blob containers, SQL servers and databases, load balancers, resource groups and deployments, through the Azure SDK.",
  credentialKinds: ['AZURE_CLIENT_SECRET'],
  defaultPort: 443,
  settings,
  errors: AZURE_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: [],
  retires: ['estate'],
  collect: collectAzure,
} as const satisfies InventoryConnector<typeof AZURE_ERRORS>;
