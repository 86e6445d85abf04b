// Discovery of an AWS account (method AWS) through the service's API, with the official AWS SDK as
// the connector's client throughout: S3 against s3rver and DynamoDB against dynalite (real
// servers), STS, EC2, RDS, ELBv2 and CloudFormation against the test double of their wire
// protocols (src/tools/aws/aws-double.ts), which answers with the AWS API Reference's examples. The
// estate as sets of tuples with the spec's parent rules, every paginator followed (the double
// serves one item per page), throttling answered with back-off, a rescan that changes only
// seen-times, a removed bucket and instance retired only after their own part was read in full
// (not while S3 or that region's EC2 fails), wrong keys, a role assumed, and an unreachable endpoint.
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { ApiClient } from '../support/api-client.js';
import { AwsDouble, exampleItems } from '../../src/tools/aws/aws-double.js';
import { startDynamoDb, startS3, type S3Peer } from '../../src/tools/aws/aws-peers.js';
import { cloudEstate, createTarget, runErrors, scanToEnd, type AssetRow } from '../support/discovery-scans.js';
import { freePort } from '../support/free-port.js';
import { parsePrometheus } from '../support/prometheus.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

// The access key of the AWS documentation's examples.
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const ACCOUNT = '123456789012';
// The account's regions: those of DescribeRegions' published example.
const REGIONS = ['us-east-1', 'eu-west-1'];
const BUCKETS = ['inventory-assets', 'inventory-logs'];
// Generous: a scan loads the whole estate, and the machine may be busy.
const TEST_TIMEOUT_MS = 300_000;
// The load balancer's target is the DescribeInstances example as the instance that
// DescribeTargetHealth's example names (its documented id). No other value is changed: the
// example's MAC and name tag stay, so the example beside it in one region is a second instance with
// the same identity. The instance example is in eu-west-1, one of the account's two regions; the
// ELBv2 examples (whose ARNs name us-west-2, a region DescribeRegions' example does not give) are
// served there too, as published.
const TARGET = (): [string, string][] => [['i-1234567890abcdef0', 'i-0f76fade435676abd']];
const STACK_ID = 'arn:aws:cloudformation:us-east-1:123456789:stack/MyStack/aaf549a0-a413-11df-adb3-5081b3858e83';

