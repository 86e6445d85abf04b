// The read of one AWS account through the official AWS SDK v3 clients: the caller's account
// (STS GetCallerIdentity, after AssumeRole where the credential names a role), its enabled regions
// (EC2 DescribeRegions), S3's buckets, and in each region read (in parallel, at most
// regionConcurrency at a time) EC2's instances, VPCs and subnets, RDS's DB instances, DynamoDB's
// tables, ELBv2's load balancers and target groups, and CloudFormation's stacks and their
// resources. Every paginator is followed to its end. Throttling is answered by the SDK's adaptive
// retry strategy (exponential back-off with jitter, and a client-side rate that slows down on
// throttling) up to maxAttempts. Each part (the regions, S3, a service in a region) succeeds or
// fails on its own: a failed part keeps what it read, records its error, and retires nothing.
import { CloudFormationClient, paginateDescribeStacks, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import { DescribeRegionsCommand, EC2Client, paginateDescribeInstances, paginateDescribeSubnets, paginateDescribeVpcs } from '@aws-sdk/client-ec2';
import { DescribeTargetHealthCommand, ElasticLoadBalancingV2Client, paginateDescribeLoadBalancers, paginateDescribeTargetGroups } from '@aws-sdk/client-elastic-load-balancing-v2';
import { RDSClient, paginateDescribeDBInstances } from '@aws-sdk/client-rds';
import { GetBucketLocationCommand, S3Client, paginateListBuckets } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { RunError } from '../../run-record.js';
import { classifyAwsError, type AwsErrorCode } from './aws-errors.js';
import { eachBounded, PartedRead, StopRead } from '../parted-read.js';
import { emptyRegion, REGION_SERVICES, type AwsService, regionPart, regionsPart, S3_PART, type AccountRead, type BucketRead, type RegionResources, type RegionService } from './aws-estate.js';

export interface AwsReadOptions {
  /** Where STS, DescribeRegions and S3's ListBuckets are asked. */
  homeRegion: string;
  /** The regions to read; every enabled one when left out. */
  regions?: string[];
  /** Endpoint URLs by service; `{region}` in one stands for the region asked. */
  endpoints: Partial<Record<AwsService, string>>;
  regionConcurrency: number;
  maxAttempts: number;
  connectTimeoutMs: number;
  /** How long a request may take (a page of 1,000 instances is a large answer). */
  requestTimeoutMs: number;
  /** Resources read at most, all parts together; more leaves the parts not yet read in full incomplete. */
  maxResources: number;
  deadline: number;
}

/** What a read gave, with its cost (for the benchmark): HTTP requests, retries included. */
export interface AwsReadResult {
  read?: AccountRead;
  errors: RunError[];
  credentialId?: string;
  calls: number;
}

const SESSION_NAME = 'asset-inventory';
// Page sizes: the largest each API allows.
const EC2_PAGE = 1000;
const RDS_PAGE = 100;
const ELB_PAGE = 400;
const DYNAMODB_PAGE = 100;
const S3_PAGE = 10_000;
/** Buckets whose region is asked at the same time. */
const BUCKET_CONCURRENCY = 8;

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
type Client = { middlewareStack: { add: (...args: never[]) => void }; destroy: () => void };


/** The SDK clients of one read: configured alike, each HTTP request counted, all closed at the end. */
class AwsClients {
  calls = 0;
  private readonly made: Client[] = [];

  constructor(private readonly options: AwsReadOptions) {}

  make<C extends Client>(clientClass: new (config: Record<string, unknown>) => C, service: AwsService, region: string, credentials: Credentials): C {
    const endpoint = this.options.endpoints[service]?.replaceAll('{region}', region);
    const client = new clientClass({
      region,
      credentials,
      maxAttempts: this.options.maxAttempts,
      retryMode: 'adaptive',
      // The SDK only warns of a request past its time-out unless told to fail it.
      requestHandler: { connectionTimeout: this.options.connectTimeoutMs, requestTimeout: this.options.requestTimeoutMs, throwOnRequestTimeout: true },
      // S3-compatible stores at an endpoint of their own name buckets in the path.
      ...(endpoint ? { endpoint, ...(service === 's3' ? { forcePathStyle: true } : {}) } : {}),
    });
    // In the deserialize step, which every attempt of the retry strategy passes through.
    const count = (next: (args: unknown) => Promise<unknown>) => (args: unknown) => {
      this.calls++;
      return next(args);
    };
    (client.middlewareStack.add as unknown as (m: typeof count, o: { step: string; name: string }) => void)(count, { step: 'deserialize', name: 'inventoryCallCount' });
    this.made.push(client);
    return client;
  }

  close(): void {
    for (const client of this.made.splice(0)) client.destroy();
  }
}

/** One read of the account with one credential's keys, part by part. */
class AccountReader extends PartedRead<AwsErrorCode> {
  constructor(
    address: string,
    private readonly read: AwsReadOptions,
    private readonly clients: AwsClients,
    private readonly credentials: Credentials,
  ) {
    super({ address, method: 'AWS', deadline: read.deadline, maxResources: read.maxResources, truncated: { code: 'AWS_READ_TRUNCATED', what: 'the account holds more than settings.AWS.maxResources' }, classify: classifyAwsError });
  }

  client<C extends Client>(clientClass: new (config: Record<string, unknown>) => C, service: AwsService, region: string): C {
    return this.clients.make(clientClass, service, region, this.credentials);
  }

  async regions(): Promise<AccountRead['regions']> {
    const regions: AccountRead['regions'] = [];
    await this.part(regionsPart(this.read.regions), `EC2 DescribeRegions in ${this.read.homeRegion}`, async () => {
      const ec2 = this.client(EC2Client, 'ec2', this.read.homeRegion);
      const enabled = (await ec2.send(new DescribeRegionsCommand({}))).Regions ?? [];
      const named = this.read.regions ? new Set(this.read.regions) : undefined;
      this.take(enabled.filter((r) => r.RegionName && (!named || named.has(r.RegionName))), regions);
      const missing = this.read.regions?.filter((r) => !enabled.some((e) => e.RegionName === r)) ?? [];
      if (missing.length) throw new StopRead('AWS_API_ERROR', `settings.AWS.regions names regions that are not enabled for the account (${missing.join(', ')}); they were not read`);
    });
    return regions;
  }

  async buckets(read: AccountRead): Promise<void> {
    await this.part(S3_PART, `S3 ListBuckets`, async () => {
      const s3 = this.client(S3Client, 's3', this.read.homeRegion);
      const listed: { Name?: string; CreationDate?: Date; BucketRegion?: string }[] = [];
      for await (const page of paginateListBuckets({ client: s3, pageSize: S3_PAGE }, {})) this.take(page.Buckets, listed);
      const buckets: BucketRead[] = listed.flatMap((b) => (b.Name ? [{ name: b.Name, ...(b.CreationDate ? { created: b.CreationDate } : {}), ...(b.BucketRegion ? { region: b.BucketRegion } : {}) }] : []));
      // Where ListBuckets does not say a bucket's region, GetBucketLocation does (an empty constraint is us-east-1).
      await eachBounded(buckets.filter((b) => !b.region), BUCKET_CONCURRENCY, async (b) => {
        const location = await s3.send(new GetBucketLocationCommand({ Bucket: b.name }));
        b.region = location.LocationConstraint || 'us-east-1';
      });
      read.buckets.push(...buckets);
    });
  }

  async region(region: string, into: RegionResources): Promise<void> {
    const read: Record<RegionService, () => Promise<void>> = {
      ec2: async () => {
        const ec2 = this.client(EC2Client, 'ec2', region);
        for await (const page of paginateDescribeVpcs({ client: ec2, pageSize: EC2_PAGE }, {})) this.take(page.Vpcs, into.vpcs);
        for await (const page of paginateDescribeSubnets({ client: ec2, pageSize: EC2_PAGE }, {})) this.take(page.Subnets, into.subnets);
        for await (const page of paginateDescribeInstances({ client: ec2, pageSize: EC2_PAGE }, {})) this.take((page.Reservations ?? []).flatMap((r) => r.Instances ?? []), into.instances);
      },
      rds: async () => {
        const rds = this.client(RDSClient, 'rds', region);
        for await (const page of paginateDescribeDBInstances({ client: rds, pageSize: RDS_PAGE }, {})) this.take(page.DBInstances, into.databases);
      },
      dynamodb: async () => {
        const dynamodb = this.client(DynamoDBClient, 'dynamodb', region);
        for await (const page of paginateListTables({ client: dynamodb, pageSize: DYNAMODB_PAGE }, {})) this.take(page.TableNames, into.tables);
      },
      elasticloadbalancing: async () => {
        const elb = this.client(ElasticLoadBalancingV2Client, 'elasticloadbalancing', region);
        for await (const page of paginateDescribeLoadBalancers({ client: elb, pageSize: ELB_PAGE }, {})) this.take(page.LoadBalancers, into.loadBalancers);
        const groups: { TargetGroupArn?: string; LoadBalancerArns?: string[]; TargetType?: string }[] = [];
        for await (const page of paginateDescribeTargetGroups({ client: elb, pageSize: ELB_PAGE }, {})) this.take(page.TargetGroups, groups);
        // Only instance targets name an asset of the read (ip and lambda targets do not).
        for (const g of groups.filter((g) => g.TargetGroupArn && g.LoadBalancerArns?.length && (g.TargetType ?? 'instance') === 'instance')) {
          const health = await elb.send(new DescribeTargetHealthCommand({ TargetGroupArn: g.TargetGroupArn }));
          const ids: string[] = [];
          this.take((health.TargetHealthDescriptions ?? []).flatMap((t) => t.Target?.Id ?? []), ids);
          into.targetGroups.push({ loadBalancerArns: g.LoadBalancerArns ?? [], instanceIds: ids });
        }
      },
      cloudformation: async () => {
        const cfn = this.client(CloudFormationClient, 'cloudformation', region);
        for await (const page of paginateDescribeStacks({ client: cfn }, {})) this.take(page.Stacks, into.stacks);
        for (const stack of into.stacks) {
          if (!stack.StackId) continue;
          const resources: NonNullable<ReturnType<RegionResources['stackResources']['get']>> = [];
          for await (const page of paginateListStackResources({ client: cfn }, { StackName: stack.StackId })) this.take(page.StackResourceSummaries, resources);
          into.stackResources.set(stack.StackId, resources);
        }
      },
    };
    for (const service of REGION_SERVICES) await this.part(regionPart(service, region), `${service} in ${region}`, read[service]);
  }
}

/** The caller's account, with the keys the read goes on with (the role's, where one is assumed). */
async function signIn(credential: RevealedCredential, options: AwsReadOptions, clients: AwsClients): Promise<{ keys: Credentials; accountId: string; partition: string; callerArn: string }> {
  let keys: Credentials = { accessKeyId: String(credential.settings.accessKeyId), secretAccessKey: credential.secrets.secretAccessKey ?? '' };
  const roleArn = credential.settings.roleArn as string | undefined;
  if (roleArn) {
    const sts = clients.make(STSClient, 'sts', options.homeRegion, keys);
    const externalId = credential.settings.externalId as string | undefined;
    try {
      const assumed = (await sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: SESSION_NAME, ...(externalId ? { ExternalId: externalId } : {}) }))).Credentials;
      if (!assumed?.AccessKeyId || !assumed.SecretAccessKey) throw new StopRead('AWS_ASSUME_ROLE_FAILED', `AssumeRole of ${roleArn} gave no credentials`);
      keys = { accessKeyId: assumed.AccessKeyId, secretAccessKey: assumed.SecretAccessKey, ...(assumed.SessionToken ? { sessionToken: assumed.SessionToken } : {}) };
    } catch (error) {
      if (error instanceof StopRead) throw error;
      const { code, detail } = classifyAwsError(error);
      throw new StopRead(code === 'AWS_ACCESS_DENIED' ? 'AWS_ASSUME_ROLE_FAILED' : code, `AssumeRole of ${roleArn}: ${detail}`);
    }
  }
  const sts = clients.make(STSClient, 'sts', options.homeRegion, keys);
  try {
    const identity = await sts.send(new GetCallerIdentityCommand({}));
    if (!identity.Account || !/^\d{12}$/.test(identity.Account)) throw new StopRead('AWS_API_ERROR', 'GetCallerIdentity answered without an account id');
    const partition = /^arn:(aws[a-z-]*):/.exec(identity.Arn ?? '')?.[1] ?? 'aws';
    return { keys, accountId: identity.Account, partition, callerArn: identity.Arn ?? '' };
  } catch (error) {
    if (error instanceof StopRead) throw error;
    const { code, detail } = classifyAwsError(error);
    throw new StopRead(code, `GetCallerIdentity: ${detail}`);
  }
}

