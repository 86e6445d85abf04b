// A realistic, deterministic estate for demos and benchmarks, as import bundles: switches; per
// site a vCenter and clusters of hypervisors (datastores, a vSwitch, port groups, a network, an
// uplink that LLDP reports); VMs on the hypervisors, some running containers; physical servers,
// some with a storage pool, in the switches' forwarding tables; on every host software, services,
// packages, processes and an interface; printers and unidentified endpoints; one cloud account
// with regions, databases, buckets, load balancers and stacks. Each bundle is self-contained
// (shared parents such as a vCenter are repeated and reconciled by their identifiers).
import type { ImportBundle } from '../features/import/import-service.js';
import type { BundleAsset, BundleRelationship } from '../features/inventory/inventory-bundle.js';
import type { SubRecordBundle } from '../features/inventory/sub-record-loader.js';

const SITES = ['paris', 'berlin', 'new-york', 'singapore'];
const SOFTWARE: [name: string, vendor: string, version: string][] = [
  ['nginx', 'F5', '1.27.2'], ['PostgreSQL', 'PostgreSQL Global Development Group', '16.4'], ['OpenJDK', 'Eclipse Adoptium', '21.0.4'],
  ['Redis', 'Redis Ltd.', '7.2.5'], ['RabbitMQ', 'Broadcom', '3.13.7'], ['OpenSSH', 'OpenBSD', '9.2p1'], ['Node.js', 'OpenJS Foundation', '20.17.0'],
  ['Apache Tomcat', 'Apache Software Foundation', '10.1.28'], ['MariaDB', 'MariaDB Foundation', '10.11.9'], ['Elasticsearch', 'Elastic', '8.15.1'],
];
const SERVICES = ['sshd', 'cron', 'chronyd', 'node_exporter', 'rsyslog'];
const PACKAGES = [
  'base-files', 'bash', 'coreutils', 'curl', 'dpkg', 'gzip', 'libc6', 'libssl3', 'openssh-server', 'openssl', 'procps', 'python3', 'sudo',
  'systemd', 'tar', 'tzdata', 'util-linux', 'vim-tiny', 'wget', 'zlib1g', 'ca-certificates', 'iproute2', 'lldpd', 'snmpd',
];
const PACKAGES_PER_HOST = 12;
const SERVICE_PORTS: Record<string, number> = { sshd: 22, node_exporter: 9100, chronyd: 123 };
const OSES: [name: string, version: string][] = [['Ubuntu', '22.04'], ['Debian', '12'], ['Red Hat Enterprise Linux', '9.4'], ['Windows Server', '2022']];
const VMS_PER_HYPERVISOR = 25;
const HYPERVISORS_PER_CLUSTER = 8;
const BUNDLE_TARGET = 5000;

/** A small seeded generator (mulberry32): the same seed gives the same estate. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The item at n, counting round the list. */
function nth<T>(items: readonly T[], n: number): T {
  const item = items[n % items.length];
  if (item === undefined) throw new Error('nth of an empty list');
  return item;
}

