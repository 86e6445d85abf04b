import { fdbLinks } from '../../src/features/inventory/interface-connections.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, createPrincipals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const HOSTS = [
  { key: 'web', assetType: 'VM', hostname: 'web-01', serialNumber: 'VMW-WEB-01' },
  { key: 'db', assetType: 'VM', hostname: 'db-01', serialNumber: 'VMW-DB-01' },
  { key: 'esx', assetType: 'HYPERVISOR', hostname: 'esx-01', serialNumber: 'ESX-SUB-01' },
  { key: 'sw1', assetType: 'NETWORK_DEVICE', hostname: 'sw-01', serialNumber: 'SW-SUB-01' },
  { key: 'sw2', assetType: 'NETWORK_DEVICE', hostname: 'sw-02', serialNumber: 'SW-SUB-02' },
  { key: 'pg', assetType: 'SOFTWARE', displayName: 'PostgreSQL' },
];

// Observation times of the loads, in the past but within the import's window (the retention days):
// the days of a month that began 25 days ago.
const FIRST_DAY = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 25 * 86_400_000;
const on = (day: number, hour = 0) => new Date(FIRST_DAY + (day - 1) * 86_400_000 + hour * 3_600_000).toISOString();

describe('sub-records', () => {
  let service: TestService;
  let key: ApiClient;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, fdbMaxMacsPerAccessPort: 3 });
    key = (await createPrincipals(service.url)).integrationKey;
  });
  afterAll(() => service.stop());
  const db = () => service.running.container.db;
  const load = async (bundle: object, observedAt: string) => {
    const res = await key.post('/api/v1/import', { source: 'ssh', observedAt, assets: HOSTS, relationships: [{ type: 'RUNS_ON', source: 'pg', target: 'db' }], ...bundle });
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.body.data;
  };

  it('upserts a package by asset and name: an upgrade keeps its id and first_seen_at', async () => {
    await load({ software: [{ asset: 'web', packageName: 'openssl', version: '3.0.11', packageManager: 'dpkg', publisher: 'Debian' }] }, on(1, 10));
    const [before] = await db()('software_packages').where({ package_name: 'openssl' });
    const result = await load({ software: [{ asset: 'web', packageName: 'openssl', version: '3.0.15', packageManager: 'dpkg' }] }, on(20, 10));
    expect(result.subRecords.packages).toBe(1);
    const rows = await db()('software_packages').where({ package_name: 'openssl' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: before.id, version: '3.0.15', source: 'ssh' });
    expect(rows[0].first_seen_at.toISOString()).toBe(on(1, 10));
    expect(rows[0].last_seen_at.toISOString()).toBe(on(20, 10));
  });

  it('upserts a service by asset and name with its listen ports, first_seen_at kept', async () => {
    await load({ services: [{ asset: 'db', serviceName: 'postgresql', state: 'running', listenPorts: [{ protocol: 'tcp', port: 5432 }] }] }, on(2));
    await load({ services: [{ asset: 'db', serviceName: 'postgresql', state: 'stopped', listenPorts: [] }] }, on(3));
    const rows = await db()('discovered_services').where({ service_name: 'postgresql' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: 'stopped', listen_ports: [], source_connector: 'IMPORT' });
    expect(rows[0].first_seen_at.toISOString()).toBe(on(2));
  });

  it('replaces the processes of an observed asset wholesale, leaves other assets alone, and links a process to its software', async () => {
    await load({ processes: [
      { asset: 'db', pid: 1, processName: 'systemd' },
      { asset: 'db', pid: 812, processName: 'postgres', commandLine: `postgres -D /var/lib/postgresql ${'x'.repeat(5000)}`, software: 'pg', username: 'postgres', memoryKb: 120000, cpuPercent: 1.5 },
      { asset: 'web', pid: 1, processName: 'systemd' },
    ] }, on(4));
    await load({ processes: [{ asset: 'db', pid: 1, processName: 'systemd' }, { asset: 'db', pid: 930, processName: 'postgres' }] }, on(5));
    const rows = await db()('running_processes').orderBy(['asset_id', 'pid']);
    const dbRows = rows.filter((r) => r.pid !== 1 || r.observed_at.toISOString().startsWith(on(5).slice(0, 10)));
    expect(rows).toHaveLength(3);
    expect(dbRows.map((r) => r.pid).sort()).toEqual([1, 930]);
    const web = rows.find((r) => r.observed_at.toISOString().startsWith(on(4).slice(0, 10)));
    expect(web?.process_name).toBe('systemd');
    // The earlier rescan kept the link to the software and the truncated command line.
    await load({ processes: [{ asset: 'db', pid: 812, processName: 'postgres', commandLine: 'y'.repeat(5000), software: 'pg' }] }, on(6));
    const [linked] = await db()('running_processes').where({ pid: 812 });
    expect(linked.command_line).toHaveLength(4096);
    const pgAsset = (await key.get('/api/v1/assets?type=SOFTWARE&q=postgresql')).body.data[0];
    expect(linked.software_asset_id).toBe(pgAsset.id);
  });

  it('links two ports that LLDP reports, once per cable even when both ends report it', async () => {
    const result = await load({
      interfaces: [{ asset: 'sw1', name: 'Gi1/0/48', ifIndex: 48 }, { asset: 'sw2', name: 'Te1/1/1', ifIndex: 101 }],
      neighbors: [
        { asset: 'sw1', localPort: 'Gi1/0/48', remotePort: 'Te1/1/1', remoteAsset: 'sw2' },
        { asset: 'sw2', localPort: 'Te1/1/1', remotePort: 'Gi1/0/48', remoteSystemName: 'sw-01' },
        { asset: 'sw2', localPort: 'Gi1/0/1', remotePort: 'eth9', remoteSystemName: 'nobody-we-know' },
      ],
    }, on(7));
    expect(result.subRecords.unresolvedNeighbors).toBe(1);
    const rows = await db()('interface_connections as c')
      .join('network_interfaces as s', 's.id', 'c.source_interface_id')
      .join('network_interfaces as t', 't.id', 'c.target_interface_id')
      .where('c.discovered_via', 'LLDP')
      .select('s.name as source', 't.name as target', 'c.confidence', 'c.source_asset_id', 's.asset_id as sourceInterfaceAsset', 'c.target_asset_id', 't.asset_id as targetInterfaceAsset');
    expect(rows).toHaveLength(1);
    expect([rows[0].source, rows[0].target].sort()).toEqual(['Gi1/0/48', 'Te1/1/1']);
    expect(Number(rows[0].confidence)).toBe(1);
    // Each end's asset is kept beside its interface (the topology reads links by asset), whichever end reported the cable.
    expect(rows[0].source_asset_id).toBe(rows[0].sourceInterfaceAsset);
    expect(rows[0].target_asset_id).toBe(rows[0].targetInterfaceAsset);
    expect(rows[0].source_asset_id).not.toBe(rows[0].target_asset_id);
  });

  it('links a switch access port to the host NIC whose MAC it learnt (0.90), but not through an uplink or trunk', async () => {
    await load({
      interfaces: [
        { asset: 'web', name: 'eth0', macAddress: '52:54:00:00:00:01' },
        { asset: 'db', name: 'eth0', macAddress: '52:54:00:00:00:02' },
        { asset: 'esx', name: 'vmnic0', macAddress: '52:54:00:00:00:03' },
        { asset: 'sw2', name: 'Te1/1/1', macAddress: '00:1b:54:00:00:02' },
      ],
      fdb: [
        { asset: 'sw1', port: 'Gi1/0/1', macAddress: '52:54:00:00:00:01' },
        // A trunk: it has learnt more MACs than an access port may.
        ...['02', '03', '10', '11'].map((n) => ({ asset: 'sw1', port: 'Gi1/0/47', macAddress: `52:54:00:00:00:${n}` })),
        // An uplink: it has learnt the other switch's MAC.
        { asset: 'sw1', port: 'Gi1/0/48', macAddress: '00:1b:54:00:00:02' },
        { asset: 'sw1', port: 'Gi1/0/48', macAddress: '52:54:00:00:00:02' },
      ],
    }, on(8));
    const rows = await db()('interface_connections as c')
      .join('network_interfaces as s', 's.id', 'c.source_interface_id')
      .join('network_interfaces as t', 't.id', 'c.target_interface_id')
      .where('c.discovered_via', 'FDB')
      .select('s.name as port', 't.name as nic', 't.mac_address as mac', 'c.confidence', 'c.source_asset_id', 's.asset_id as switchAsset', 'c.target_asset_id', 't.asset_id as hostAsset');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ port: 'Gi1/0/1', nic: 'eth0', mac: '52:54:00:00:00:01' });
    expect(rows[0].source_asset_id).toBe(rows[0].switchAsset);
    expect(rows[0].target_asset_id).toBe(rows[0].hostAsset);
    expect(Number(rows[0].confidence)).toBe(0.9);
  });

  it('refuses sub-records that name an asset the bundle does not have', async () => {
    const res = await key.post('/api/v1/import', {
      source: 's', assets: [{ key: 'a', assetType: 'SERVER', hostname: 'a' }],
      software: [{ asset: 'ghost', packageName: 'x' }],
      processes: [{ asset: 'a', pid: 1, processName: 'init', software: 'a' }],
      neighbors: [{ asset: 'a', localPort: 'eth0', remotePort: 'p1', remoteAsset: 'ghost' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.neighbors.0.remoteAsset', 'body.processes.0.software', 'body.software.0.asset']);
  });

  it('gives new rows of every kind time-ordered ids (UUID version 7, the time of their insert)', async () => {
    const clock = async () => Number((await db().raw('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms')).rows[0].ms);
    const before = await clock();
    await load({
      software: [{ asset: 'esx', packageName: 'esx-base' }],
      processes: [{ asset: 'esx', pid: 7, processName: 'hostd' }],
      services: [{ asset: 'esx', serviceName: 'hostd', state: 'running' }],
      interfaces: [{ asset: 'esx', name: 'vmk9', ifIndex: 9 }],
    }, on(9));
    const after = await clock();
    const esx = await db()('asset_names').where({ display_name: 'esx-01' }).first('asset_id');
    const rows = { software_packages: { package_name: 'esx-base' }, running_processes: { process_name: 'hostd' }, discovered_services: { service_name: 'hostd' }, network_interfaces: { name: 'vmk9' } };
    for (const [table, named] of Object.entries(rows)) {
      const [row] = await db()(table).where({ asset_id: esx.asset_id, ...named }).select('id');
      const hex = String(row.id).replaceAll('-', '');
      expect({ table, version: hex[12] }).toEqual({ table, version: '7' });
      const ms = parseInt(hex.slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
  });
});

describe('FDB derivation', () => {
  const nic = (id: string, assetId: string, mac: string) => ({ id, assetId, macAddress: mac });
  it('keeps access ports, drops ports over the MAC limit and ports that saw a switch MAC; an unknown MAC on an access port is unmatched', () => {
    const byMac = new Map([
      ['aa', [nic('n1', 'h1', 'aa')]],
      ['bb', [nic('n2', 'h2', 'bb')]],
      ['cc', [nic('n3', 'h3', 'cc')]],
    ]);
    const links = fdbLinks(
      [
        { switchAssetId: 's', port: 'p1', macAddress: 'aa' },
        { switchAssetId: 's', port: 'p2', macAddress: 'bb' },
        { switchAssetId: 's', port: 'p2', macAddress: 'cc' },
        { switchAssetId: 's', port: 'p3', macAddress: 'cc' },
        { switchAssetId: 's', port: 'p3', macAddress: 'sw' },
        { switchAssetId: 's', port: 'p3', macAddress: 'ee' },
        { switchAssetId: 's', port: 'p4', macAddress: 'dd' },
      ],
      byMac,
      new Set(['sw']),
      1,
    );
    expect(links).toEqual({ links: [{ switchAssetId: 's', port: 'p1', hostInterfaceId: 'n1', hostAssetId: 'h1' }], unmatched: [{ switchAssetId: 's', port: 'p4', macAddress: 'dd' }] });
  });
});
