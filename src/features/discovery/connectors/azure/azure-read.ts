// The read of one Microsoft Entra tenant's subscriptions through the official Azure SDK: a token for
// the service principal (@azure/identity's ClientSecretCredential, from Entra ID's token endpoint),
// the subscriptions it sees, and in each (in parallel, at most subscriptionConcurrency at a time)
// its locations, virtual machines, virtual networks, network interfaces and load balancers, storage
// accounts, SQL servers and their databases, resource groups and their deployments, each through its
// arm-* client, and each storage account's blob containers through its blob service (the data plane,
// @azure/storage-blob at the account's primaryEndpoints.blob, with the same credential's token for
// Azure Storage). Every pager is followed to its end (nextLink, the blob service's marker).
// Throttling (429 with Retry-After) is answered by the SDK's throttling retry policy, which waits
// what Retry-After says, up to maxRetries. Each part (a service in a subscription) succeeds or fails
// on its own: a failed part keeps what it read, records its error, and retires nothing.
import https from 'node:https';
import tls from 'node:tls';
import { ComputeManagementClient } from '@azure/arm-compute';
import { NetworkManagementClient } from '@azure/arm-network';
import { ResourceManagementClient } from '@azure/arm-resources';
import { SubscriptionClient } from '@azure/arm-resources-subscriptions';
import { SqlManagementClient } from '@azure/arm-sql';
import { StorageManagementClient } from '@azure/arm-storage';
import { createPipelineRequest, type PipelinePolicy } from '@azure/core-rest-pipeline';
import { ClientSecretCredential } from '@azure/identity';
import { BlobServiceClient, newPipeline, type Pipeline } from '@azure/storage-blob';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { RunError } from '../../run-record.js';
import { classifyAzureError, type AzureErrorCode } from './azure-errors.js';
import { eachBounded, PartedRead, StopRead } from '../parted-read.js';
import { HandshakeFailure, presentedCertificate } from '../tls-peer.js';
import { blobPart, emptySubscription, SUBSCRIPTION_SERVICES, subscriptionPart, subscriptionsPart, type BlobContainer, type Deployment, type SubscriptionResources, type SubscriptionService, type TenantRead } from './azure-estate.js';

export interface AzureEndpoints {
  /** Azure Resource Manager (https://management.azure.com). */
  resourceManager: string;
  /** Microsoft Entra ID's authority host (https://login.microsoftonline.com). */
  login: string;
}

export interface AzureReadOptions {
  endpoints: AzureEndpoints;
  /** PEM authorities trusted for the endpoints beside the system's (Azure Stack Hub, a TLS-inspecting proxy). */
  caCertificate?: string;
  /** The subscriptions to read; every one the principal sees when left out. */
  subscriptions?: string[];
  subscriptionConcurrency: number;
  maxRetries: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** Resources read at most, all parts together; more leaves the parts not yet read in full incomplete. */
  maxResources: number;
  deadline: number;
}

/** What a read gave, with its cost (for the benchmark): HTTP requests, retries and the token's included. */
export interface AzureReadResult {
  read?: TenantRead;
  errors: RunError[];
  credentialId?: string;
  calls: number;
}

/** Every page of a pager, each counted and checked by `take`. */
async function readAll<T>(pager: { byPage(): AsyncIterableIterator<T[]> }, take: (items: T[], into: T[]) => void): Promise<T[]> {
  const into: T[] = [];
  for await (const page of pager.byPage()) take(page, into);
  return into;
}

// Deployments_ListByResourceGroup: @azure/arm-resources 7 moved Deployments to a package of its own
// (@azure/arm-resourcesdeployments, not installed), so it is asked through the resource client's
// own pipeline (its token, retries and throttling policy), its pages followed by nextLink here.
const DEPLOYMENTS_API_VERSION = '2022-09-01';