/** Reads the account with the first credential that AWS accepts. */
export async function readAws(address: string, credentials: RevealedCredential[], options: AwsReadOptions): Promise<AwsReadResult> {
  const clients = new AwsClients(options);
  const record = (stage: string, code: RunError['code'], message: string): RunError => ({ address, method: 'AWS', stage, code, message: message.slice(0, 1000) });
  const refused: string[] = [];
  try {
    for (const credential of credentials) {
      let session: Awaited<ReturnType<typeof signIn>>;
      try {
        session = await signIn(credential, options, clients);
      } catch (error) {
        const { code, message } = error instanceof StopRead ? error : { code: 'AWS_API_ERROR' as const, message: String(error) };
        if (code !== 'AWS_AUTH_FAILED') return { errors: [record(code === 'AWS_ASSUME_ROLE_FAILED' ? 'authenticate' : 'connect', code, message)], calls: clients.calls };
        refused.push(`Credential "${credential.name}" (access key ${String(credential.settings.accessKeyId)}) was refused: ${message}.`);
        continue;
      }
      const reader = new AccountReader(address, options, clients, session.keys);
      const read: AccountRead = { accountId: session.accountId, partition: session.partition, callerArn: session.callerArn, regions: [], regionsPart: regionsPart(options.regions), buckets: [], byRegion: new Map(), parts: reader.parts };
      read.regions = await reader.regions();
      const names = read.regions.flatMap((r) => r.RegionName ?? []);
      await Promise.all([
        reader.buckets(read),
        eachBounded(names, options.regionConcurrency, async (region) => {
          const resources = emptyRegion();
          read.byRegion.set(region, resources);
          await reader.region(region, resources);
        }),
      ]);
      return { read, errors: reader.errors, credentialId: credential.id, calls: clients.calls };
    }
    return { errors: [record('authenticate', 'AWS_AUTH_FAILED', `Every credential offered was refused: ${refused.join(' ')}`)], calls: clients.calls };
  } finally {
    clients.close();
  }
}
