// The scan error codes of AWS discovery: each one's meaning and the diagnosis rule that explains a
// failed run it leads (scan-error.ts), and how an error of the AWS SDK maps to one. Codes keep
// their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import { networkErrorCode, type SharedErrorCode } from '../../shared-scan-errors.js';

export const AWS_ERRORS = {
  AWS_AUTH_FAILED: {
    description: 'AWS refused every AWS_ACCESS_KEY credential offered (InvalidClientTokenId, SignatureDoesNotMatch, AuthFailure, ExpiredToken).',
    explanation: {
      summary: 'AWS refused the access keys offered: the account was not read.',
      causes: [
        "The access key id is wrong, or the key was deactivated or deleted in IAM.",
        'The secret access key does not belong to the access key id (SignatureDoesNotMatch).',
        "The worker's clock is off by more than five minutes (requests are signed with the time).",
      ],
      actions: [
        'Try the key from the worker host: aws sts get-caller-identity (with the same key in the environment).',
        "Create a new access key for the IAM user in IAM, and update the credential's accessKeyId and secretAccessKey.",
        "Synchronise the worker's clock (NTP).",
      ],
      confidence: 'HIGH',
    },
  },
  AWS_ASSUME_ROLE_FAILED: {
    description: "The key was accepted, but STS refused to let it assume the credential's roleArn (AccessDenied from AssumeRole).",
    explanation: {
      summary: 'AWS accepted the access key but refused the role it was to assume: the account was not read.',
      causes: [
        "The role's trust policy does not name the key's user or account as a principal that may assume it.",
        "The trust policy asks for an external id (sts:ExternalId) that the credential does not give, or gives another.",
        'The user lacks sts:AssumeRole on the role, or the role ARN is misspelt.',
      ],
      actions: [
        "Compare the role's trust policy with the key's user (aws sts get-caller-identity) and the credential's externalId.",
        'Try it from the worker host: aws sts assume-role --role-arn ROLE --role-session-name inventory --external-id ID.',
      ],
      confidence: 'HIGH',
    },
  },
  AWS_ACCESS_DENIED: {
    description: 'A service refused a read (AccessDenied, UnauthorizedOperation): what it holds in that region was not read, and nothing of it is retired.',
    explanation: {
      summary: "AWS refused some reads to the service's identity: those services' resources were not read, and none of them were retired.",
      causes: [
        "The IAM policy of the user or role lacks an action of the least-privilege policy (docs/discovery.md), for example rds:DescribeDBInstances.",
        'A service control policy (AWS Organizations) or a permissions boundary denies the action or the region.',
      ],
      actions: [
        "Read the action and region in the run's error, and attach the least-privilege policy of docs/discovery.md to the user or role.",
        "Check the organisation's service control policies for region or service denials.",
      ],
      confidence: 'HIGH',
    },
  },
  AWS_THROTTLED: {
    description: "AWS kept throttling a read after the SDK's retries with back-off (Throttling, RequestLimitExceeded): that part was not read, and nothing of it is retired.",
    explanation: {
      summary: "AWS throttled some reads beyond the retries: those parts were not read, and none of their resources were retired.",
      causes: [
        'Other tools in the account use the same API request quota at the same time.',
        'The account holds so many resources that the reads exceed the rate AWS allows.',
      ],
      actions: [
        "Lower the target's settings.AWS.regionConcurrency, or raise settings.AWS.maxAttempts so that the SDK backs off longer.",
        'Schedule the scan away from other heavy API users of the account.',
      ],
      confidence: 'MEDIUM',
    },
  },
  AWS_API_ERROR: {
    description: 'A service answered a read with another error, or its endpoint failed during the read: that part was not read, and nothing of it is retired.',
    explanation: {
      summary: 'An AWS service answered a read with an error: that part was not read, and none of its resources were retired.',
      causes: [
        'The service is not available in the region, or its endpoint (settings.AWS.endpoints) is wrong or unreachable.',
        'The service failed (InternalError, ServiceUnavailable).',
      ],
      actions: ["Read the service, region and AWS error code in the run's error.", "Check settings.AWS.endpoints, and scan again later."],
      confidence: 'MEDIUM',
    },
  },
  AWS_READ_TRUNCATED: {
    description: 'The account holds more resources than settings.AWS.maxResources: the parts not read in full retire nothing.',
    explanation: {
      summary: 'The account holds more resources than the limit of the target: the read stopped, and what was not read in full was not retired.',
      causes: [
        "The account's resources, all regions and services together, exceed settings.AWS.maxResources.",
        'A service holds far more objects than expected (many CloudFormation stack resources, or instances launched in bulk).',
      ],
      actions: [
        "Raise the target's settings.AWS.maxResources (up to 5,000,000).",
        'Split the regions over several targets (settings.AWS.regions), each with its own limit.',
      ],
      confidence: 'HIGH',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type AwsErrorCode = SharedErrorCode | keyof typeof AWS_ERRORS;

const AUTH_CODES = new Set([
  'InvalidClientTokenId', 'SignatureDoesNotMatch', 'AuthFailure', 'UnrecognizedClientException', 'InvalidAccessKeyId',
  'ExpiredToken', 'ExpiredTokenException', 'IncompleteSignature', 'MissingAuthenticationToken', 'InvalidToken',
]);
const DENIED_CODES = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'AuthorizationError']);
const THROTTLING_CODES = new Set([
  'Throttling', 'ThrottlingException', 'ThrottledException', 'RequestLimitExceeded', 'RequestThrottled', 'RequestThrottledException',
  'TooManyRequestsException', 'ProvisionedThroughputExceededException', 'SlowDown', 'BandwidthLimitExceeded', 'PriorRequestNotComplete',
]);

// A socket error from another realm (a VM context) reaches the SDK's retry strategy as no Error,
// which it wraps in one that keeps only its text: the errno name is then read from the text.
const ERRNO_IN_TEXT = /\b(ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENOTFOUND|EAI_AGAIN)\b/;

/** An AWS SDK error as a scan error code and a line that names the AWS code, never the request. */
export function classifyAwsError(error: unknown): { code: AwsErrorCode; detail: string } {
  const e = (error ?? {}) as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number; attempts?: number } };
  const errno = e.code ?? ERRNO_IN_TEXT.exec(e.message ?? '')?.[1];
  const network = networkErrorCode(errno) ?? (e.name === 'TimeoutError' ? 'CONNECTION_TIMEOUT' : undefined);
  const attempts = e.$metadata?.attempts ? ` after ${e.$metadata.attempts} attempts` : '';
  if (network) return { code: network, detail: `${errno ?? e.name}${attempts}` };
  const name = e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const detail = `${name}${status ? ` (HTTP ${status})` : ''}${attempts}: ${(e.message ?? '').split('\n')[0]?.slice(0, 200)}`;
  if (AUTH_CODES.has(name)) return { code: 'AWS_AUTH_FAILED', detail };
  if (DENIED_CODES.has(name)) return { code: 'AWS_ACCESS_DENIED', detail };
  if (THROTTLING_CODES.has(name)) return { code: 'AWS_THROTTLED', detail };
  return { code: 'AWS_API_ERROR', detail };
}