/** Every deployment of a resource group, page by page. */
async function listDeployments(client: ResourceManagementClient, endpoint: string, subscriptionId: string, group: string, take: (items: Deployment[], into: Deployment[]) => void): Promise<Deployment[]> {
  const into: Deployment[] = [];
  let url: string | undefined = `${endpoint}/subscriptions/${encodeURIComponent(subscriptionId)}/resourcegroups/${encodeURIComponent(group)}/providers/Microsoft.Resources/deployments/?api-version=${DEPLOYMENTS_API_VERSION}`;
  while (url) {
    const response = await client.sendRequest(createPipelineRequest({ url, method: 'GET' }));
    let body: { value?: Deployment[]; nextLink?: string; error?: { code?: string; message?: string } } = {};
    try {
      body = JSON.parse(response.bodyAsText ?? '{}');
    } catch {
      // Not JSON: reported below by its status.
    }
    if (response.status !== 200) throw Object.assign(new Error(body.error?.message ?? `HTTP ${response.status}`), { name: 'RestError', statusCode: response.status, code: body.error?.code });
    take(body.value ?? [], into);
    url = body.nextLink || undefined;
  }
  return into;
}

/** Storage accounts of a subscription whose blob services are read at the same time. */
const BLOB_ACCOUNT_CONCURRENCY = 4;

/** A resource id's resource group name (ARM ids name it at /resourceGroups/<name>/). */
const resourceGroupOf = (id: string | undefined) => /\/resourceGroups\/([^/]+)\//i.exec(id ?? '')?.[1];

/** The SDK options of one read: one agent (the endpoints' authorities, its sockets closed at the end), each HTTP request counted and bounded in time. */
class AzurePipeline {
  calls = 0;
  readonly agent: https.Agent;
  private readonly policies: { policy: PipelinePolicy; position: 'perCall' | 'perRetry' }[];

