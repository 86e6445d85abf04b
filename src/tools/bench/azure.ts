// The azure section: a tenant of 10,000 virtual machines over 10 subscriptions (the double of
// src/tools/azure over HTTPS, each VM the azure-rest-api-specs VirtualMachines example with its own
// name, id and vmId, served in pages of 1,000), read by the connector alone (the SDK's requests, the
// estate made) beside its floor (the same VirtualMachines_ListAll pages through the SDK, nothing
// mapped), with the API requests each took, then inventoried by the whole service through its API
// (an AZURE target, scanned three times: the first run creates the estate, the others find it unchanged).
import https from 'node:https';
import os from 'node:os';
import tls from 'node:tls';
import { ComputeManagementClient } from '@azure/arm-compute';
import { ClientSecretCredential } from '@azure/identity';
import type { RevealedCredential } from '../../features/credentials/credential-service.js';
import { AZURE_DEFAULTS } from '../../features/discovery/connectors/azure/azure.js';
import { toEstate } from '../../features/discovery/connectors/azure/azure-estate.js';
import { readAzure, type AzureReadOptions } from '../../features/discovery/connectors/azure/azure-read.js';
import { AzureDouble, exampleItems } from '../azure/azure-double.js';
import { freePort } from './aws.js';
import { elapsedMs, int, loadAverage, machine, median, scanRepeatedly, withDataDir, withService, writeSection, type BenchRunView } from './support.js';

const SUBSCRIPTIONS = 10;
const PER_SUBSCRIPTION = 1000;
const PAGE = 1000;
const READS = 3;
const RUNS = 3;
const RUN_DEADLINE_MS = 20 * 60_000;
const TENANT = '31c75423-32d6-4322-88b7-c478bdde4858';
const CLIENT_ID = 'b0c3a2e1-4f5d-4e6a-9b7c-8d9e0f1a2b3c';
const SECRET = 'bench-client-secret';