describe('discovery of an AWS account (SDK against s3rver, dynalite and a double of the Query APIs)', () => {
  let double: AwsDouble;
  let s3: S3Peer;
  let dynamodb: Awaited<ReturnType<typeof startDynamoDb>>;
  let service: TestService;
  let api: ApiClient;
  let admin: ApiClient;
  let credentialId: string;
  let targetId: string;
  let settings: Record<string, unknown>;

  beforeAll(async () => {
    // s3rver checks signatures: it knows the key, and the one AssumeRole's example hands out.
    s3 = await startS3(await freePort(), BUCKETS, { [KEY_ID]: SECRET, ASIAIOSFODNN7EXAMPLE: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY' });
    dynamodb = await startDynamoDb(REGIONS);
    // The DynamoDB Developer Guide's example tables, one region each.
    for (const [region, table] of [['us-east-1', 'Music'], ['eu-west-1', 'Forum']] as const) {
      const client = new DynamoDBClient({ region, endpoint: dynamodb.urls[region], credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } });
      await client.send(new CreateTableCommand({ TableName: table, AttributeDefinitions: [{ AttributeName: 'Id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'Id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
      client.destroy();
    }
    double = await new AwsDouble({ keys: { [KEY_ID]: SECRET }, pageSize: 1, dynamodb: dynamodb.urls }).start();
    double.put('us-east-1', 'DescribeRegions', exampleItems('DescribeRegions'));
    double.put('us-east-1', 'DescribeVpcs', exampleItems('DescribeVpcs'));
    double.put('us-east-1', 'DescribeSubnets', exampleItems('DescribeSubnets'));
    double.put('us-east-1', 'DescribeDBInstances', exampleItems('DescribeDBInstances'));
    double.put('us-east-1', 'DescribeStacks', exampleItems('DescribeStacks'));
    // The stack's database is the DescribeDBInstances example's.
    double.put('us-east-1', 'ListStackResources', exampleItems('ListStackResources', [['MyStack-sampledb-ycwhk1v830lx', 'mysqldb']]), STACK_ID);
    double.put('eu-west-1', 'DescribeInstances', exampleItems('DescribeInstances', TARGET()));
    double.put('eu-west-1', 'DescribeLoadBalancers', exampleItems('DescribeLoadBalancers'));
    double.put('eu-west-1', 'DescribeTargetGroups', exampleItems('DescribeTargetGroups'));
    double.put('eu-west-1', 'DescribeTargetHealth', exampleItems('DescribeTargetHealth'), 'arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067');

    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryConnectTimeoutMs: 2000 });
    const principals = await createPrincipals(service.url);
    api = principals.discoveryAdminSession;
    admin = principals.adminToken;
    const credential = await api.post('/api/v1/credentials', { name: 'aws reader', kind: 'AWS_ACCESS_KEY', matchPatterns: [], settings: { accessKeyId: KEY_ID }, secrets: { secretAccessKey: SECRET } });
    expect(credential.status).toBe(201);
    credentialId = credential.body.data.id;
    const endpoint = double.url;
    settings = {
      endpoints: { sts: endpoint, ec2: endpoint, rds: endpoint, elasticloadbalancing: endpoint, cloudformation: endpoint, s3: s3.url, dynamodb: `${endpoint}/dynamodb/{region}` },
      maxAttempts: 4,
    };
    targetId = await createTarget(api, { name: 'aws', addresses: ['127.0.0.1'], methods: ['AWS'], credentialIds: [credentialId], settings: { AWS: settings } });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await double?.stop();
    await dynamodb?.stop();
    await s3?.remove();
  });

  const scan = (id = targetId) => scanToEnd(api, id);
  const { assets, relationships, tuples, statusOf } = cloudEstate(() => api);
  const sorted = <T>(values: Iterable<T>) => [...values].sort();

  const ESTATE = [
    `CLOUD_ACCOUNT ${ACCOUNT}`,
    ...REGIONS.map((r) => `CLOUD_REGION ${r}`),
    'NETWORK vpc-1a2b3c4d', 'NETWORK subnet-9d4a7b6c', 'NETWORK subnet-6e7f829e',
    'VM Server_1',
    'CLOUD_DATABASE mysqldb', 'CLOUD_DATABASE Music', 'CLOUD_DATABASE Forum',
    ...BUCKETS.map((b) => `CLOUD_STORAGE ${b}`),
    'CLOUD_LOAD_BALANCER my-load-balancer',
    'CLOUD_STACK MyStack',
  ];
  const EDGES = [
    ...REGIONS.map((r) => `CONTAINS ${ACCOUNT} -> ${r}`),
    'CONTAINS us-east-1 -> vpc-1a2b3c4d', 'CONTAINS vpc-1a2b3c4d -> subnet-9d4a7b6c', 'CONTAINS vpc-1a2b3c4d -> subnet-6e7f829e',
    'CONTAINS eu-west-1 -> Server_1',
    'CONTAINS us-east-1 -> mysqldb', 'CONTAINS us-east-1 -> Music', 'CONTAINS eu-west-1 -> Forum',
    // s3rver puts every bucket in us-east-1 (GetBucketLocation's empty constraint).
    ...BUCKETS.map((b) => `CONTAINS us-east-1 -> ${b}`),
    'CONTAINS eu-west-1 -> my-load-balancer', 'CONTAINS us-east-1 -> MyStack', 'CONTAINS MyStack -> mysqldb',
    // The target group's other target (i-0f76fade) is no instance of the read: no edge.
    'COMMUNICATES_WITH my-load-balancer -> Server_1',
  ];

  it("gives exactly the account's regions, instances, networks, buckets, databases, load balancers and stacks, with the spec's parent rules, every page read", async () => {
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    const rows = await assets();
    expect(sorted(rows.map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted(ESTATE));
    const byName = new Map(rows.map((a) => [a.displayName, a]));
    // Parents (spec 2.4): the CLOUD types from their region or account (CONTAINS); the account is a
    // root; a VM (HOSTS_VM from a hypervisor) and a NETWORK (CONTAINS from a host) have none in a cloud.
    expect(byName.get(ACCOUNT)?.parent).toBeUndefined();
    for (const r of REGIONS) expect(byName.get(r)?.parent).toMatchObject({ assetType: 'CLOUD_ACCOUNT', displayName: ACCOUNT, via: 'CONTAINS' });
    for (const [name, region] of [['mysqldb', 'us-east-1'], ['Music', 'us-east-1'], ['Forum', 'eu-west-1'], ['my-load-balancer', 'eu-west-1'], ['MyStack', 'us-east-1'], ...BUCKETS.map((b) => [b, 'us-east-1'])]) {
      expect(byName.get(name as string)?.parent).toMatchObject({ assetType: 'CLOUD_REGION', displayName: region, via: 'CONTAINS' });
    }
    for (const name of ['Server_1', 'vpc-1a2b3c4d', 'subnet-9d4a7b6c']) expect(byName.get(name)?.parent).toBeUndefined();
    expect(sorted(tuples(await relationships()))).toEqual(sorted(EDGES));

    // The instance's facts and identity: its id and its interface's MAC, never its private address.
    const vm = (await api.get(`/api/v1/assets/${byName.get('Server_1')?.id}`)).body.data;
    expect(JSON.parse(vm.customAttributes)).toMatchObject({ instanceId: 'i-0f76fade435676abd', instanceType: 't2.micro', powerState: 'running', region: 'eu-west-1', privateIpAddress: '192.168.1.88', publicIpAddress: '54.194.252.215', vpcId: 'vpc-11112222', accountId: ACCOUNT });
    expect(vm).toMatchObject({ macAddresses: ['02:dd:2c:5e:01:69'], ipAddresses: [] });
    const db = (await api.get(`/api/v1/assets/${byName.get('mysqldb')?.id}`)).body.data;
    expect(JSON.parse(db.customAttributes)).toMatchObject({ engine: 'mysql', instanceClass: 'db.m1.medium', instanceId: 'arn:aws:rds:us-east-1:123456789012:db:mysqldb' });

    // Every paginator followed: one item per page, so a list of n items takes n requests in its region (one for none).
    expect(double.requests.get('ec2 DescribeInstances')).toBe(1 + 1);
    expect(double.requests.get('ec2 DescribeSubnets')).toBe(2 + 1);
    expect(double.requests.get('cloudformation ListStackResources')).toBe(5);
    const host = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(host).toEqual([expect.objectContaining({ address: '127.0.0.1', methods: ['AWS'], outcome: 'SUCCESS', assetId: byName.get(ACCOUNT)?.id })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const strip = <T extends Record<string, unknown>>(rows: T[]) =>
      rows.map(({ lastSeenAt: _seen, lastScanAt: _scanned, ...rest }) => rest).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const [beforeAssets, beforeEdges] = [strip(await assets()), strip(await relationships())];
    expect((await scan()).status).toBe('COMPLETED');
    const afterAssets = await assets();
    expect(strip(afterAssets)).toEqual(beforeAssets);
    expect(strip(await relationships())).toEqual(beforeEdges);
    expect(afterAssets.every((a) => a.lastSeenAt === afterAssets[0]?.lastSeenAt)).toBe(true);
  }, TEST_TIMEOUT_MS);

  it('answers throttling with back-off: the throttled requests are retried and the read completes', async () => {
    const before = double.requests.get('ec2 DescribeInstances') ?? 0;
    double.throttle('DescribeInstances', 'eu-west-1', 2);
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    // The two requests of a read, and the two throttled ones again.
    expect((double.requests.get('ec2 DescribeInstances') ?? 0) - before).toBe(2 + 2);
    expect(sorted((await assets()).filter((a) => a.status === 'ACTIVE').map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted(ESTATE));

    // Throttled beyond the attempts: that part is reported, and retires nothing.
    double.throttle('DescribeDBInstances', 'us-east-1', 4);
    const throttled = await scan();
    expect(throttled.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await runErrors(api, throttled.id)).toEqual([{ address: '127.0.0.1', method: 'AWS', stage: 'collect', code: 'AWS_THROTTLED' }]);
    expect(await statusOf('mysqldb')).toBe('ACTIVE');
  }, TEST_TIMEOUT_MS);

  it('retires a removed bucket and instance only after their own part was read in full, not while S3 or that region fails', async () => {
    const s3client = new S3Client({ region: 'us-east-1', endpoint: s3.url, forcePathStyle: true, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } });
    await s3client.send(new DeleteBucketCommand({ Bucket: 'inventory-assets' }));
    s3client.destroy();
    double.put('eu-west-1', 'DescribeInstances', []);

    // S3 unreachable and EC2 failing in eu-west-1: both reported, neither retires anything.
    await s3.stop();
    double.fail('ec2', 'eu-west-1');
    const failing = await scan();
    expect(failing.status).toBe('COMPLETED_WITH_ERRORS');
    expect(sorted((await runErrors(api, failing.id)).map((e) => `${e.stage} ${e.code}`))).toEqual(['collect AWS_API_ERROR', 'collect CONNECTION_REFUSED']);
    expect([await statusOf('inventory-assets'), await statusOf('Server_1')]).toEqual(['ACTIVE', 'ACTIVE']);
    expect(sorted(tuples(await relationships()))).toEqual(sorted(EDGES));

    // S3 back, EC2 of eu-west-1 still failing: the bucket goes (and its edge), the instance stays.
    await s3.restart();
    const partial = await scan();
    expect(partial.status).toBe('COMPLETED_WITH_ERRORS');
    expect([await statusOf('inventory-assets'), await statusOf('Server_1')]).toEqual(['INACTIVE', 'ACTIVE']);
    expect(tuples(await relationships())).not.toContain('CONTAINS us-east-1 -> inventory-assets');
    expect(tuples(await relationships())).toContain('CONTAINS eu-west-1 -> Server_1');

    // A complete read: the instance goes too (and the load balancer's edge to it).
    double.fail('ec2', 'eu-west-1', false);
    expect((await scan()).status).toBe('COMPLETED');
    expect(await statusOf('Server_1')).toBe('INACTIVE');
    expect(sorted(tuples(await relationships()))).toEqual(sorted(EDGES.filter((e) => !e.endsWith('inventory-assets') && !e.endsWith('Server_1'))));
  }, TEST_TIMEOUT_MS);

  it('loads two instances of one region that share an identity (one MAC) as one asset, counts them in /metrics, and loads the rest of the read', async () => {
    const merged = async () =>
      parsePrometheus((await admin.get('/metrics')).text).find((m) => m.name === 'discovery_estate_records_merged_total' && m.labels.method === 'AWS')?.value ?? 0;
    const before = await merged();
    // The DescribeInstances example as the load balancer's target and as published (in the same region): two instance ids, one interface MAC.
    double.put('eu-west-1', 'DescribeInstances', [...exampleItems('DescribeInstances', TARGET()), ...exampleItems('DescribeInstances')]);
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    expect(await merged()).toBe(before + 1);
    const active = (await assets()).filter((a) => a.status === 'ACTIVE');
    expect(sorted(active.map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted(ESTATE.filter((e) => e !== 'CLOUD_STORAGE inventory-assets')));
    const vm = active.find((a) => a.displayName === 'Server_1') as AssetRow;
    expect((await api.get(`/api/v1/assets/${vm.id}`)).body.data).toMatchObject({ macAddresses: ['02:dd:2c:5e:01:69'] });
    const edges = tuples(await relationships());
    for (const edge of ['CONTAINS eu-west-1 -> Server_1', 'COMMUNICATES_WITH my-load-balancer -> Server_1']) expect(edges).toContain(edge);
  }, TEST_TIMEOUT_MS);

  it('assumes the role a credential names, and reads the account as that role', async () => {
    const role = await api.post('/api/v1/credentials', { name: 'aws role', kind: 'AWS_ACCESS_KEY', matchPatterns: [], settings: { accessKeyId: KEY_ID, roleArn: 'arn:aws:iam::123456789012:role/demo', externalId: 'inventory-7f3a' }, secrets: { secretAccessKey: SECRET } });
    expect(role.status).toBe(201);
    const before = double.requests.get('sts AssumeRole') ?? 0;
    const target = await createTarget(api, { name: 'aws as role', addresses: ['127.0.0.1'], methods: ['AWS'], credentialIds: [role.body.data.id], settings: { AWS: { ...settings, regions: ['us-east-1'] } } });
    expect((await scan(target)).status).toBe('COMPLETED');
    expect(double.requests.get('sts AssumeRole')).toBe(before + 1);
    const account = (await assets()).find((a) => a.assetType === 'CLOUD_ACCOUNT') as AssetRow;
    const attributes = JSON.parse((await api.get(`/api/v1/assets/${account.id}`)).body.data.customAttributes);
    expect(attributes.callerArn).toBe('arn:aws:sts::123456789012:assumed-role/my-role-name/my-role-session-name');
  }, TEST_TIMEOUT_MS);

  it('fails with AWS_AUTH_FAILED on a wrong key and with CONNECTION_REFUSED when the endpoint is unreachable, and keeps the secret out of the run', async () => {
    const wrongSecret = (await api.post('/api/v1/credentials', { name: 'aws wrong secret', kind: 'AWS_ACCESS_KEY', matchPatterns: [], settings: { accessKeyId: KEY_ID }, secrets: { secretAccessKey: 'not-the-secret-key-0123456789' } })).body.data.id;
    const unknownKey = (await api.post('/api/v1/credentials', { name: 'aws unknown key', kind: 'AWS_ACCESS_KEY', matchPatterns: [], settings: { accessKeyId: 'AKIAI44QH8DHBEXAMPLE' }, secrets: { secretAccessKey: SECRET } })).body.data.id;
    for (const id of [wrongSecret, unknownKey]) {
      const target = await createTarget(api, { name: `aws refused ${id}`, addresses: ['127.0.0.1'], methods: ['AWS'], credentialIds: [id], settings: { AWS: settings } });
      const refused = await scan(target);
      expect(refused.status).toBe('COMPLETED_WITH_ERRORS');
      expect(await runErrors(api, refused.id)).toEqual([{ address: '127.0.0.1', method: 'AWS', stage: 'authenticate', code: 'AWS_AUTH_FAILED' }]);
      expect(JSON.stringify((await api.get(`/api/v1/discovery/runs/${refused.id}`)).body)).not.toContain(SECRET);
    }

    const closed = `http://127.0.0.1:${await freePort()}`;
    const down = await createTarget(api, { name: 'aws down', addresses: ['127.0.0.1'], methods: ['AWS'], credentialIds: [credentialId], settings: { AWS: { ...settings, endpoints: { sts: closed }, maxAttempts: 1 } } });
    const unreachable = await scan(down);
    expect(unreachable.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await runErrors(api, unreachable.id)).toEqual([{ address: '127.0.0.1', method: 'AWS', stage: 'connect', code: 'CONNECTION_REFUSED' }]);
  }, TEST_TIMEOUT_MS);

  it('refuses settings that are not valid: a region that is no region code, an endpoint of a service it does not read', async () => {
    const bad = await api.post('/api/v1/discovery/targets', { name: 'aws bad', addresses: ['127.0.0.1'], methods: ['AWS'], settings: { AWS: { regions: ['not a region'] } } });
    expect(bad.status).toBe(400);
    const unknown = await api.post('/api/v1/discovery/targets', { name: 'aws bad', addresses: ['127.0.0.1'], methods: ['AWS'], settings: { AWS: { endpoints: { lambda: 'http://127.0.0.1:1' } } } });
    expect(unknown.status).toBe(400);
  }, TEST_TIMEOUT_MS);
});