  constructor(private readonly options: AzureReadOptions) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 16, ...(options.caCertificate ? { ca: [...tls.rootCertificates, options.caCertificate] } : {}) });
    const counter: PipelinePolicy = {
      name: 'inventoryRequestCounter',
      sendRequest: (request, next) => {
        this.calls++;
        request.timeout = options.requestTimeoutMs;
        return next(request);
      },
    };
    this.policies = [{ policy: counter, position: 'perRetry' }];
  }

  /** What every client takes: the agent, the retries, the counter. */
  common() {
    return { agent: this.agent, retryOptions: { maxRetries: this.options.maxRetries }, additionalPolicies: this.policies, userAgentOptions: { userAgentPrefix: 'asset-inventory' } };
  }

  /**
   * An ARM client's options: its endpoint, and the token's scope of that endpoint (a sovereign
   * cloud's Resource Manager takes its own). The older clients name the endpoint $host and the
   * scope credentialScopes, the newer endpoint and credentials.scopes: both are given.
   */
  arm() {
    const endpoint = this.options.endpoints.resourceManager.replace(/\/+$/, '');
    const scopes = [`${endpoint}/.default`];
    return { ...this.common(), endpoint, $host: endpoint, credentialScopes: scopes, credentials: { scopes } };
  }

  /**
   * A blob service client's pipeline: its own retry policy (with the ARM policy's first delay), and
   * a policy of ours that gives each request the agent and the time-out and counts it (the storage
   * pipeline takes no agent option). The token is asked for Azure Storage (https://storage.azure.com/.default).
   */
  blob(credential: ClientSecretCredential): Pipeline {
    const pipeline = newPipeline(credential, {
      retryOptions: { maxTries: this.options.maxRetries + 1, retryDelayInMs: 1000, tryTimeoutInMs: this.options.requestTimeoutMs },
      userAgentOptions: { userAgentPrefix: 'asset-inventory' },
    });
    pipeline.factories.push({
      create: (next) => ({
        sendRequest: (request) => {
          this.calls++;
          request.agent = this.agent;
          request.timeout = this.options.requestTimeoutMs;
          return next.sendRequest(request);
        },
      }),
    });
    return pipeline;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Reads the tenant's subscriptions, one part at a time, as a credential allows. */
class TenantReader extends PartedRead<AzureErrorCode> {
  constructor(address: string, private readonly read: AzureReadOptions, private readonly pipeline: AzurePipeline, private readonly credential: ClientSecretCredential) {
    super({ address, method: 'AZURE', deadline: read.deadline, maxResources: read.maxResources, truncated: { code: 'AZURE_READ_TRUNCATED', what: 'the subscriptions hold more than settings.AZURE.maxResources' }, classify: classifyAzureError });
  }

  async subscriptions(): Promise<TenantRead['subscriptions']> {
    const client = new SubscriptionClient(this.credential, this.pipeline.arm());
    const all = await readAll(client.subscriptions.list(), this.take);
    const named = this.read.subscriptions ? new Set(this.read.subscriptions.map((s) => s.toLowerCase())) : undefined;
    return all.filter((s) => s.subscriptionId && (!named || named.has(s.subscriptionId.toLowerCase())));
  }

  async subscription(subscriptionId: string, into: SubscriptionResources): Promise<void> {
    const arm = this.pipeline.arm();
    const read: Record<SubscriptionService, () => Promise<void>> = {
      locations: async () => {
        into.locations = await readAll(new SubscriptionClient(this.credential, arm).subscriptions.listLocations(subscriptionId), this.take);
      },
      compute: async () => {
        into.virtualMachines = await readAll(new ComputeManagementClient(this.credential, subscriptionId, arm).virtualMachines.listAll(), this.take);
      },
      network: async () => {
        const network = new NetworkManagementClient(this.credential, subscriptionId, arm);
        into.virtualNetworks = await readAll(network.virtualNetworks.listAll(), this.take);
        into.networkInterfaces = await readAll(network.networkInterfaces.listAll(), this.take);
        into.loadBalancers = await readAll(network.loadBalancers.listAll(), this.take);
      },
      storage: async () => {
        into.storageAccounts = await readAll(new StorageManagementClient(this.credential, subscriptionId, arm).storageAccounts.list(), this.take);
      },
      sql: async () => {
        const sql = new SqlManagementClient(this.credential, subscriptionId, arm);
        into.sqlServers = await readAll(sql.servers.list(), this.take);
        for (const server of into.sqlServers) {
          const group = resourceGroupOf(server.id);
          if (!group || !server.name || !server.id) continue;
          into.sqlDatabases.set(server.id.toLowerCase(), await readAll(sql.databases.listByServer(group, server.name), this.take));
        }
      },
      resources: async () => {
        const resources = new ResourceManagementClient(this.credential, subscriptionId, arm);
        into.resourceGroups = await readAll(resources.resourceGroups.list(), this.take);
        for (const group of into.resourceGroups) {
          if (!group.name || !group.id) continue;
          into.deployments.set(group.id.toLowerCase(), await listDeployments(resources, arm.endpoint, subscriptionId, group.name, this.take));
        }
      },
    };
    for (const service of SUBSCRIPTION_SERVICES) await this.part(subscriptionPart(service, subscriptionId), `${service} of subscription ${subscriptionId}`, read[service]);
    // Each account's containers through its blob service (the data plane), a part of its own: an
    // account whose blob service refuses or fails keeps its containers and retires none of them.
    const accounts = into.storageAccounts.filter((a) => a.id && a.name && a.primaryEndpoints?.blob);
    await eachBounded(accounts, BLOB_ACCOUNT_CONCURRENCY, async (account) => {
      const id = (account.id as string).toLowerCase();
      await this.part(blobPart(id), `the blob containers of storage account ${account.name} (subscription ${subscriptionId})`, async () => {
        const client = new BlobServiceClient(account.primaryEndpoints?.blob as string, this.pipeline.blob(this.credential));
        const containers: BlobContainer[] = [];
        for await (const page of client.listContainers().byPage()) this.take(page.containerItems, containers);
        into.blobContainers.set(id, containers);
      });
    });
  }
}

/**
 * Why the authority host could not be asked, where MSAL does not say (it reports a failed fetch of
 * the host's metadata as endpoints_resolution_error): its network code from a TLS handshake of our
 * own, or that its certificate is not trusted; none when it answers a trusted handshake.
 */
async function whyUnreachable(login: string, options: AzureReadOptions): Promise<{ code: AzureErrorCode; detail: string } | undefined> {
  const url = new URL(login);
  const port = Number(url.port) || 443;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    const seen = await presentedCertificate(host, port, options.connectTimeoutMs, options.caCertificate ? [...tls.rootCertificates, options.caCertificate] : undefined);
    return seen.authorized ? undefined : { code: 'AZURE_API_ERROR', detail: `its certificate (${seen.subject}) is not trusted: ${seen.reason ?? 'unknown reason'} (settings.AZURE.caCertificate)` };
  } catch (error) {
    return error instanceof HandshakeFailure && error.code ? { code: error.code, detail: error.message } : undefined;
  }
}