interface RunView extends BenchRunView {
  summary: { hostsResponding: number; assetsCreated: number; assetsUpdated: number; errors: number };
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const subscriptionId = (s: number) => `291bba3f-e0a5-47bc-a099-${hex(s, 12)}`;

/** The tenant: the published subscription, VM and location examples, each with its own ids; every other list empty. */
function putTenant(double: AzureDouble): void {
  const [subscription] = exampleItems('subscriptions');
  double.put('/subscriptions', Array.from({ length: SUBSCRIPTIONS }, (_, s) => JSON.parse(JSON.stringify(subscription).split('291bba3f-e0a5-47bc-a099-3bdcb2a50a05').join(subscriptionId(s)).replace('Example Subscription', `Example Subscription ${s + 1}`))));
  for (let s = 0; s < SUBSCRIPTIONS; s++) {
    const id = subscriptionId(s);
    const at = `/subscriptions/${id}`;
    double.put(`${at}/locations`, exampleItems('locations', [['291bba3f-e0a5-47bc-a099-3bdcb2a50a05', id]]));
    double.put(`${at}/providers/Microsoft.Compute/virtualMachines`, Array.from({ length: PER_SUBSCRIPTION }, (_, i) => {
      const n = s * PER_SUBSCRIPTION + i;
      return exampleItems('virtual-machines', [['{subscriptionId}', id], ['{resourceGroupName}', 'rg1'], ['{virtualMachineName}', `vm-${n}`], ['{networkInterfaceName}', `nic-${n}`], ['{vmId}', `0f47b100-583c-48e3-a4c0-${hex(n, 12)}`]])[0] as Record<string, unknown>;
    }));
    for (const list of ['providers/Microsoft.Network/virtualNetworks', 'providers/Microsoft.Network/networkInterfaces', 'providers/Microsoft.Network/loadBalancers', 'providers/Microsoft.Storage/storageAccounts', 'providers/Microsoft.Sql/servers', 'resourcegroups']) double.put(`${at}/${list}`, []);
  }
}

export async function azureBench(): Promise<void> {
  const load = loadAverage();
  const double = await new AzureDouble({ clients: { [CLIENT_ID]: SECRET }, pageSize: PAGE }).start();
  try {
    putTenant(double);
    const endpoints = { resourceManager: double.url, login: double.url };
    const credential = { id: 'bench', name: 'bench', kind: 'AZURE_CLIENT_SECRET', settings: { tenantId: TENANT, clientId: CLIENT_ID }, secrets: { clientSecret: SECRET } } as unknown as RevealedCredential;
    const options = (): AzureReadOptions => ({ endpoints, caCertificate: double.certificate, subscriptionConcurrency: AZURE_DEFAULTS.subscriptionConcurrency, maxRetries: AZURE_DEFAULTS.maxRetries, connectTimeoutMs: 5000, requestTimeoutMs: AZURE_DEFAULTS.requestTimeoutMs, maxResources: AZURE_DEFAULTS.maxResources, deadline: Date.now() + RUN_DEADLINE_MS });

    const reads: { ms: number; calls: number; served: number; assets: number }[] = [];
    const floors: { ms: number; pages: number; served: number }[] = [];
    for (let i = 0; i < READS; i++) {
      // The floor: a token and the VM pages alone through the SDK, the subscriptions as many at a time as the read takes them.
      let before = double.total;
      let start = process.hrtime.bigint();
      let pages = 0;
      const agent = new https.Agent({ keepAlive: true, ca: [...tls.rootCertificates, double.certificate] });
      const signIn = new ClientSecretCredential(TENANT, CLIENT_ID, SECRET, { authorityHost: double.url, disableInstanceDiscovery: true, agent });
      const queue = Array.from({ length: SUBSCRIPTIONS }, (_, s) => subscriptionId(s));
      await Promise.all(Array.from({ length: AZURE_DEFAULTS.subscriptionConcurrency }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          const compute = new ComputeManagementClient(signIn, id, { endpoint: double.url, agent });
          for await (const page of compute.virtualMachines.listAll().byPage()) pages += page.length ? 1 : 0;
        }
      }));
      agent.destroy();
      floors.push({ ms: elapsedMs(start), pages, served: double.total - before });
      before = double.total;
      start = process.hrtime.bigint();
      const result = await readAzure('127.0.0.1', [credential], options());
      if (!result.read || result.errors.length) throw new Error(`the read failed: ${JSON.stringify(result.errors)}`);
      const estate = toEstate(result.read);
      reads.push({ ms: elapsedMs(start), calls: result.calls, served: double.total - before, assets: estate.assets.length });
      console.log(`read ${i + 1}/${READS}: ${JSON.stringify({ floor: floors.at(-1), read: reads.at(-1) })}`);
    }
    const runs = await withDataDir(async (dataDir) =>
      withService(dataDir, { localPostgresPort: await freePort(), localNeo4jBoltPort: await freePort(), discoveryLeaseMs: 30 * 60_000 }, async (_service, api) => {
        const credentialId = (await api.post<{ data: { id: string } }>('/api/v1/credentials', { name: 'azure', kind: 'AZURE_CLIENT_SECRET', matchPatterns: [], settings: { tenantId: TENANT, clientId: CLIENT_ID }, secrets: { clientSecret: SECRET } })).data.id;
        const targetId = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'azure', addresses: ['127.0.0.1'], methods: ['AZURE'], credentialIds: [credentialId], settings: { AZURE: { endpoints, caCertificate: double.certificate } } })).data.id;
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
    const vms = SUBSCRIPTIONS * PER_SUBSCRIPTION;
    writeSection('azure', `## Azure discovery (${int(vms)} virtual machines over ${SUBSCRIPTIONS} subscriptions)

${machine()} · load average ${load} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end

Scale: ${int(vms)} virtual machines, ${int(PER_SUBSCRIPTION)} in each of ${SUBSCRIPTIONS} subscriptions, in the Azure double (\`src/tools/azure/azure-double.ts\`, HTTPS on loopback, every request's bearer token checked): each the azure-rest-api-specs VirtualMachines example with its own name, id and vmId, served in pages of ${int(PAGE)}; each subscription with the GetLocations example's two locations and no networks, interfaces, load balancers, storage, SQL servers or resource groups. Read with the connector's defaults: ${AZURE_DEFAULTS.subscriptionConcurrency} subscriptions at a time, the official Azure SDK (@azure/identity, the arm-* clients). The estate: ${int(read.assets)} assets (the subscriptions, their locations, the VMs).

| | Time | API requests | Against the floor |
|---|---|---|---|
| Floor: a token and the VM pages alone through the SDK (VirtualMachines_ListAll in each subscription, nothing mapped), median of ${READS} | ${seconds(floor, 2)} | ${int(floors[0]?.served ?? 0)} (${int(floors[0]?.pages ?? 0)} pages of VMs) | 1.00× |
| Read alone: sign-in, subscriptions, and every part of every subscription, the estate made, median of ${READS} | ${seconds(readMs, 2)} | ${int(read.calls)} (the double answered ${int(read.served)}) | ${ratio(readMs)} |
| Whole run through the API, first (creates ${int(first.summary.assetsCreated)} assets) | ${seconds(firstMs, 1)} | as above | ${ratio(firstMs)} |
| Whole run, rescans (nothing changed), median of ${rest.length} | ${seconds(rescanMs, 1)} | as above | ${ratio(rescanMs)} |

The requests of a read: the token (and Entra ID's metadata document), 1 Subscriptions_List, and in each subscription 1 ListLocations, ${PER_SUBSCRIPTION / PAGE} page${PER_SUBSCRIPTION / PAGE === 1 ? '' : 's'} of VMs, 3 network lists, 1 storage, 1 SQL and 1 resource-group list. A smaller run than the 100,000-asset estate of the sections above (the 10,000 instances that issue 40 names for AWS, here as VMs), each figure beside the bare SDK read of the same pages (the floor) in the same run.
`);
  } finally {
    await double.stop();
  }
}
