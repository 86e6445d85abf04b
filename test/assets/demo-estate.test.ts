import { GRAPH_TYPES } from '../../src/features/inventory/asset-taxonomy.js';
import { demoEstate } from '../../src/tools/demo-estate.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('the demo estate', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
  });
  afterAll(() => service.stop());

  it('is the same for the same seed, and holds every graph type an estate of servers and VMs has', () => {
    const bundles = demoEstate(300);
    expect(JSON.stringify(demoEstate(300))).toEqual(JSON.stringify(bundles));
    const types = new Set(bundles.flatMap((b) => b.assets.map((a) => a.assetType)));
    const expected = GRAPH_TYPES.filter((t) => !['IOT_DEVICE', 'SERVER', 'FLOW_EXPORTER'].includes(t));
    for (const type of expected) expect(types).toContain(type);
  });

  it('loads through the import path, every VM under its hypervisor, and loads again without a twin', async () => {
    const principals = await createPrincipals(service.url);
    const actor = { kind: 'SYSTEM' as const, name: 'test' };
    let first = 0;
    for (const bundle of demoEstate(120)) first += (await service.running.container.importer.import(actor, bundle)).created;
    let second = 0;
    for (const bundle of demoEstate(120)) second += (await service.running.container.importer.import(actor, bundle)).created;
    expect(first).toBeGreaterThan(500);
    expect(second).toBe(0);
    const vms = await principals.viewer.get('/api/v1/assets?type=VM&size=1000');
    expect(vms.body.total).toBeGreaterThan(80);
    expect(vms.body.data.every((vm: { parent?: { assetType: string; via: string } }) => vm.parent?.assetType === 'HYPERVISOR' && vm.parent.via === 'HOSTS_VM')).toBe(true);
    const vcenters = await principals.viewer.get('/api/v1/assets?type=VIRTUALIZATION_MANAGER');
    expect(vcenters.body.total).toBe(4);
    const db = service.running.container.db;
    const count = async (table: string, where: Record<string, string> = {}) => Number((await db(table).where(where).count<{ c: string }[]>('* as c'))[0]?.c);
    expect(await count('software_packages')).toBeGreaterThan(1000);
    expect(await count('running_processes')).toBeGreaterThan(500);
    expect(await count('discovered_services')).toBeGreaterThan(300);
    expect(await count('interface_connections', { discovered_via: 'LLDP' })).toBeGreaterThan(0);
    expect(await count('interface_connections', { discovered_via: 'FDB' })).toBeGreaterThan(0);
  });
});
