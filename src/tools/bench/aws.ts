// The aws section: an AWS account of 10,000 EC2 instances over 10 regions (the double of
// src/tools/aws, each instance the AWS API Reference's DescribeInstances example with its own ids,
// served in pages of 1,000, the most EC2 gives), S3 on s3rver and DynamoDB on dynalite, read by the
// connector alone (the SDK's requests, the estate made) beside its floor (the same DescribeInstances
// pages through the SDK, nothing mapped), with the API requests each took, then inventoried by the
// whole service through its API (an AWS target, scanned three times: the first run creates the
// estate, the others find it unchanged).
import net from 'node:net';
import os from 'node:os';
import { EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import { AWS_DEFAULTS } from '../../features/discovery/connectors/aws/aws.js';
import { toEstate } from '../../features/discovery/connectors/aws/aws-estate.js';
import { readAws, type AwsReadOptions } from '../../features/discovery/connectors/aws/aws-read.js';
import { AwsDouble, exampleItems } from '../aws/aws-double.js';
import { startDynamoDb, startS3 } from '../aws/aws-peers.js';
import { elapsedMs, int, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const REGIONS = ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'eu-west-1', 'eu-west-2', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1', 'sa-east-1'];
const PER_REGION = 1000;
const PAGE = 1000;
const READS = 3;
const RUNS = 3;
const RUN_DEADLINE_MS = 20 * 60_000;
// The access key of the AWS documentation's examples.
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

interface RunView extends BenchRunView {
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
}

/** A TCP port nothing listens on now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** The example instance as the n-th of a region: its own instance, reservation, interface MAC and name, in that region. */
function instances(region: string, r: number, template: string): string[] {
  return Array.from({ length: PER_REGION }, (_, i) => {
    const n = r * PER_REGION + i;
    const mac = `02:${hex(n, 10).match(/../g)?.join(':')}`;
    const swap: [string, string][] = [['i-1234567890abcdef0', `i-${hex(n, 17)}`], ['r-1234567890abcdef0', `r-${hex(n, 17)}`], ['02:dd:2c:5e:01:69', mac], ['Server_1', `server-${n}`], ['eu-west-1', region]];
    return swap.reduce((text, [from, to]) => text.split(from).join(to), template);
  });
}

export async function awsBench(): Promise<void> {
  const load = loadAverage();
  const [region0] = exampleItems('DescribeRegions');
  const [instance0] = exampleItems('DescribeInstances');
  if (!region0 || !instance0) throw new Error('the AWS fixtures hold no region or instance');
  const s3 = await startS3(0, [], { [KEY_ID]: SECRET });
  const dynamodb = await startDynamoDb(REGIONS);
  const double = await new AwsDouble({ keys: { [KEY_ID]: SECRET }, pageSize: PAGE, dynamodb: dynamodb.urls }).start();
  try {
    double.put('us-east-1', 'DescribeRegions', REGIONS.map((r) => region0.split('us-east-1').join(r)));
    REGIONS.forEach((region, r) => double.put(region, 'DescribeInstances', instances(region, r, instance0)));
    const endpoints = { sts: double.url, ec2: double.url, rds: double.url, elasticloadbalancing: double.url, cloudformation: double.url, s3: s3.url, dynamodb: `${double.url}/dynamodb/{region}` };
    const credential = { id: 'bench', name: 'bench', kind: 'AWS_ACCESS_KEY', settings: { accessKeyId: KEY_ID }, secrets: { secretAccessKey: SECRET } } as unknown as RevealedCredential;
    const options = (): AwsReadOptions => ({ homeRegion: 'us-east-1', endpoints, regionConcurrency: AWS_DEFAULTS.regionConcurrency, maxAttempts: AWS_DEFAULTS.maxAttempts, connectTimeoutMs: 5000, requestTimeoutMs: AWS_DEFAULTS.requestTimeoutMs, maxResources: AWS_DEFAULTS.maxResources, deadline: Date.now() + RUN_DEADLINE_MS });

    const reads: { ms: number; calls: number; served: number; assets: number }[] = [];
    const floors: { ms: number; pages: number }[] = [];
    for (let i = 0; i < READS; i++) {
      // The floor: the instances' pages alone through the SDK, the regions as many at a time as the read takes them.
      let start = process.hrtime.bigint();
      let pages = 0;
      const queue = [...REGIONS];
      await Promise.all(Array.from({ length: AWS_DEFAULTS.regionConcurrency }, async () => {
        for (let region = queue.shift(); region; region = queue.shift()) {
          const ec2 = new EC2Client({ region, endpoint: double.url, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } });
          for await (const page of paginateDescribeInstances({ client: ec2, pageSize: PAGE }, {})) pages += page.Reservations ? 1 : 0;
          ec2.destroy();
        }
      }));
      floors.push({ ms: elapsedMs(start), pages });
      const before = double.total;
      start = process.hrtime.bigint();
      const result = await readAws('127.0.0.1', [credential], options());
      if (!result.read || result.errors.length) throw new Error(`the read failed: ${JSON.stringify(result.errors)}`);
      const estate = toEstate(result.read);
      reads.push({ ms: elapsedMs(start), calls: result.calls, served: double.total - before, assets: estate.assets.length });
      console.log(`read ${i + 1}/${READS}: ${JSON.stringify({ floor: floors.at(-1), read: reads.at(-1) })}`);
    }
    const runs = await withDataDir(async (dataDir) =>
      // Ports of its own: other sections' stores may be running on the defaults. The run's lease
      // is renewed only as addresses finish, and the one address of an account is read and
      // loaded at once: on a busy machine that outlasts the default lease.
      withService(dataDir, { localPostgresPort: await freePort(), localNeo4jBoltPort: await freePort(), discoveryLeaseMs: 30 * 60_000 }, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'aws', kind: 'AWS_ACCESS_KEY', matchPatterns: [], settings: { accessKeyId: KEY_ID }, secrets: { secretAccessKey: SECRET } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'aws', addresses: ['127.0.0.1'], methods: ['AWS'], credentialIds: [credentialId], settings: { AWS: { endpoints } } })).data.id;
        return scanRepeatedly<RunView>(api, targetId, RUNS, RUN_DEADLINE_MS);
      }),
    );
    const [first, ...rest] = runs as [RunView & { seconds: number }, ...(RunView & { seconds: number })[]];
    const read = reads[0] as (typeof reads)[number];
    const floor = median(floors.map((f) => f.ms));
    const readMs = median(reads.map((r) => r.ms));
    const firstMs = first.seconds * 1000;
    const rescanMs = median(rest.map((r) => r.seconds)) * 1000;
    const seconds = (ms: number, digits: number) => `${(ms / 1000).toFixed(digits)} s`;
    const ratio = (ms: number) => `${(ms / floor).toFixed(2)}×`;
    writeSection('aws', `## AWS discovery (${int(REGIONS.length * PER_REGION)} EC2 instances over ${REGIONS.length} regions)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

Scale: ${int(REGIONS.length * PER_REGION)} EC2 instances, ${int(PER_REGION)} in each of ${REGIONS.length} regions, in the AWS double (\`src/tools/aws/aws-double.ts\`, on loopback, every request's SigV4 signature verified): each the AWS API Reference's DescribeInstances example with its own instance id, MAC, name and region, served in pages of ${int(PAGE)} (the most EC2 gives). No VPCs, databases, load balancers or stacks; S3 on s3rver and DynamoDB on dynalite (one per region), empty. Read with the connector's defaults: ${AWS_DEFAULTS.regionConcurrency} regions at a time, the official AWS SDK v3 clients. The estate: ${int(read.assets)} assets (the account, ${REGIONS.length} regions, the instances).

| | Time | API requests | Against the floor |
|---|---|---|---|
| Floor: the instances' pages alone through the SDK (DescribeInstances in each region, nothing mapped), median of ${READS} | ${seconds(floor, 2)} | ${int(floors[0]?.pages ?? 0)} | 1.00× |
| Read alone: sign-in, regions, S3, and every service of every region, the estate made, median of ${READS} | ${seconds(readMs, 2)} | ${int(read.calls)} (the double answered ${int(read.served)}; the rest went to s3rver and, through the double, dynalite) | ${ratio(readMs)} |
| Whole run through the API, first (creates ${int(first.summary.assetsCreated)} assets) | ${seconds(firstMs, 1)} | as above | ${ratio(firstMs)} |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${seconds(rescanMs, 1)} | as above | ${ratio(rescanMs)} |

The requests of a read: 1 GetCallerIdentity, 1 DescribeRegions, 1 ListBuckets, and in each region 3 EC2 lists (VPCs, subnets, instances: ${PER_REGION / PAGE} page${PER_REGION / PAGE === 1 ? '' : 's'} of instances), 1 RDS, 1 DynamoDB, 2 ELBv2 and 1 CloudFormation request. A smaller run than the 100,000-asset estate of the sections above: the 10,000 instances that issue 40 names, each figure beside the bare SDK read of the same pages (the floor) in the same run.
`);
  } finally {
    await double.stop();
    await dynamodb.stop();
    await s3.remove();
  }
}
