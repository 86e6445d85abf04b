// Discovery of a Microsoft Entra tenant's subscriptions (method AZURE) through the service's API, with
// the official Azure SDK as the connector's client throughout (@azure/identity against Entra ID's
// token endpoint, the arm-* clients against Resource Manager, both played by the double of
// src/tools/azure/azure-double.ts over HTTPS, which answers with the azure-rest-api-specs examples of
// test/fixtures/azure; @azure/storage-blob against the storage accounts' blob service, a real
// azurite that takes the double's tokens). The estate as sets of tuples with the spec's parent rules,
// every pager followed (the double serves one item per page), 429 with Retry-After answered, a rescan
// that changes only seen-times, a removed resource retired only after its own part was read in full
// (not while its subscription or its blob service fails), a wrong secret, an unreachable endpoint,
// and the secret kept out of the run and the log.
import type { ApiClient } from '../support/api-client.js';
import { AzureDouble, exampleItems } from '../../src/tools/azure/azure-double.js';
import { Azurite } from '../../src/tools/azure/azurite.js';
import { cloudEstate, attributesOf, createTarget, runErrors, scanToEnd } from '../support/discovery-scans.js';
import { freePort } from '../support/free-port.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

// The subscriptions and tenant of GetSubscriptions.json.
const SUB = '291bba3f-e0a5-47bc-a099-3bdcb2a50a05';
const SUB2 = '72ac930a-f34e-42d8-b06d-dc2a9e12ed71';
const TENANT = '31c75423-32d6-4322-88b7-c478bdde4858';
const CLIENT_ID = 'b0c3a2e1-4f5d-4e6a-9b7c-8d9e0f1a2b3c';
const SECRET = 'Xk28Q~inventory-reader-secret.4fZp0d';
const TEST_TIMEOUT_MS = 300_000;
const at = (sub: string) => `/subscriptions/${sub}`;
const PATHS = {
  locations: (s: string) => `${at(s)}/locations`,
  vms: (s: string) => `${at(s)}/providers/Microsoft.Compute/virtualMachines`,
  vnets: (s: string) => `${at(s)}/providers/Microsoft.Network/virtualNetworks`,
  nics: (s: string) => `${at(s)}/providers/Microsoft.Network/networkInterfaces`,
  lbs: (s: string) => `${at(s)}/providers/Microsoft.Network/loadBalancers`,
  accounts: (s: string) => `${at(s)}/providers/Microsoft.Storage/storageAccounts`,
  servers: (s: string) => `${at(s)}/providers/Microsoft.Sql/servers`,
  groups: (s: string) => `${at(s)}/resourcegroups`,
};

// The examples use their own placeholders and subscription ids: each is put in the first
// subscription, and the examples that must agree name one another's documented resources: the VM is
// the network interface example's vm1 (rg1, test-nic) in vnet1's subnet test-1, the containers are
// sto3699's, the SQL databases sqlcrudtest-4645's, and the resource group (testcmk3) and its
// deployment the ones that created sto3699. The storage accounts' blob endpoints are azurite's (path-style
// on loopback), which holds sto3699's containers.
const VM = (): [string, string][] => [['{subscriptionId}', SUB], ['{resourceGroupName}', 'rg1'], ['{virtualMachineName}', 'vm1'], ['{networkInterfaceName}', 'test-nic'], ['{vmId}', '0f47b100-583c-48e3-a4c0-aefc2c9bbcc1']];
const NIC = (): [string, string][] => [['subid', SUB], ['rg1-vnet/subnets/default', 'vnet1/subnets/test-1']];
const IP_CONFIGURATION = `/subscriptions/${SUB}/resourceGroups/rg1/providers/Microsoft.Network/networkInterfaces/test-nic/ipConfigurations/ipconfig1`;

/** The load balancer example with vm1's interface in its backend pool belb (the example's pool lists no members; LoadBalancers - Get documents them as backendIPConfigurations). */
function loadBalancers(): Record<string, any>[] {
  const items = exampleItems('load-balancers', [['subid', SUB]]) as Record<string, any>[];
  (items[0] as Record<string, any>).properties.backendAddressPools[0].properties.backendIPConfigurations = [{ id: IP_CONFIGURATION }];
  return items;
}

