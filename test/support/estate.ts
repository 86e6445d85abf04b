// A small estate with one asset of every graph type and every parent edge of docs/interface.md §2.4, imported
// through POST /api/v1/import; and a discovery read of one host through the service's own loader.
import { emptyObservation, OBSERVED_SCOPES } from '../../src/features/discovery/host-observation.js';
import type { AddressResult } from '../../src/features/discovery/observation-bundle.js';
import type { ApiClient } from './api-client.js';
import type { TestService } from './test-stores.js';

export const ESTATE = {
  source: 'test-fixture',
  assets: [
    { key: 'vc', assetType: 'VIRTUALIZATION_MANAGER', displayName: 'vcenter-01', fqdn: 'vcenter-01.lab.example.com', site: 'paris', vendor: 'VMware' },
    { key: 'esx1', assetType: 'HYPERVISOR', displayName: 'esx-01', hostname: 'esx-01', serialNumber: 'SRV-ESX-0001', site: 'paris', environment: 'production', customAttributes: { cpuCount: 64, hypervisorProduct: 'ESXi' } },
    { key: 'vm1', assetType: 'VM', displayName: 'web-01', hostname: 'web-01', fqdn: 'web-01.lab.example.com', site: 'paris', environment: 'production', macAddresses: ['00:50:56:aa:00:01'], ipAddresses: ['10.0.0.11'], customAttributes: { powerState: 'poweredOn', cpuCount: 4 } },
    { key: 'vm2', assetType: 'VM', displayName: 'db-01', hostname: 'db-01', site: 'berlin', environment: 'staging', macAddresses: ['00:50:56:aa:00:02'], ipAddresses: ['10.0.1.12'] },
    { key: 'phys', assetType: 'PHYSICAL_HOST', displayName: 'bare-01', hostname: 'bare-01', serialNumber: 'SRV-BARE-0001', site: 'berlin', environment: 'production' },
    { key: 'ctr', assetType: 'CONTAINER', displayName: 'nginx-ctr', customAttributes: { image: 'nginx:1.27' } },
    { key: 'sw', assetType: 'SOFTWARE', displayName: 'PostgreSQL 16', vendor: 'PostgreSQL Global Development Group', model: '16.4' },
    { key: 'svc', assetType: 'SERVICE', displayName: 'sshd' },
    { key: 'ds', assetType: 'DATASTORE', displayName: 'datastore-ssd' },
    { key: 'pool', assetType: 'STORAGE_POOL', displayName: 'pool-a' },
    { key: 'vsw', assetType: 'VSWITCH', displayName: 'vSwitch0' },
    { key: 'pg', assetType: 'PORT_GROUP', displayName: 'VM Network' },
    { key: 'net', assetType: 'NETWORK', displayName: 'lab-net' },
    { key: 'acct', assetType: 'CLOUD_ACCOUNT', displayName: 'aws-prod' },
    { key: 'region', assetType: 'CLOUD_REGION', displayName: 'eu-west-1' },
    { key: 'rds', assetType: 'CLOUD_DATABASE', displayName: 'orders-db', customAttributes: { instanceId: 'db-ORDERS' } },
    { key: 's3', assetType: 'CLOUD_STORAGE', displayName: 'backups-bucket' },
    { key: 'lb', assetType: 'CLOUD_LOAD_BALANCER', displayName: 'public-lb' },
    { key: 'stack', assetType: 'CLOUD_STACK', displayName: 'orders-stack' },
    { key: 'sw1', assetType: 'NETWORK_DEVICE', displayName: 'core-switch-01', serialNumber: 'FOC1234X0AB', site: 'paris' },
    { key: 'printer', assetType: 'PRINTER', displayName: 'printer-3f' },
    { key: 'cluster', assetType: 'CLUSTER', displayName: 'cluster-a' },
    { key: 'unknown', assetType: 'UNKNOWN_ENDPOINT', displayName: '10.0.9.9', ipAddresses: ['10.0.9.9'] },
  ],
  relationships: [
    { type: 'MANAGED_BY', source: 'esx1', target: 'vc' },
    { type: 'HOSTS_VM', source: 'esx1', target: 'vm1' },
    { type: 'HOSTS_VM', source: 'esx1', target: 'vm2' },
    { type: 'HOSTS_CONTAINER', source: 'vm1', target: 'ctr' },
    { type: 'RUNS_ON', source: 'sw', target: 'vm2' },
    { type: 'RUNS_ON', source: 'svc', target: 'phys' },
    { type: 'USES_DATASTORE', source: 'esx1', target: 'ds' },
    { type: 'CONTAINS', source: 'phys', target: 'pool' },
    { type: 'CONTAINS', source: 'esx1', target: 'vsw' },
    { type: 'CONTAINS', source: 'esx1', target: 'pg' },
    { type: 'CONTAINS', source: 'phys', target: 'net' },
    { type: 'CONTAINS', source: 'acct', target: 'region' },
    { type: 'CONTAINS', source: 'region', target: 'rds' },
    { type: 'CONTAINS', source: 'region', target: 's3' },
    { type: 'CONTAINS', source: 'acct', target: 'lb' },
    { type: 'CONTAINS', source: 'region', target: 'stack' },
    { type: 'COMMUNICATES_WITH', source: 'vm1', target: 'vm2' },
  ],
};