/** Reads the tenant with the first credential that Entra ID accepts. */
export async function readAzure(address: string, credentials: RevealedCredential[], options: AzureReadOptions): Promise<AzureReadResult> {
  const pipeline = new AzurePipeline(options);
  const record = (stage: string, code: RunError['code'], message: string): RunError => ({ address, method: 'AZURE', stage, code, message: message.slice(0, 1000) });
  const refused: string[] = [];
  const scope = `${options.endpoints.resourceManager.replace(/\/+$/, '')}/.default`;
  try {
    for (const credential of credentials) {
      const tenantId = String(credential.settings.tenantId);
      const clientId = String(credential.settings.clientId);
      const login = options.endpoints.login.replace(/\/+$/, '');
      const signIn = new ClientSecretCredential(tenantId, clientId, credential.secrets.clientSecret ?? '', {
        ...pipeline.common(),
        authorityHost: login,
        // Instance discovery asks login.microsoftonline.com which hosts are Entra ID's: an authority host named in the settings is trusted as it is.
        disableInstanceDiscovery: login !== DEFAULT_ENDPOINTS.login,
      });
      try {
        await signIn.getToken(scope);
      } catch (error) {
        const { code, detail } = classifyAzureError(error);
        if (code !== 'AZURE_AUTH_FAILED') {
          const why = code === 'AZURE_API_ERROR' ? await whyUnreachable(login, options) : undefined;
          return { errors: [record('connect', why?.code ?? code, `The token endpoint of tenant ${tenantId} at ${login}: ${why?.detail ?? detail}`)], calls: pipeline.calls };
        }
        refused.push(`Credential "${credential.name}" (client ${clientId} of tenant ${tenantId}) was refused: ${detail}.`);
        continue;
      }
      const reader = new TenantReader(address, options, pipeline, signIn);
      let subscriptions: TenantRead['subscriptions'];
      try {
        subscriptions = await reader.subscriptions();
      } catch (error) {
        const { code, detail } = error instanceof StopRead ? { code: error.code, detail: error.message } : classifyAzureError(error);
        return { errors: [record('collect', code, `The subscriptions of tenant ${tenantId}: ${detail}`)], credentialId: credential.id, calls: pipeline.calls };
      }
      const missing = options.subscriptions?.filter((s) => !subscriptions.some((v) => v.subscriptionId?.toLowerCase() === s.toLowerCase())) ?? [];
      if (!subscriptions.length) {
        return { errors: [record('collect', 'AZURE_NO_SUBSCRIPTIONS', `Client ${clientId} of tenant ${tenantId} sees no subscription${options.subscriptions ? ` of those settings.AZURE.subscriptions names (${options.subscriptions.join(', ')})` : ''}.`)], credentialId: credential.id, calls: pipeline.calls };
      }
      const read: TenantRead = { tenantId, subscriptions, subscriptionsPart: subscriptionsPart(options.subscriptions), bySubscription: new Map(), parts: reader.parts };
      // The subscriptions' own part: complete unless a subscription named is not visible (it is not retired for that).
      reader.parts.push({ name: read.subscriptionsPart, complete: missing.length === 0 });
      if (missing.length) reader.errors.push(record('collect', 'AZURE_NO_SUBSCRIPTIONS', `settings.AZURE.subscriptions names subscriptions that client ${clientId} does not see (${missing.join(', ')}); they were not read, and nothing of them is retired.`));
      await eachBounded(subscriptions.map((s) => s.subscriptionId as string), options.subscriptionConcurrency, async (id) => {
        const resources = emptySubscription();
        read.bySubscription.set(id, resources);
        await reader.subscription(id, resources);
      });
      return { read, errors: reader.errors, credentialId: credential.id, calls: pipeline.calls };
    }
    return { errors: [record('authenticate', 'AZURE_AUTH_FAILED', `Every credential offered was refused: ${refused.join(' ')}`)], calls: pipeline.calls };
  } finally {
    pipeline.close();
  }
}

export const DEFAULT_ENDPOINTS: AzureEndpoints = { resourceManager: 'https://management.azure.com', login: 'https://login.microsoftonline.com' };