/** The storage accounts example, each account's blob endpoint azurite's. */
const storageAccounts = (azurite: Azurite) =>
  exampleItems('storage-accounts', [['{subscription-id}', SUB], ...['sto3699', 'sto834'].map((a): [string, string] => [`https://${a}.blob.core.windows.net/`, azurite.endpoint(a)])]);

function putTenant(double: AzureDouble, azurite: Azurite): void {
  double.put('/subscriptions', exampleItems('subscriptions'));
  double.put(PATHS.locations(SUB), exampleItems('locations'));
  double.put(PATHS.vms(SUB), exampleItems('virtual-machines', VM()));
  double.put(PATHS.nics(SUB), exampleItems('network-interfaces', NIC()));
  double.put(PATHS.vnets(SUB), exampleItems('virtual-networks', [['subid', SUB]]));
  double.put(PATHS.lbs(SUB), loadBalancers());
  double.put(PATHS.accounts(SUB), storageAccounts(azurite));
  double.put(PATHS.servers(SUB), exampleItems('sql-servers', [['00000000-1111-2222-3333-444444444444', SUB]]));
  double.put(`${at(SUB)}/resourceGroups/sqlcrudtest-7398/providers/Microsoft.Sql/servers/sqlcrudtest-4645/databases`, exampleItems('sql-databases', [['00000000-1111-2222-3333-444444444444', SUB], ['Default-SQL-SouthEastAsia', 'sqlcrudtest-7398'], ['testsvr', 'sqlcrudtest-4645']]));
  double.put(PATHS.groups(SUB), exampleItems('resource-groups', [['00000000-0000-0000-0000-000000000000', SUB], ['my-resource-group', 'testcmk3']]));
  double.put(`${PATHS.groups(SUB)}/testcmk3/providers/Microsoft.Resources/deployments`, exampleItems('deployments', [['00000000-0000-0000-0000-000000000001', SUB], ['my-resource-group', 'testcmk3'], ['my-storage-account', 'sto3699']]));
  // The second subscription: the locations example's, nothing else.
  double.put(PATHS.locations(SUB2), exampleItems('locations', [[SUB, SUB2]]));
  for (const list of [PATHS.vms, PATHS.vnets, PATHS.nics, PATHS.lbs, PATHS.accounts, PATHS.servers, PATHS.groups]) double.put(list(SUB2), []);
}

