// The scan error codes of Azure discovery: each one's meaning and the diagnosis rule that explains a
// failed run it leads (scan-error.ts), and how an error of the Azure SDK (Entra ID's token endpoint
// through @azure/identity, Azure Resource Manager through the arm-* clients) maps to one. Codes keep
// their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import { networkErrorCode, type SharedErrorCode } from '../../shared-scan-errors.js';

export const AZURE_ERRORS = {
  AZURE_AUTH_FAILED: {
    description: 'Microsoft Entra ID refused every AZURE_CLIENT_SECRET credential offered (invalid_client, unauthorized_client, an unknown tenant or application).',
    explanation: {
      summary: 'Microsoft Entra ID refused the service principal offered: the tenant was not read.',
      causes: [
        'The client secret is wrong or expired (AADSTS7000215, AADSTS7000222).',
        "The client id names no application in the tenant (AADSTS700016), or the tenant id is wrong (AADSTS90002).",
        'A conditional access policy blocks the service principal from the worker\'s address.',
      ],
      actions: [
        'Try it from the worker host: az login --service-principal -u CLIENT_ID -p SECRET --tenant TENANT_ID.',
        "Create a new client secret for the app registration (Certificates & secrets) and update the credential's clientSecret.",
        "Check the credential's tenantId and clientId against the app registration's Overview page.",
      ],
      confidence: 'HIGH',
    },
  },
  AZURE_NO_SUBSCRIPTIONS: {
    description: 'The service principal signed in but sees no subscription (or none of those settings.AZURE.subscriptions names): it holds no role on one.',
    explanation: {
      summary: 'The service principal signed in, but no subscription is visible to it: nothing was read.',
      causes: [
        'No role (Reader) is assigned to the service principal on a subscription or a management group above one.',
        'settings.AZURE.subscriptions names subscriptions of another tenant, or ones that were cancelled.',
      ],
      actions: [
        'Assign the Reader role to the service principal at the subscription or management group scope (docs/discovery.md).',
        'List what it sees: az account list after az login --service-principal.',
      ],
      confidence: 'HIGH',
    },
  },
  AZURE_ACCESS_DENIED: {
    description: "Azure Resource Manager or a storage account's blob service refused a read (HTTP 403: AuthorizationFailed, AuthorizationPermissionMismatch): what that part holds was not read, and nothing of it is retired.",
    explanation: {
      summary: "Azure refused some reads to the service principal: those parts were not read, and none of their resources were retired.",
      causes: [
        'The role assigned lacks an action of the least-privilege role (docs/discovery.md), for example Microsoft.Sql/servers/read, or a storage account\'s containers were read without the Storage Blob Data Reader role.',
        "A deny assignment or a role assigned only on some resource groups hides the rest, or a storage account's firewall does not admit the worker's address (AuthorizationFailure).",
      ],
      actions: [
        "Read the action and scope in the run's error, and assign the Reader role (or the custom role of docs/discovery.md) at the subscription scope, and Storage Blob Data Reader for the blob containers.",
        'Look for a deny assignment on that scope (Access control (IAM) > Deny assignments) and exempt the service principal from it.',
      ],
      confidence: 'HIGH',
    },
  },
  AZURE_THROTTLED: {
    description: "Azure Resource Manager kept answering 429 (Too Many Requests) after the SDK's retries, each after the Retry-After it gave (a storage account's blob service: 503 ServerBusy): that part was not read, and nothing of it is retired.",
    explanation: {
      summary: 'Azure throttled some reads beyond the retries: those parts were not read, and none of their resources were retired.',
      causes: [
        "Other tools use the same subscription's or tenant's Resource Manager request limits at the same time.",
        'The subscriptions hold so many resources that the reads exceed the rate Azure allows.',
      ],
      actions: [
        "Lower the target's settings.AZURE.subscriptionConcurrency, or raise settings.AZURE.maxRetries.",
        'Schedule the scan away from other heavy API users of the tenant.',
      ],
      confidence: 'MEDIUM',
    },
  },
  AZURE_API_ERROR: {
    description: 'Azure Resource Manager answered a read with another error, or its endpoint failed during the read: that part was not read, and nothing of it is retired.',
    explanation: {
      summary: 'Azure Resource Manager answered a read with an error: that part was not read, and none of its resources were retired.',
      causes: [
        'The resource provider is not registered in the subscription, or failed (InternalServerError, ServiceUnavailable).',
        'settings.AZURE.endpoints names an endpoint that is wrong or unreachable, or whose certificate is not trusted (settings.AZURE.caCertificate).',
      ],
      actions: ["Read the operation, subscription and Azure error code in the run's error.", 'Check settings.AZURE.endpoints, and scan again later.'],
      confidence: 'MEDIUM',
    },
  },
  AZURE_READ_TRUNCATED: {
    description: 'The subscriptions hold more resources than settings.AZURE.maxResources: the parts not read in full retire nothing.',
    explanation: {
      summary: 'The tenant holds more resources than the limit of the target: the read stopped, and what was not read in full was not retired.',
      causes: [
        "The subscriptions' resources, all together, exceed settings.AZURE.maxResources.",
        'The target reads every subscription the service principal sees, more than were meant (settings.AZURE.subscriptions unset).',
      ],
      actions: [
        "Raise the target's settings.AZURE.maxResources (up to 5,000,000).",
        'Split the subscriptions over several targets (settings.AZURE.subscriptions), each with its own limit.',
      ],
      confidence: 'HIGH',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type AzureErrorCode = SharedErrorCode | keyof typeof AZURE_ERRORS;

// The OAuth error codes of Entra ID's token endpoint that refuse the credential itself.
const AUTH_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'invalid_request', 'invalid_grant']);
const ERRNO_IN_TEXT = /\b(ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENOTFOUND|EAI_AGAIN|ECONNRESET)\b/;

/** An Azure SDK error as a scan error code and a line that names Azure's code, never the request or the secret. */
export function classifyAzureError(error: unknown): { code: AzureErrorCode; detail: string } {
  const e = (error ?? {}) as { name?: string; code?: string; statusCode?: number; message?: string; errorResponse?: { error?: string; errorDescription?: string }; cause?: { code?: string } };
  const text = e.message ?? '';
  const errno = [e.code, e.cause?.code, ERRNO_IN_TEXT.exec(text)?.[1]].find((c) => c && networkErrorCode(c));
  const network = networkErrorCode(errno) ?? (e.name === 'AbortError' || e.code === 'REQUEST_SEND_ERROR' && /timed? ?out/i.test(text) ? 'CONNECTION_TIMEOUT' : undefined);
  if (network) return { code: network, detail: errno ?? e.code ?? e.name ?? 'network error' };
  // The first line of an Entra ID answer (AADSTS code and its text) or of ARM's error; never more.
  const first = (e.errorResponse?.errorDescription ?? text).split('\n')[0]?.slice(0, 240) ?? '';
  if (e.name === 'AuthenticationError' || e.name === 'AuthenticationRequiredError' || e.name === 'CredentialUnavailableError') {
    const oauth = e.errorResponse?.error ?? /\b(invalid_client|unauthorized_client|invalid_request|invalid_grant)\b/.exec(text)?.[1] ?? '';
    const refused = AUTH_ERRORS.has(oauth) || /AADSTS\d+/.test(first) || e.statusCode === 400 || e.statusCode === 401;
    return { code: refused ? 'AZURE_AUTH_FAILED' : 'AZURE_API_ERROR', detail: `${oauth || e.name}${e.statusCode ? ` (HTTP ${e.statusCode})` : ''}: ${first}` };
  }
  const detail = `${e.code ?? e.name ?? 'Error'}${e.statusCode ? ` (HTTP ${e.statusCode})` : ''}: ${first}`;
  if (e.statusCode === 401) return { code: 'AZURE_AUTH_FAILED', detail };
  if (e.statusCode === 403) return { code: 'AZURE_ACCESS_DENIED', detail };
  // Resource Manager throttles with 429, a storage account's blob service with 503 ServerBusy.
  if (e.statusCode === 429 || (e.statusCode === 503 && e.code === 'ServerBusy')) return { code: 'AZURE_THROTTLED', detail };
  return { code: 'AZURE_API_ERROR', detail };
}