// A ring of four hosts (a path of four hops leads from each back to itself) with a VM on one.
export const LOOPED_ESTATE = {
  source: 'looped',
  assets: [
    { key: 'a', assetType: 'HYPERVISOR', displayName: 'ring-a', serialNumber: 'RING-A-0001' },
    { key: 'b', assetType: 'PHYSICAL_HOST', displayName: 'ring-b', serialNumber: 'RING-B-0001' },
    { key: 'c', assetType: 'PHYSICAL_HOST', displayName: 'ring-c', serialNumber: 'RING-C-0001' },
    { key: 'd', assetType: 'PHYSICAL_HOST', displayName: 'ring-d', serialNumber: 'RING-D-0001' },
    { key: 'vm', assetType: 'VM', displayName: 'ring-vm', serialNumber: 'RING-VM-0001' },
  ],
  relationships: [
    { type: 'COMMUNICATES_WITH', source: 'a', target: 'b' },
    { type: 'COMMUNICATES_WITH', source: 'b', target: 'c' },
    { type: 'COMMUNICATES_WITH', source: 'c', target: 'd' },
    { type: 'COMMUNICATES_WITH', source: 'd', target: 'a' },
    { type: 'HOSTS_VM', source: 'a', target: 'vm' },
  ],
};

export type EstateIds = Record<string, string>;

export async function importEstate(client: ApiClient, bundle: object = ESTATE): Promise<EstateIds> {
  const res = await client.post('/api/v1/import', bundle);
  if (res.status !== 200) throw new Error(`import failed: ${res.status} ${res.text}`);
  return Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
}

/**
 * A complete SSH read of host 10.9.0.1 (app-01, or the host name given) with established
 * connections to these addresses, loaded as a discovery run loads it: a connection's peer gains a
 * COMMUNICATES_WITH edge, and one no longer seen loses it.
 */
export async function loadSshRead(service: TestService, connectedTo: string[], hostname = 'app-01'): Promise<void> {
  const container = service.running.container;
  const target = await container.targets.create({ kind: 'SYSTEM', name: 'test' }, { name: `ssh read ${Date.now()}`, addresses: ['10.9.0.1'], methods: ['SSH'] });
  const run = await container.runs.create(target.id, target.name, 'MANUAL');
  const observation = {
    ...emptyObservation('10.9.0.1', 'SSH', 'SERVER'), hostname, macAddresses: ['02:09:00:00:00:01'], ipAddresses: ['10.9.0.1'],
    connections: connectedTo.map((remoteAddress) => ({ localAddress: '10.9.0.1', localPort: 40000, remoteAddress, remotePort: 5432 })),
    complete: new Set(OBSERVED_SCOPES),
  };
  const result: AddressResult = { address: '10.9.0.1', responding: true, openPorts: [22], attempted: ['SSH'], observations: [observation], errors: [] };
  await container.observationLoader.load(run?.id as string, [result], 22, new Date().toISOString());
}