describe('discovery of an Azure tenant (the Azure SDK against a double of Resource Manager and Entra ID)', () => {
  let double: AzureDouble;
  let azurite: Azurite;
  let service: TestService;
  let api: ApiClient;
  let credentialId: string;
  let targetId: string;
  let settings: Record<string, unknown>;

  beforeAll(async () => {
    double = await new AzureDouble({ clients: { [CLIENT_ID]: SECRET }, pageSize: 1 }).start();
    azurite = await new Azurite(['sto3699', 'sto834']).start();
    // The BlobContainers_List example's containers, in sto3699's blob service (sto834 holds none).
    for (const c of exampleItems('blob-containers')) await azurite.createContainer('sto3699', String(c.name), (c.properties as { publicAccess: string }).publicAccess === 'Container' ? 'container' : undefined);
    putTenant(double, azurite);
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoveryConnectTimeoutMs: 2000, aiEnabled: true });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
    const credential = await api.post('/api/v1/credentials', { name: 'azure reader', kind: 'AZURE_CLIENT_SECRET', matchPatterns: [], settings: { tenantId: TENANT, clientId: CLIENT_ID }, secrets: { clientSecret: SECRET } });
    expect(credential.status).toBe(201);
    credentialId = credential.body.data.id;
    settings = { endpoints: { resourceManager: double.url, login: double.url }, caCertificate: `${double.certificate}${azurite.certificate}`, maxRetries: 3 };
    targetId = await createTarget(api, { name: 'azure', addresses: ['127.0.0.1'], methods: ['AZURE'], credentialIds: [credentialId], settings: { AZURE: settings } });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await double?.stop();
    await azurite?.remove();
  });

  const scan = (id = targetId) => scanToEnd(api, id);
  const { assets, relationships, tuples, statusOf } = cloudEstate(() => api);
  const sorted = <T>(values: Iterable<T>) => [...values].sort();

  const S1 = 'Example Subscription';
  const S2 = 'Example Subscription2';
  const ESTATE = [
    `CLOUD_ACCOUNT ${S1}`, `CLOUD_ACCOUNT ${S2}`,
    // Each subscription's own locations.
    'CLOUD_REGION eastus', 'CLOUD_REGION eastus2', 'CLOUD_REGION eastus', 'CLOUD_REGION eastus2',
    'VM vm1',
    'NETWORK vnet1', 'NETWORK vnet1/test-1', 'NETWORK vnet2',
    'CLOUD_LOAD_BALANCER lb', 'CLOUD_LOAD_BALANCER lb3',
    'CLOUD_STORAGE sto3699', 'CLOUD_STORAGE sto834', 'CLOUD_STORAGE sto3699/container1644', 'CLOUD_STORAGE sto3699/container4052',
    'CLOUD_DATABASE sqlcrudtest-4645', 'CLOUD_DATABASE sqlcrudtest-4645/testdb', 'CLOUD_DATABASE sqlcrudtest-4645/master',
    'CLOUD_STACK testcmk3', 'CLOUD_STACK testcmk3/my-deployment',
  ];
  const EDGES = [
    `CONTAINS ${S1} -> eastus`, `CONTAINS ${S1} -> eastus2`, `CONTAINS ${S2} -> eastus`, `CONTAINS ${S2} -> eastus2`,
    // In a location the subscription lists (eastus): that location; elsewhere (westus, japaneast, southeastasia): the subscription.
    'CONTAINS eastus -> vm1', 'CONTAINS eastus -> sto3699', 'CONTAINS eastus -> sto834', 'CONTAINS eastus -> sto3699/container1644', 'CONTAINS eastus -> sto3699/container4052',
    `CONTAINS ${S1} -> vnet1`, `CONTAINS ${S1} -> vnet2`, `CONTAINS ${S1} -> lb`, `CONTAINS ${S1} -> lb3`,
    `CONTAINS ${S1} -> sqlcrudtest-4645`, `CONTAINS ${S1} -> sqlcrudtest-4645/testdb`, `CONTAINS ${S1} -> sqlcrudtest-4645/master`,
    `CONTAINS ${S1} -> testcmk3`, `CONTAINS ${S1} -> testcmk3/my-deployment`,
    'CONTAINS vnet1 -> vnet1/test-1', 'CONTAINS vnet1/test-1 -> vm1',
    'CONTAINS sto3699 -> sto3699/container1644', 'CONTAINS sto3699 -> sto3699/container4052',
    'CONTAINS sqlcrudtest-4645 -> sqlcrudtest-4645/testdb', 'CONTAINS sqlcrudtest-4645 -> sqlcrudtest-4645/master',
    // The resource group holds sto3699 and the deployment; the deployment created sto3699.
    'CONTAINS testcmk3 -> sto3699', 'CONTAINS testcmk3 -> testcmk3/my-deployment', 'CONTAINS testcmk3/my-deployment -> sto3699',
    'COMMUNICATES_WITH lb -> vm1',
  ];

  it("gives exactly the tenant's subscriptions, locations, VMs, networks, storage, databases, load balancers and stacks, with the spec's parent rules, every page read", async () => {
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    const rows = await assets();
    expect(sorted(rows.map((a) => `${a.assetType} ${a.displayName}`))).toEqual(sorted(ESTATE));
    const byName = new Map(rows.map((a) => [a.displayName, a]));
    // Parents (spec 2.4): the CLOUD types from their location or subscription (CONTAINS); a
    // subscription is a root; a VM (HOSTS_VM from a hypervisor) and a NETWORK (CONTAINS from a host) have none in a cloud.
    expect(byName.get(S1)?.parent).toBeUndefined();
    const s1Locations = rows.filter((a) => a.assetType === 'CLOUD_REGION' && a.parent?.displayName === S1);
    expect(sorted(s1Locations.map((a) => a.displayName))).toEqual(['eastus', 'eastus2']);
    for (const name of ['sto3699', 'sto834', 'sto3699/container1644']) expect(byName.get(name)?.parent).toMatchObject({ assetType: 'CLOUD_REGION', displayName: 'eastus', via: 'CONTAINS' });
    for (const name of ['lb', 'sqlcrudtest-4645', 'sqlcrudtest-4645/testdb', 'testcmk3', 'testcmk3/my-deployment']) expect(byName.get(name)?.parent).toMatchObject({ assetType: 'CLOUD_ACCOUNT', displayName: S1, via: 'CONTAINS' });
    for (const name of ['vm1', 'vnet1', 'vnet1/test-1']) expect(byName.get(name)?.parent).toBeUndefined();
    expect(sorted(tuples(await relationships()))).toEqual(sorted(EDGES));

    // The VM's facts and identity: its resource id and its interface's MAC, never its private address.
    const vm = (await api.get(`/api/v1/assets/${byName.get('vm1')?.id}`)).body.data;
    expect(await attributesOf(api, vm.id)).toMatchObject({
      provider: 'AZURE', tenantId: TENANT, accountId: SUB, instanceId: `/subscriptions/${SUB}/resourcegroups/rg1/providers/microsoft.compute/virtualmachines/vm1`,
      vmId: '0f47b100-583c-48e3-a4c0-aefc2c9bbcc1', vmSize: 'Standard_A0', osType: 'Windows', image: 'MicrosoftWindowsServer:WindowsServer:2012-R2-Datacenter:4.127.20170406', privateIpAddress: '172.20.2.4', region: 'eastus',
    });
    expect(vm).toMatchObject({ macAddresses: ['00:0d:3a:1b:c7:21'], ipAddresses: [], model: 'Standard_A0' });
    // The containers from the blob service, never from Resource Manager.
    expect(await attributesOf(api, byName.get('sto3699/container1644')?.id as string)).toMatchObject({ kind: 'blobContainer', publicAccess: 'container', instanceId: `/subscriptions/${SUB}/resourcegroups/testcmk3/providers/microsoft.storage/storageaccounts/sto3699/blobservices/default/containers/container1644` });
    expect(await attributesOf(api, byName.get('sto3699/container4052')?.id as string)).toMatchObject({ publicAccess: 'none' });
    expect([...double.requests.keys()].filter((path) => path.includes('/blobservices/'))).toEqual([]);
    expect(await attributesOf(api, byName.get('sqlcrudtest-4645/testdb')?.id as string)).toMatchObject({ engine: 'sqlserver', sku: 'BC_Gen4', status: 'Online', databaseId: '6c764297-577b-470f-9af4-96d3d41e2ba3' });

    // Every pager followed: one item per page, so a list of n items takes n requests (one for none), its nextLink each time.
    const requests = (path: string) => double.requests.get(path.toLowerCase());
    expect(requests('/subscriptions')).toBe(2);
    expect(requests(PATHS.nics(SUB))).toBe(2);
    expect(requests(PATHS.accounts(SUB))).toBe(2);
    expect(requests(`${at(SUB)}/resourceGroups/sqlcrudtest-7398/providers/Microsoft.Sql/servers/sqlcrudtest-4645/databases`)).toBe(2);
    // Locations are not paged: one request each.
    expect(requests(PATHS.locations(SUB))).toBe(1);
    const host = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(host).toEqual([expect.objectContaining({ address: '127.0.0.1', methods: ['AZURE'], outcome: 'SUCCESS', assetId: byName.get(S1)?.id })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan', async () => {
    const strip = <T extends Record<string, unknown>>(rows: T[]) =>
      rows.map(({ lastSeenAt: _seen, lastScanAt: _scanned, ...rest }) => rest).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const [beforeAssets, beforeEdges] = [strip(await assets()), strip(await relationships())];
    expect((await scan()).status).toBe('COMPLETED');
    const afterAssets = await assets();
    expect(strip(afterAssets)).toEqual(beforeAssets);
    expect(strip(await relationships())).toEqual(beforeEdges);
  }, TEST_TIMEOUT_MS);

  it('answers 429 with Retry-After by waiting and asking again; throttled beyond the retries, that part is reported and retires nothing', async () => {
    const before = double.requests.get(PATHS.vms(SUB).toLowerCase()) ?? 0;
    double.throttle(PATHS.vms(SUB), 2);
    const run = await scan();
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { errors: 0 } });
    // The one page of the read, and the two throttled requests before it.
    expect((double.requests.get(PATHS.vms(SUB).toLowerCase()) ?? 0) - before).toBe(1 + 2);
    expect(await statusOf('vm1')).toBe('ACTIVE');

    double.throttle(PATHS.vms(SUB), 4);
    const throttled = await scan();
    expect(throttled.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await runErrors(api, throttled.id)).toEqual([{ address: '127.0.0.1', method: 'AZURE', stage: 'collect', code: 'AZURE_THROTTLED' }]);
    expect(await statusOf('vm1')).toBe('ACTIVE');
  }, TEST_TIMEOUT_MS);

  it("retires a removed blob container only after its account's blob service was read in full; a blob service that fails retires nothing of its own", async () => {
    await azurite.deleteContainer('sto3699', 'container4052');
    await azurite.stop();
    const failing = await scan();
    expect(failing.status).toBe('COMPLETED_WITH_ERRORS');
    // Each account's blob service failed on its own; Resource Manager's parts were read in full.
    const errors = (await api.get(`/api/v1/discovery/runs/${failing.id}`)).body.data.errors as { stage: string; code: string; message: string }[];
    expect(errors.map((e) => `${e.stage} ${e.code}`)).toEqual(['collect CONNECTION_REFUSED', 'collect CONNECTION_REFUSED']);
    expect(sorted(errors.map((e) => /storage account (\S+)/.exec(e.message)?.[1]))).toEqual(['sto3699', 'sto834']);
    const diagnosis = (await api.post(`/api/v1/runs/${failing.id}/diagnosis`)).body.data;
    expect(diagnosis).toMatchObject({ status: 'OK', summary: expect.any(String) });
    for (const name of ['sto3699', 'sto3699/container1644', 'sto3699/container4052']) expect(await statusOf(name)).toBe('ACTIVE');
    expect(tuples(await relationships())).toContain('CONTAINS sto3699 -> sto3699/container4052');

    await azurite.start();
    expect((await scan()).status).toBe('COMPLETED');
    expect(await statusOf('sto3699/container4052')).toBe('INACTIVE');
    expect(await statusOf('sto3699/container1644')).toBe('ACTIVE');
    expect(tuples(await relationships())).not.toContain('CONTAINS sto3699 -> sto3699/container4052');
  }, TEST_TIMEOUT_MS);

  it('retires a removed resource only after its own part was read in full, and nothing of a subscription that fails', async () => {
    // Gone from the first subscription: the storage account sto834; from the second: its location eastus2.
    double.put(PATHS.accounts(SUB), storageAccounts(azurite).filter((a) => a.name !== 'sto834'));
    double.put(PATHS.locations(SUB2), exampleItems('locations', [[SUB, SUB2]]).filter((l) => l.name !== 'eastus2'));
    double.fail(at(SUB2));
    const failing = await scan();
    expect(failing.status).toBe('COMPLETED_WITH_ERRORS');
    // Each of the second subscription's six parts failed on its own; the first subscription's were read in full.
    expect((await runErrors(api, failing.id)).map((e) => `${e.stage} ${e.code}`)).toEqual(Array(6).fill('collect AZURE_API_ERROR'));
    expect(await statusOf('sto834')).toBe('INACTIVE');
    expect(tuples(await relationships())).not.toContain('CONTAINS eastus -> sto834');
    const s2Locations = async () => (await assets()).filter((a) => a.assetType === 'CLOUD_REGION' && a.parent?.displayName === S2 && a.status === 'ACTIVE').map((a) => a.displayName);
    expect(sorted(await s2Locations())).toEqual(['eastus', 'eastus2']);

    // The second subscription read in full: its location goes too.
    double.fail(at(SUB2), false);
    expect((await scan()).status).toBe('COMPLETED');
    expect(await s2Locations()).toEqual(['eastus']);
    expect(await statusOf(S2)).toBe('ACTIVE');
  }, TEST_TIMEOUT_MS);

  it('fails with AZURE_AUTH_FAILED and its diagnosis on a wrong secret, with CONNECTION_REFUSED on an unreachable endpoint, and keeps the secret out of the run and the log', async () => {
    const wrong = (await api.post('/api/v1/credentials', { name: 'azure wrong secret', kind: 'AZURE_CLIENT_SECRET', matchPatterns: [], settings: { tenantId: TENANT, clientId: CLIENT_ID }, secrets: { clientSecret: 'not-the-secret-0123456789' } })).body.data.id;
    const target = await createTarget(api, { name: 'azure refused', addresses: ['127.0.0.1'], methods: ['AZURE'], credentialIds: [wrong], settings: { AZURE: settings } });
    const refused = await scan(target);
    expect(refused.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await runErrors(api, refused.id)).toEqual([{ address: '127.0.0.1', method: 'AZURE', stage: 'authenticate', code: 'AZURE_AUTH_FAILED' }]);
    const run = (await api.get(`/api/v1/discovery/runs/${refused.id}`)).body;
    expect(JSON.stringify(run)).toContain('AADSTS7000215');
    const diagnosis = (await api.post(`/api/v1/runs/${refused.id}/diagnosis`)).body.data;
    expect(diagnosis).toMatchObject({ status: 'OK', summary: expect.stringContaining('Microsoft Entra ID refused the service principal') });
    for (const text of [JSON.stringify(run), JSON.stringify(diagnosis), ...service.logLines]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('not-the-secret-0123456789');
    }

    const closed = `https://127.0.0.1:${await freePort()}`;
    const down = await createTarget(api, { name: 'azure down', addresses: ['127.0.0.1'], methods: ['AZURE'], credentialIds: [credentialId], settings: { AZURE: { ...settings, endpoints: { resourceManager: double.url, login: closed }, maxRetries: 0 } } });
    const unreachable = await scan(down);
    expect(unreachable.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await runErrors(api, unreachable.id)).toEqual([{ address: '127.0.0.1', method: 'AZURE', stage: 'connect', code: 'CONNECTION_REFUSED' }]);
  }, TEST_TIMEOUT_MS);

  it('refuses settings and credentials that are not valid, and writes nothing', async () => {
    for (const bad of [{ subscriptions: ['not-a-subscription'] }, { endpoints: { resourceManager: 'http://127.0.0.1:1' } }, { endpoints: { storage: 'https://127.0.0.1:1' } }]) {
      const res = await api.post('/api/v1/discovery/targets', { name: 'azure bad', addresses: ['127.0.0.1'], methods: ['AZURE'], settings: { AZURE: bad } });
      expect(res.status).toBe(400);
    }
    const credential = await api.post('/api/v1/credentials', { name: 'azure bad', kind: 'AZURE_CLIENT_SECRET', matchPatterns: [], settings: { tenantId: TENANT, clientId: 'not-a-guid' }, secrets: { clientSecret: SECRET } });
    expect(credential.status).toBe(400);
    expect((await api.get('/api/v1/discovery/targets?size=100')).body.data.filter((t: { name: string }) => t.name === 'azure bad')).toEqual([]);
  }, TEST_TIMEOUT_MS);
});