const pad = (n: number, width = 5) => String(n).padStart(width, '0');
const mac = (n: number, prefix: string) => `${prefix}:${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
// One address per n (up to 2^21): host parts 1 to 128, so that no two assets of a kind share one.
const ip = (n: number, base: number) => `10.${base + ((n >> 15) & 63)}.${(n >> 7) & 255}.${(n & 127) + 1}`;

type SubRecords = { [K in keyof SubRecordBundle]-?: NonNullable<SubRecordBundle[K]> };
const noSubRecords = (): SubRecords => ({ software: [], services: [], processes: [], interfaces: [], neighbors: [], fdb: [] });

class BundleBuilder {
  readonly bundles: ImportBundle[] = [];
  private assets: BundleAsset[] = [];
  private relationships: BundleRelationship[] = [];
  private keys = new Set<string>();
  sub: SubRecords = noSubRecords();

  constructor(private readonly source: string) {}

  asset(asset: BundleAsset): string {
    if (!this.keys.has(asset.key)) {
      this.keys.add(asset.key);
      this.assets.push(asset);
    }
    return asset.key;
  }

  relate(type: BundleRelationship['type'], source: string, target: string): void {
    this.relationships.push({ type, source, target });
  }

  /** Ends the bundle once it is big enough (callers add whole groups, so none is split). */
  maybeFlush(force = false): void {
    if (this.assets.length === 0 || (!force && this.assets.length < BUNDLE_TARGET)) return;
    this.bundles.push({ source: this.source, assets: this.assets, relationships: this.relationships, ...this.sub });
    this.assets = [];
    this.relationships = [];
    this.keys = new Set();
    this.sub = noSubRecords();
  }
}

export function demoEstate(hosts: number, seed = 42): ImportBundle[] {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => nth(items, Math.floor(rnd() * items.length));
  const environment = () => (rnd() < 0.6 ? 'production' : rnd() < 0.6 ? 'staging' : 'development');
  const b = new BundleBuilder('demo');
  const hypervisors = Math.max(1, Math.round(hosts * 0.04));
  const physical = Math.round(hosts * 0.1);
  const vms = Math.max(0, hosts - hypervisors - physical);
  let hostNo = 0;

  const vcenter = (site: string) =>
    b.asset({ key: `vc-${site}`, assetType: 'VIRTUALIZATION_MANAGER', displayName: `vcenter-${site}`, fqdn: `vcenter.${site}.example.com`, site, vendor: 'VMware', model: 'vCenter Server 8.0' });

  const onHost = (hostKey: string, n: number) => {
    b.sub.processes.push({ asset: hostKey, pid: 1, processName: 'systemd', username: 'root', state: 'S' }, { asset: hostKey, pid: 640, ppid: 1, processName: 'sshd', commandLine: 'sshd: /usr/sbin/sshd -D', username: 'root', state: 'S' });
    for (const i of [0, 1, 2]) {
      const [name, vendor, version] = nth(SOFTWARE, n + i * 3);
      const sw = b.asset({ key: `${hostKey}-sw${i}`, assetType: 'SOFTWARE', displayName: name, vendor, model: version, customAttributes: { version, edition: 'standard' } });
      b.relate('RUNS_ON', sw, hostKey);
      b.sub.processes.push({ asset: hostKey, pid: 1000 + i, ppid: 1, processName: name.toLowerCase().replace(/\W/g, ''), username: 'app', state: 'S', memoryKb: Math.round(rnd() * 2_000_000), cpuPercent: Math.round(rnd() * 500) / 10, software: sw });
    }
    b.relate('RUNS_ON', b.asset({ key: `${hostKey}-svc`, assetType: 'SERVICE', displayName: nth(SERVICES, n), customAttributes: { listenPorts: '22/tcp' } }), hostKey);
    for (let k = 0; k < PACKAGES_PER_HOST; k++) {
      const name = nth(PACKAGES, n + k * 5);
      b.sub.software.push({ asset: hostKey, packageName: name, version: `${1 + (k % 9)}.${n % 7}.${k}`, publisher: 'Debian', packageManager: 'dpkg', installDate: `2026-0${1 + (k % 9)}-1${k % 10}` });
    }
    for (const svc of SERVICES.slice(0, 3)) {
      const port = SERVICE_PORTS[svc];
      b.sub.services.push({ asset: hostKey, serviceName: svc, displayName: svc, state: 'running', startMode: 'auto', listenPorts: port ? [{ protocol: svc === 'chronyd' ? 'udp' : 'tcp', port }] : [] });
    }
  };

  const host = (key: string, assetType: 'VM' | 'PHYSICAL_HOST', site: string) => {
    const n = hostNo++;
    const name = `${assetType === 'VM' ? 'vm' : 'srv'}-${site.slice(0, 3)}-${pad(n)}`;
    const [os, osVersion] = pick(OSES);
    b.asset({
      key, assetType, displayName: name, hostname: name, fqdn: `${name}.${site}.example.com`, site, environment: environment(),
      macAddresses: [mac(n, assetType === 'VM' ? '00:50:56' : '3c:ec:ef')], ipAddresses: [ip(n, 0)],
      ...(assetType === 'PHYSICAL_HOST' ? { serialNumber: `SRV${pad(n, 7)}`, vendor: 'Dell Inc.', model: 'PowerEdge R750' } : {}),
      customAttributes: { osName: os, osVersion, cpuCount: 2 ** Math.floor(1 + rnd() * 5), memoryMb: 1024 * 2 ** Math.floor(1 + rnd() * 6), ...(assetType === 'VM' ? { powerState: rnd() < 0.95 ? 'poweredOn' : 'poweredOff' } : {}) },
    });
    b.sub.interfaces.push({ asset: key, name: 'eth0', ifIndex: 2, macAddress: mac(n, assetType === 'VM' ? '00:50:56' : '3c:ec:ef'), ipAddresses: [`${ip(n, 0)}/16`], speedMbps: 10000, operStatus: 'up', mtu: 1500 });
    onHost(key, n);
    return key;
  };

  // Switches come first, so that the LLDP neighbours the hypervisors report find them by name.
  const switchCount = Math.max(1, Math.ceil(hosts / 48));
  const switchAsset = (w: number) => {
    const site = nth(SITES, w);
    const name = `sw-${site.slice(0, 3)}-${pad(w, 4)}`;
    return b.asset({ key: `switch-${w}`, assetType: 'NETWORK_DEVICE', displayName: name, hostname: name, serialNumber: `FOC${pad(w, 8)}`, site, vendor: 'Cisco Systems', model: 'Catalyst 9300-48P', ipAddresses: [ip(w, 50)], customAttributes: { firmware: 'IOS-XE 17.9.4' } });
  };
  for (let w = 0; w < switchCount; w++) switchAsset(w);
  b.maybeFlush(true);

  // Virtualisation: hypervisors in clusters under their site's vCenter, VMs on hypervisors.
  let vmLeft = vms;
  for (let h = 0; h < hypervisors; h++) {
    const site = nth(SITES, h);
    const vc = vcenter(site);
    const cluster = b.asset({ key: `cluster-${site}-${Math.floor(h / HYPERVISORS_PER_CLUSTER)}`, assetType: 'CLUSTER', displayName: `cluster-${site}-${Math.floor(h / HYPERVISORS_PER_CLUSTER)}`, site, customAttributes: { haEnabled: true, drsEnabled: true } });
    const hv = b.asset({ key: `esx-${h}`, assetType: 'HYPERVISOR', displayName: `esx-${site.slice(0, 3)}-${pad(h, 4)}`, hostname: `esx-${site.slice(0, 3)}-${pad(h, 4)}`, serialNumber: `ESX${pad(h, 7)}`, site, environment: 'production', vendor: 'Dell Inc.', model: 'PowerEdge R760', ipAddresses: [ip(h, 40)], customAttributes: { hypervisorProduct: 'ESXi 8.0', cpuCount: 64, memoryMb: 524288 } });
    b.relate('MANAGED_BY', hv, vc);
    const uplink = h % switchCount;
    b.sub.interfaces.push({ asset: hv, name: 'vmnic0', ifIndex: 1, macAddress: mac(h, 'b8:ce:f6'), speedMbps: 25000, operStatus: 'up', mtu: 9000 });
    if (SITES[uplink % SITES.length] === site) {
      const sw = `sw-${site.slice(0, 3)}-${pad(uplink, 4)}`;
      b.sub.neighbors.push({ asset: hv, localPort: 'vmnic0', protocol: 'LLDP', remotePort: `Te1/1/${1 + (Math.floor(h / switchCount) % 8)}`, remoteSystemName: sw });
    }
    b.relate('CONTAINS', cluster, hv);
    for (const d of [0, 1]) b.relate('USES_DATASTORE', hv, b.asset({ key: `${hv}-ds${d}`, assetType: 'DATASTORE', displayName: `ds-${pad(h, 4)}-${d}`, customAttributes: { capacityGb: 4096, freeGb: Math.round(rnd() * 4096), fsType: 'VMFS6' } }));
    const vsw = b.asset({ key: `${hv}-vsw`, assetType: 'VSWITCH', displayName: `vSwitch0-${pad(h, 4)}`, customAttributes: { mtu: 9000 } });
    b.relate('CONTAINS', hv, vsw);
    for (const g of [0, 1]) b.relate('CONTAINS', hv, b.asset({ key: `${hv}-pg${g}`, assetType: 'PORT_GROUP', displayName: `pg-vlan${100 + g}-${pad(h, 4)}`, customAttributes: { vlanId: 100 + g } }));
    b.relate('CONTAINS', hv, b.asset({ key: `${hv}-net`, assetType: 'NETWORK', displayName: `vm-net-${pad(h, 4)}`, customAttributes: { cidr: `10.${64 + (h % 64)}.0.0/16`, vlanId: 100 } }));
    const here = h === hypervisors - 1 ? vmLeft : Math.min(vmLeft, VMS_PER_HYPERVISOR);
    for (let v = 0; v < here; v++, vmLeft--) {
      const vm = host(`vm-${h}-${v}`, 'VM', site);
      b.relate('HOSTS_VM', hv, vm);
      if (rnd() < 0.1) {
        for (const c of [0, 1]) b.relate('HOSTS_CONTAINER', vm, b.asset({ key: `${vm}-ctr${c}`, assetType: 'CONTAINER', displayName: `${vm}-app-${c}`, customAttributes: { image: pick(['nginx:1.27', 'redis:7.2', 'postgres:16', 'node:20']), runtime: 'containerd', state: 'running' } }));
      }
      if (v > 0 && rnd() < 0.05) b.relate('COMMUNICATES_WITH', vm, `vm-${h}-${v - 1}`);
    }
    b.maybeFlush();
  }

  const physicalMacs: string[] = [];
  for (let s = 0; s < physical; s++) {
    physicalMacs.push(mac(hostNo, '3c:ec:ef'));
    const server = host(`phys-${s}`, 'PHYSICAL_HOST', nth(SITES, s));
    if (s % 5 === 0) b.relate('CONTAINS', server, b.asset({ key: `${server}-pool`, assetType: 'STORAGE_POOL', displayName: `zpool-${pad(s, 5)}`, customAttributes: { capacityGb: 8192, freeGb: Math.round(rnd() * 8192) } }));
    b.maybeFlush();
  }

  // Printers and what a sweep found but could not identify.
  for (let pr = 0; pr < Math.max(1, Math.floor(hosts / 100)); pr++) {
    b.asset({ key: `printer-${pr}`, assetType: 'PRINTER', displayName: `printer-${pad(pr, 4)}`, site: nth(SITES, pr), vendor: 'HP', model: 'LaserJet M611', ipAddresses: [ip(pr, 52)] });
  }
  for (let u = 0; u < Math.max(1, Math.floor(hosts / 50)); u++) {
    b.asset({ key: `unknown-${u}`, assetType: 'UNKNOWN_ENDPOINT', displayName: ip(u, 54), ipAddresses: [ip(u, 54)], customAttributes: { openPorts: '80,443' } });
  }
  b.maybeFlush();

  // The switches again, with the MACs their access ports learnt: one physical server per port.
  physicalMacs.forEach((m, i) => {
    const w = i % switchCount;
    b.sub.fdb.push({ asset: switchAsset(w), port: `Gi1/0/${1 + (Math.floor(i / switchCount) % 48)}`, macAddress: m, vlan: 100 });
  });
  b.maybeFlush(true);

  // Cloud.
  const account = b.asset({ key: 'aws', assetType: 'CLOUD_ACCOUNT', displayName: 'aws-production', vendor: 'Amazon Web Services', customAttributes: { provider: 'AWS', accountId: '123456789012' } });
  const regions = ['eu-west-1', 'us-east-1', 'ap-southeast-1'].map((r) => {
    b.relate('CONTAINS', account, b.asset({ key: `region-${r}`, assetType: 'CLOUD_REGION', displayName: r, customAttributes: { region: r } }));
    return `region-${r}`;
  });
  const cloudObjects: [string, BundleAsset['assetType'], number][] = [
    ['db', 'CLOUD_DATABASE', Math.max(3, Math.floor(hosts / 200))],
    ['bucket', 'CLOUD_STORAGE', Math.max(3, Math.floor(hosts / 400))],
    ['lb', 'CLOUD_LOAD_BALANCER', 3],
    ['stack', 'CLOUD_STACK', 3],
  ];
  for (const [prefix, assetType, count] of cloudObjects) {
    for (let i = 0; i < count; i++) {
      b.relate('CONTAINS', nth(regions, i), b.asset({ key: `${prefix}-${i}`, assetType, displayName: `${prefix}-${pad(i, 4)}`, customAttributes: { instanceId: `${prefix}-${pad(i, 6)}` } }));
    }
  }
  b.maybeFlush(true);
  return b.bundles;
}
