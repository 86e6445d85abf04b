// What the AWS connector read of one account as an estate, as pure functions, with the spec's
// types and parent rules: the account (CLOUD_ACCOUNT, a root) CONTAINS its enabled regions
// (CLOUD_REGION); a region CONTAINS its EC2 instances (VM), VPCs (NETWORK), RDS instances and
// DynamoDB tables (CLOUD_DATABASE), load balancers (CLOUD_LOAD_BALANCER) and CloudFormation stacks
// (CLOUD_STACK); a bucket (CLOUD_STORAGE) hangs from its region when that region is read, else
// from the account. A VPC CONTAINS its subnets (NETWORK) and a subnet its instances; a load
// balancer COMMUNICATES_WITH the instances its target groups send to; a stack CONTAINS the
// resources it created that the read shows. Under the spec's rules the CLOUD types get their
// region or account as parent; a VM's parent rule (HOSTS_VM from a HYPERVISOR) and a NETWORK's
// (CONTAINS from a HOST) find none in a cloud, so those have no parent and reach their region
// through the CONTAINS edges. Every asset carries `instanceId` (an EC2 instance its own id, the
// others their ARN), so that it is the same asset at every read. Private addresses and AWS's host
// names repeat across VPCs (every default VPC is 172.31.0.0/16), so they are attributes, never
// identity: an instance is known by its id and its network interfaces' MACs.
import type { Instance, Region, Subnet, Vpc } from '@aws-sdk/client-ec2';
import type { DBInstance } from '@aws-sdk/client-rds';
import type { LoadBalancer } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { Stack, StackResourceSummary } from '@aws-sdk/client-cloudformation';
import type { RelationshipType } from '../../../inventory/relationship-types.js';
import type { EstateAsset, EstateObservation } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import type { PartRead } from '../parted-read.js';

export const ACCOUNT_KEY = 'account';

/** One bucket of ListBuckets, with the region GetBucketLocation gave (none where it could not be read). */
export interface BucketRead {
  name: string;
  region?: string;
  created?: Date;
}

/** A target group's load balancers and the instances it sends to. */
export interface TargetGroupRead {
  loadBalancerArns: string[];
  instanceIds: string[];
}

/** What was read of one region (each list as far as its read went). */
export interface RegionResources {
  instances: Instance[];
  vpcs: Vpc[];
  subnets: Subnet[];
  databases: DBInstance[];
  tables: string[];
  loadBalancers: LoadBalancer[];
  targetGroups: TargetGroupRead[];
  stacks: Stack[];
  /** Each stack's resources, by stack id. */
  stackResources: Map<string, StackResourceSummary[]>;
}

export interface AccountRead {
  accountId: string;
  /** The ARN partition of the caller (aws, aws-cn, aws-us-gov). */
  partition: string;
  callerArn: string;
  regions: Region[];
  /** The part the regions were read in (regionsPart). */
  regionsPart: string;
  buckets: BucketRead[];
  byRegion: Map<string, RegionResources>;
  parts: PartRead[];
}

export const emptyRegion = (): RegionResources => ({ instances: [], vpcs: [], subnets: [], databases: [], tables: [], loadBalancers: [], targetGroups: [], stacks: [], stackResources: new Map() });

/**
 * The part names: one for the regions (one of its own for each set of regions a target names, so
 * that a target that reads some regions never retires the others), one for S3, one per service
 * and region.
 */
export const regionsPart = (named: string[] | undefined) => (named ? `regions:${[...named].sort().join(',')}` : 'regions');
export const S3_PART = 's3';
/** The services a target's settings.AWS.endpoints may name. */
export const AWS_SERVICES = ['sts', 'ec2', 's3', 'rds', 'dynamodb', 'elasticloadbalancing', 'cloudformation'] as const;
export type AwsService = (typeof AWS_SERVICES)[number];

export const REGION_SERVICES = ['ec2', 'rds', 'dynamodb', 'elasticloadbalancing', 'cloudformation'] as const;
export type RegionService = (typeof REGION_SERVICES)[number];
export const regionPart = (service: RegionService, region: string) => `${service}:${region}`;

const str = (value: string | undefined): string | undefined => (value ? cleanText(value) : undefined);
const nameTag = (tags: { Key?: string; Value?: string }[] | undefined) => str(tags?.find((t) => t.Key === 'Name')?.Value);
const iso = (date: Date | undefined) => (date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined);

