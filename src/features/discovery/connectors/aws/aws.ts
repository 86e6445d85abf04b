// AWS: one AWS account read through the official AWS SDK v3 clients (aws-read.ts) with an
// AWS_ACCESS_KEY credential (each in turn until AWS accepts one), mapped to an estate of the
// spec's types (aws-estate.ts). The target's address stands for the account's API (for example
// sts.amazonaws.com): the run records the account there; the SDK reaches each service at its
// regional endpoint, or at the one settings.AWS.endpoints names (S3-compatible stores, VPC
// endpoints). The estate is read in parts (the regions, S3, each service in each region): a part
// that fails keeps what it read and retires nothing, while the parts read in full retire what they
// no longer show.
import { z } from 'zod';
import type { ConnectorResult } from '../../host-observation.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { AWS_ERRORS } from './aws-errors.js';
import { AWS_SERVICES, toEstate, type AwsService } from './aws-estate.js';

const REGION = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'a region code such as eu-west-1');

const settings = z.strictObject({
  regions: z.array(REGION).min(1).max(64).optional().describe('The regions to read (every region enabled for the account by default)'),
  homeRegion: REGION.optional().describe('The region where STS, DescribeRegions and S3 are asked (us-east-1 by default)'),
  endpoints: z
    .partialRecord(z.enum(AWS_SERVICES), z.url({ protocol: /^https?$/ }).max(2048))
    .optional()
    .describe('Endpoint URLs by service (sts, ec2, s3, rds, dynamodb, elasticloadbalancing, cloudformation), for S3-compatible stores and private endpoints; {region} in a URL stands for the region asked'),
  regionConcurrency: z.number().int().min(1).max(32).optional().describe('Regions read at the same time (4 by default)'),
  maxAttempts: z.number().int().min(1).max(20).optional().describe("Attempts per request, throttled ones retried with the SDK's adaptive back-off (8 by default)"),
  timeoutMs: z.number().int().min(100).max(600_000).optional().describe('How long each request may take once connected (ms; 60,000 by default); the connect takes the connect time-out of the service'),
  maxResources: z.number().int().min(1).max(5_000_000).optional().describe('Resources read at most, all regions and services together (500,000 by default); more is a partial read'),
});

export const AWS_DEFAULTS = { homeRegion: 'us-east-1', regionConcurrency: 4, maxAttempts: 8, maxResources: 500_000, requestTimeoutMs: 60_000 };

export async function collectAws({ address, credentials, settings: targetSettings, deadline }: CollectRequest, { config }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own = settings.parse(targetSettings);
  // The SDK's seven clients take about a second of CPU to load: only a process that reads AWS does.
  const { readAws } = await import('./aws-read.js');
  const { read, errors, credentialId } = await readAws(address, credentials, {
    homeRegion: own.homeRegion ?? AWS_DEFAULTS.homeRegion,
    ...(own.regions ? { regions: own.regions } : {}),
    endpoints: (own.endpoints ?? {}) as Partial<Record<AwsService, string>>,
    regionConcurrency: own.regionConcurrency ?? AWS_DEFAULTS.regionConcurrency,
    maxAttempts: own.maxAttempts ?? AWS_DEFAULTS.maxAttempts,
    connectTimeoutMs: config.discoveryConnectTimeoutMs,
    requestTimeoutMs: own.timeoutMs ?? AWS_DEFAULTS.requestTimeoutMs,
    maxResources: own.maxResources ?? AWS_DEFAULTS.maxResources,
    deadline,
  });
  return { ...(read ? { estate: toEstate(read) } : {}), errors, ...(credentialId ? { credentialId } : {}) };
}

export const awsConnector = {
  method: 'AWS',
  stage: 'inventory',
  enabledByDefault: false,
  factRank: 46,
  description: "An AWS account's regions, EC2 instances, VPCs and subnets, S3 buckets, RDS instances, DynamoDB tables, load balancers and CloudFormation stacks, through the AWS SDK.",
  credentialKinds: ['AWS_ACCESS_KEY'],
  defaultPort: 443,
  settings,
  errors: AWS_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: [],
  retires: ['estate'],
  collect: collectAws,
} as const satisfies InventoryConnector<typeof AWS_ERRORS>;