/** The estate of one account; `scope` names it (AWS:<account id>), and each part is a scope below it. */
export function toEstate(read: AccountRead): EstateObservation & { parts: { name: string; keys: string[]; complete: boolean }[] } {
  const { accountId, partition } = read;
  const arn = (service: string, region: string, resource: string) => `arn:${partition}:${service}:${region}:${accountId}:${resource}`;
  const regionKey = (region: string) => `region:${region}`;
  const assets = new Map<string, EstateAsset>();
  const partOf = new Map<string, string>();
  const relationships: EstateObservation['relationships'] = [];
  const relate = (type: RelationshipType, source: string, target: string) => relationships.push({ type, source, target });
  type Draft = Pick<EstateAsset, 'key' | 'assetType' | 'displayName'> & Partial<Pick<EstateAsset, 'macAddresses' | 'vendor' | 'model'>> & { attributes: Record<string, string | number | boolean | undefined> };
  const asset = (part: string | undefined, { attributes, ...a }: Draft) => {
    const defined = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
    assets.set(a.key, { macAddresses: [], ipAddresses: [], vendor: 'Amazon Web Services', ...a, attributes: { provider: 'AWS', accountId, ...defined } });
    if (part) partOf.set(a.key, part);
  };

  asset(undefined, { key: ACCOUNT_KEY, assetType: 'CLOUD_ACCOUNT', displayName: accountId, attributes: { partition, callerArn: str(read.callerArn), instanceId: `arn:${partition}:iam::${accountId}:root` } });
  for (const r of read.regions) {
    const name = r.RegionName as string;
    asset(read.regionsPart, { key: regionKey(name), assetType: 'CLOUD_REGION', displayName: name, attributes: { region: name, optInStatus: str(r.OptInStatus), endpoint: str(r.Endpoint), instanceId: `aws:${accountId}:${name}` } });
    relate('CONTAINS', ACCOUNT_KEY, regionKey(name));
  }
  const readRegions = new Set(read.regions.map((r) => r.RegionName));

  for (const b of read.buckets) {
    const key = `arn:${partition}:s3:::${b.name}`;
    asset(S3_PART, { key, assetType: 'CLOUD_STORAGE', displayName: b.name, attributes: { service: 's3', region: b.region, createdAt: iso(b.created), instanceId: key } });
    relate('CONTAINS', b.region && readRegions.has(b.region) ? regionKey(b.region) : ACCOUNT_KEY, key);
  }

  for (const [region, res] of read.byRegion) {
    const home = regionKey(region);
    const ec2 = regionPart('ec2', region);
    const vpcKey = (id: string) => arn('ec2', region, `vpc/${id}`);
    const subnetKey = (id: string) => arn('ec2', region, `subnet/${id}`);
    const instanceKey = (id: string) => arn('ec2', region, `instance/${id}`);
    for (const v of res.vpcs) {
      if (!v.VpcId) continue;
      asset(ec2, { key: vpcKey(v.VpcId), assetType: 'NETWORK', displayName: nameTag(v.Tags) ?? v.VpcId, attributes: { service: 'ec2', kind: 'vpc', region, vpcId: v.VpcId, cidr: str(v.CidrBlock), state: str(v.State), isDefault: v.IsDefault, instanceId: vpcKey(v.VpcId) } });
      relate('CONTAINS', home, vpcKey(v.VpcId));
    }
    for (const s of res.subnets) {
      if (!s.SubnetId) continue;
      asset(ec2, {
        key: subnetKey(s.SubnetId), assetType: 'NETWORK', displayName: nameTag(s.Tags) ?? s.SubnetId,
        attributes: { service: 'ec2', kind: 'subnet', region, subnetId: s.SubnetId, vpcId: str(s.VpcId), cidr: str(s.CidrBlock), availabilityZone: str(s.AvailabilityZone), state: str(s.State), instanceId: subnetKey(s.SubnetId) },
      });
      if (s.VpcId) relate('CONTAINS', vpcKey(s.VpcId), subnetKey(s.SubnetId));
    }
    for (const i of res.instances) {
      if (!i.InstanceId) continue;
      const key = instanceKey(i.InstanceId);
      const nics = i.NetworkInterfaces ?? [];
      asset(ec2, {
        key, assetType: 'VM', displayName: nameTag(i.Tags) ?? i.InstanceId, model: str(i.InstanceType),
        macAddresses: [...new Set(nics.flatMap((n) => str(n.MacAddress)?.toLowerCase() ?? []))],
        attributes: {
          service: 'ec2', region, instanceId: i.InstanceId, instanceType: str(i.InstanceType), powerState: str(i.State?.Name), availabilityZone: str(i.Placement?.AvailabilityZone),
          imageId: str(i.ImageId), vpcId: str(i.VpcId), subnetId: str(i.SubnetId), privateIpAddress: str(i.PrivateIpAddress), publicIpAddress: str(i.PublicIpAddress),
          privateDnsName: str(i.PrivateDnsName), publicDnsName: str(i.PublicDnsName), platform: str(i.PlatformDetails ?? i.Platform), architecture: str(i.Architecture),
          cpuCount: i.CpuOptions?.CoreCount && i.CpuOptions.ThreadsPerCore ? i.CpuOptions.CoreCount * i.CpuOptions.ThreadsPerCore : undefined, launchTime: iso(i.LaunchTime),
        },
      });
      relate('CONTAINS', home, key);
      if (i.SubnetId) relate('CONTAINS', subnetKey(i.SubnetId), key);
    }
    for (const d of res.databases) {
      if (!d.DBInstanceArn) continue;
      asset(regionPart('rds', region), {
        key: d.DBInstanceArn, assetType: 'CLOUD_DATABASE', displayName: str(d.DBInstanceIdentifier) ?? d.DBInstanceArn,
        attributes: {
          service: 'rds', region, engine: str(d.Engine), engineVersion: str(d.EngineVersion), instanceClass: str(d.DBInstanceClass), status: str(d.DBInstanceStatus),
          availabilityZone: str(d.AvailabilityZone), endpoint: str(d.Endpoint?.Address), port: d.Endpoint?.Port, storageGb: d.AllocatedStorage, multiAz: d.MultiAZ, vpcId: str(d.DBSubnetGroup?.VpcId), instanceId: d.DBInstanceArn,
        },
      });
      relate('CONTAINS', home, d.DBInstanceArn);
    }
    for (const t of res.tables) {
      const key = arn('dynamodb', region, `table/${t}`);
      asset(regionPart('dynamodb', region), { key, assetType: 'CLOUD_DATABASE', displayName: str(t) ?? key, attributes: { service: 'dynamodb', region, engine: 'dynamodb', instanceId: key } });
      relate('CONTAINS', home, key);
    }
    for (const lb of res.loadBalancers) {
      if (!lb.LoadBalancerArn) continue;
      asset(regionPart('elasticloadbalancing', region), {
        key: lb.LoadBalancerArn, assetType: 'CLOUD_LOAD_BALANCER', displayName: str(lb.LoadBalancerName) ?? lb.LoadBalancerArn,
        attributes: { service: 'elasticloadbalancing', region, type: str(lb.Type), scheme: str(lb.Scheme), dnsName: str(lb.DNSName), state: str(lb.State?.Code), vpcId: str(lb.VpcId), instanceId: lb.LoadBalancerArn },
      });
      relate('CONTAINS', home, lb.LoadBalancerArn);
    }
    for (const tg of res.targetGroups) for (const lb of tg.loadBalancerArns) for (const id of tg.instanceIds) relate('COMMUNICATES_WITH', lb, instanceKey(id));
    // The keys of what a stack's resources are, by CloudFormation resource type and physical id.
    const created: Record<string, (physicalId: string) => string> = {
      'AWS::EC2::Instance': instanceKey,
      'AWS::EC2::VPC': vpcKey,
      'AWS::EC2::Subnet': subnetKey,
      'AWS::S3::Bucket': (name) => `arn:${partition}:s3:::${name}`,
      'AWS::RDS::DBInstance': (id) => arn('rds', region, `db:${id}`),
      'AWS::DynamoDB::Table': (name) => arn('dynamodb', region, `table/${name}`),
      'AWS::ElasticLoadBalancingV2::LoadBalancer': (lbArn) => lbArn,
    };
    for (const s of res.stacks) {
      if (!s.StackId) continue;
      asset(regionPart('cloudformation', region), {
        key: s.StackId, assetType: 'CLOUD_STACK', displayName: str(s.StackName) ?? s.StackId,
        attributes: { service: 'cloudformation', region, stackStatus: str(s.StackStatus), createdAt: iso(s.CreationTime), updatedAt: iso(s.LastUpdatedTime), instanceId: s.StackId },
      });
      relate('CONTAINS', home, s.StackId);
      for (const r of res.stackResources.get(s.StackId) ?? []) {
        const keyOf = r.ResourceType ? created[r.ResourceType] : undefined;
        if (keyOf && r.PhysicalResourceId) relate('CONTAINS', s.StackId, keyOf(r.PhysicalResourceId));
      }
    }
  }

  // A partial read may name what it did not read (an instance of a failed region's EC2): such
  // edges are left out. Sorted, so that the first edge that makes a parent is the same at every read.
  const edges = [...new Map(relationships.filter((r) => assets.has(r.source) && assets.has(r.target)).map((r) => [`${r.type}|${r.source}|${r.target}`, r])).values()];
  edges.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.source.localeCompare(b.source) || a.target.localeCompare(b.target)));
  const keys = [...assets.keys()].sort();
  return {
    method: 'AWS',
    scope: `AWS:${accountId}`,
    root: ACCOUNT_KEY,
    assets: keys.map((k) => assets.get(k) as EstateAsset),
    relationships: edges,
    relationshipTypes: ['CONTAINS', 'COMMUNICATES_WITH'],
    parts: read.parts.map((p) => ({ ...p, keys: keys.filter((k) => partOf.get(k) === p.name) })),
    complete: read.parts.every((p) => p.complete),
  };
}
