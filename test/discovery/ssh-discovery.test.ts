// Discovery over SSH and SNMP against real hosts: network namespaces with Debian's sshd, snmpd,
// lldpd and redis-server (src/tools/lab/lab-network.ts).
import { execFileSync } from 'node:child_process';
import type { RevealedCredential } from '../../src/features/credentials/credential-service.js';
import { collectSsh, type SshOptions } from '../../src/features/discovery/connectors/ssh/ssh-connector.js';
import type { ApiClient } from '../support/api-client.js';
import { describeInLab, runToEnd } from '../support/discovery-scans.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { LAB_LLDP_SOCKET, LAB_START_TIMEOUT_MS, LIMITED_USER, SLOW_SHELL_SECONDS, SLOW_USER, SCAN_PASSWORD, SCAN_USER, SNMP_COMMUNITY, startTestNetwork, SUBNET, SWITCH_SERIAL, type TestNetwork } from '../../src/tools/lab/lab-network.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const describePeers = await describeInLab('Discovery tests against namespace hosts');

const dpkgVersion = (pkg: string) => execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg]).toString();

describePeers('discovery over SSH and SNMP against namespace hosts', () => {
  let network: TestNetwork;
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let credentialId: string;
  let snmpCredentialId: string;
  let h1: string;
  let h2: string;
  let sw: string;

  beforeAll(async () => {
    network = await startTestNetwork();
    [h1, h2, sw] = [network.hosts.h1.address, network.hosts.h2.address, network.hosts.sw.address];
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoverySweepPorts: '22,6379', discoveryConnectTimeoutMs: 1000, aiEnabled: true });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
    const created = await api.post('/api/v1/credentials', {
      name: 'scan password', kind: 'SSH_PASSWORD', matchPatterns: [`${SUBNET}.0/24`], settings: { username: SCAN_USER }, secrets: { password: SCAN_PASSWORD },
    });
    expect(created.status).toBe(201);
    credentialId = created.body.data.id;
    const community = await api.post('/api/v1/credentials', { name: 'lab community', kind: 'SNMP_V2C', matchPatterns: [`${SUBNET}.0/24`], secrets: { community: SNMP_COMMUNITY } });
    expect(community.status).toBe(201);
    snmpCredentialId = community.body.data.id;
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  const db = () => service.running.container.db;
  const scan = async (name: string, addresses: string[], extra: object = {}) => {
    const targets = (await api.get(`/api/v1/discovery/targets?size=1000`)).body.data as { id: string; name: string }[];
    let id = targets.find((t) => t.name === name)?.id;
    if (!id) id = (await api.post('/api/v1/discovery/targets', { name, addresses, methods: ['SWEEP', 'SSH'], ...extra })).body.data.id;
    const queued = await api.post(`/api/v1/discovery/targets/${id}/scan`);
    expect(queued.status).toBe(202);
    return runToEnd(api, queued.body.data.id);
  };
  const assetAt = async (ip: string) => {
    const assets = (await api.get('/api/v1/assets?category=HOST,NETWORK_DEVICE&size=100')).body.data as { id: string; ipAddresses: string[] }[];
    return assets.find((h) => h.ipAddresses.includes(ip)) as Record<string, unknown> & { id: string };
  };

  /** Everything the scans wrote, without the times that a scan is allowed to move. */
  const state = async () => {
    const assets = (await api.get('/api/v1/assets?size=1000&sort=displayName,asc')).body.data.map(
      ({ lastSeenAt: _l, lastScanAt: _s, updatedAt: _u, ...a }: Record<string, unknown>) => a,
    );
    const relationships = (await api.get('/api/v1/relationships?size=1000')).body.data.map(({ lastSeenAt: _l, ...r }: Record<string, unknown>) => r);
    const rows = async (table: string, columns: string[], order: string[]) => db()(table).select(columns).orderBy(order);
    return {
      assets,
      relationships: relationships.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
      packages: await rows('software_packages', ['id', 'asset_id', 'package_name', 'version', 'first_seen_at'], ['asset_id', 'package_name']),
      services: await rows('discovered_services', ['id', 'asset_id', 'service_name', 'listen_ports', 'state', 'first_seen_at'], ['asset_id', 'service_name']),
      processes: await rows('running_processes', ['asset_id', 'pid', 'ppid', 'process_name', 'command_line', 'username', 'software_asset_id', 'source_connector'], ['asset_id', 'pid']),
      interfaces: await rows('network_interfaces', ['id', 'asset_id', 'name', 'mac_address', 'ip_addresses', 'oper_status', 'mtu', 'first_seen_at'], ['asset_id', 'name']),
      connections: await rows('interface_connections', ['source_interface_id', 'target_interface_id', 'discovered_via', 'confidence', 'first_seen_at'], ['source_interface_id', 'target_interface_id']),
    };
  };

  it('inventories the hosts: assets, applications, packages, processes, services, interfaces, LLDP connections and TCP peers', async () => {
    const run = await scan('lab', [`${SUBNET}.11-13`], { methods: ['SWEEP', 'SSH', 'SNMP'] });
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { done: 3, total: 3 }, summary: { hostsResponding: 3, assetsCreated: 3, errors: 0 }, errors: [] });

    const host1 = await assetAt(h1);
    const host2 = await assetAt(h2);
    const hostSw = await assetAt(sw);
    const macOf = async (host: 'h1' | 'h2' | 'sw') => (await network.hosts[host].exec('cat /sys/class/net/eth0/address')).trim();
    for (const [asset, name] of [[host1, 'h1'], [host2, 'h2'], [hostSw, 'sw']] as const) {
      expect(asset).toMatchObject({ hostname: name, displayName: name, lastScanOutcome: 'SUCCESS', consecutiveScanFailures: 0, sources: ['discovery'] });
      expect(asset.macAddresses).toContain(await macOf(name));
    }
    // The switch answers BRIDGE-MIB: a network device, with its chassis from ENTITY-MIB; SSH and SNMP saw one asset.
    expect(hostSw).toMatchObject({ assetType: 'NETWORK_DEVICE', serialNumber: SWITCH_SERIAL, vendor: 'Inventory Labs', model: 'Lab Switch 2' });
    // Namespaces share this machine's kernel and files: its classification is theirs.
    const kernel = execFileSync('uname', ['-r']).toString().trim();
    expect(JSON.parse(host1.customAttributes as string)).toMatchObject({ kernel, osName: expect.stringContaining('Debian'), openPorts: '22' });
    expect(JSON.parse(host2.customAttributes as string)).toMatchObject({ openPorts: '22,6379' });

    // Applications: Redis on h2 with its package's version, the SSH server everywhere.
    const software = (await api.get('/api/v1/assets?type=SOFTWARE&size=100')).body.data as { id: string; displayName: string; parent: { id: string } | null; customAttributes: string }[];
    const redis = software.filter((s) => s.displayName === 'Redis');
    expect(redis).toHaveLength(1);
    expect(redis[0]?.parent?.id).toBe(host2.id);
    expect(JSON.parse(redis[0]?.customAttributes as string)).toMatchObject({ catalogueId: 'redis', version: dpkgVersion('redis-server'), listenPorts: '6379' });
    // On the hosts, that is: on the switch, its daemons stay processes.
    for (const name of ['OpenSSH server', 'Net-SNMP agent', 'lldpd']) {
      expect(software.filter((s) => s.displayName === name).map((s) => s.parent?.id).sort()).toEqual([host1.id, host2.id].sort());
    }
    expect(await db()('running_processes').where({ asset_id: hostSw.id, process_name: 'sshd' }).whereNull('software_asset_id').count('* as c')).toEqual([{ c: '1' }]);

    // Packages: this machine's dpkg database, as every namespace host sees it.
    const installed = execFileSync('dpkg-query', ['-W', '-f', '${db:Status-Abbrev}\n']).toString().split('\n').filter((l) => l.startsWith('ii')).length;
    const packages = await db()('software_packages').where({ asset_id: host1.id });
    expect(packages).toHaveLength(installed);
    expect(packages.find((r: { package_name: string }) => r.package_name === 'openssh-server')).toMatchObject({ version: dpkgVersion('openssh-server'), package_manager: 'dpkg', source: 'discovery' });

    // Processes: the host's own (its PID namespace), never the connector's session; Redis's process carries its asset.
    const processes = await db()('running_processes').where({ asset_id: host2.id });
    const names = processes.map((r: { process_name: string }) => r.process_name).sort();
    expect(names).toEqual(expect.arrayContaining(['lldpd', 'perl', 'redis-server', 'sshd']));
    expect(processes.some((r: { command_line: string }) => /^sshd: invscan|^ps -eo/.test(r.command_line))).toBe(false);
    expect(processes.find((r: { process_name: string }) => r.process_name === 'redis-server')).toMatchObject({ software_asset_id: redis[0]?.id, source_connector: 'SSH' });

    // Services: no systemd in the namespace hosts, so one per listening program.
    const services = await db()('discovered_services').where({ asset_id: host2.id }).orderBy('service_name');
    expect(services.map((s: { service_name: string; listen_ports: unknown }) => [s.service_name, s.listen_ports])).toEqual([
      ['redis-server', [{ protocol: 'tcp', port: 6379 }]],
      ['snmpd', [{ protocol: 'udp', port: 161 }, { protocol: 'tcp', port: 199 }]],
      ['sshd', [{ protocol: 'tcp', port: 22 }]],
    ]);

    // Interfaces with MAC, addresses and state; the cables to the switch from LLDP (lldpctl over SSH on
    // every host, LLDP-MIB on the switch) and from the switch's forwarding table.
    const eth0 = await db()('network_interfaces').where({ asset_id: host1.id, name: 'eth0' }).first();
    expect(eth0).toMatchObject({ mac_address: await macOf('h1'), ip_addresses: [h1], oper_status: 'up', mtu: 1500 });
    const cables = await db()('interface_connections as c')
      .join('network_interfaces as a', 'a.id', 'c.source_interface_id')
      .join('network_interfaces as b', 'b.id', 'c.target_interface_id')
      .select('a.asset_id as aAsset', 'a.name as aPort', 'b.asset_id as bAsset', 'b.name as bPort', 'c.discovered_via as via');
    const ends = cables.map((c: Record<string, string>) => `${[`${c.aAsset}:${c.aPort}`, `${c.bAsset}:${c.bPort}`].sort().join(' = ')} ${c.via}`);
    const cable = (a: string, b: string, via: string) => `${[a, b].sort().join(' = ')} ${via}`;
    expect(ends.sort()).toEqual([
      cable(`${host1.id}:eth1`, `${hostSw.id}:swp1`, 'LLDP'),
      cable(`${host2.id}:eth1`, `${hostSw.id}:swp2`, 'LLDP'),
      cable(`${host1.id}:eth1`, `${hostSw.id}:swp1`, 'FDB'),
      cable(`${host2.id}:eth1`, `${hostSw.id}:swp2`, 'FDB'),
    ].sort());

    // h1's redis-cli holds a connection to h2's Redis: h1 COMMUNICATES_WITH h2, and nothing to the scanner.
    const talks = (await api.get('/api/v1/relationships?type=COMMUNICATES_WITH')).body.data;
    expect(talks).toEqual([expect.objectContaining({ sourceAssetId: host1.id, targetAssetId: host2.id, sources: ['discovery'] })]);

    // The run records how each host was identified, and the credential is remembered per address.
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body;
    expect(hosts.total).toBe(3);
    expect(hosts.data.map((h: Record<string, unknown>) => [h.address, h.created, h.matchedBy, h.methods, h.outcome])).toEqual([
      [h1, true, null, ['SSH', 'SNMP'], 'SUCCESS'], [h2, true, null, ['SSH', 'SNMP'], 'SUCCESS'], [sw, true, null, ['SSH', 'SNMP'], 'SUCCESS'],
    ]);
    // Each with its asset's name as it is now.
    for (const h of hosts.data as { assetId: string; assetDisplayName: string }[]) {
      expect(h.assetDisplayName).toBe((await api.get(`/api/v1/assets/${h.assetId}`)).body.data.displayName);
    }
    for (const id of [credentialId, snmpCredentialId]) {
      expect(await db()('discovery_address_credentials').where({ credential_id: id }).count('* as c')).toEqual([{ c: '3' }]);
    }
  });

  it('changes nothing but the seen-times on a second scan, and records the identity rule that matched', async () => {
    const before = await state();
    const run = await scan('lab', []);
    expect(run).toMatchObject({ status: 'COMPLETED', summary: { hostsResponding: 3, assetsCreated: 0, assetsUpdated: 3, errors: 0 } });
    expect(await state()).toEqual(before);
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(hosts.map((h: { created: boolean; matchedBy: string; assetId: string }) => [h.created, h.matchedBy])).toEqual([[false, 'MAC_ADDRESS'], [false, 'MAC_ADDRESS'], [false, 'SERIAL_NUMBER']]);
  });

  it('reports a refused password as SSH_AUTH_FAILED, fails the host and keeps its data', async () => {
    const host1 = await assetAt(h1);
    const packagesBefore = await db()('software_packages').where({ asset_id: host1.id }).count('* as c');
    await api.put(`/api/v1/credentials/${credentialId}`, { secrets: { password: 'not-the-password' } });
    try {
      const run = await scan('h1 only', [h1]);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors).toEqual([{ address: h1, method: 'SSH', stage: 'authenticate', code: 'SSH_AUTH_FAILED', message: expect.stringContaining('scan password') }]);
      expect(JSON.stringify(run)).not.toContain('not-the-password');
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'FAILED', consecutiveScanFailures: 1 });
      // The diagnosis (built-in rules) explains the refusal; the run remembers which credentials it offered.
      expect((await db()('discovery_runs').where({ id: run.id }).first()).credentials_tried).toEqual([credentialId]);
      const diagnosis = (await api.post(`/api/v1/runs/${run.id}/diagnosis`)).body.data;
      expect(diagnosis).toMatchObject({ status: 'OK', model: 'rules-v1', summary: expect.stringContaining('refused every credential') });
      expect(await db()('software_packages').where({ asset_id: host1.id }).count('* as c')).toEqual(packagesBefore);
    } finally {
      await api.put(`/api/v1/credentials/${credentialId}`, { secrets: { password: SCAN_PASSWORD } });
    }
  });

  it('reports a stopped sshd as CONNECTION_REFUSED and counts the failure', async () => {
    await network.hosts.h1.stopSshd();
    try {
      const run = await scan('h1 only', [h1]);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors).toEqual([{ address: h1, method: 'SSH', stage: 'connect', code: 'CONNECTION_REFUSED', message: expect.any(String) }]);
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'FAILED', consecutiveScanFailures: 2 });
    } finally {
      await network.hosts.h1.startSshd();
    }
    const run = await scan('h1 only', [h1]);
    expect(run.status).toBe('COMPLETED');
    expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'SUCCESS', consecutiveScanFailures: 0 });
  });

  it('refuses a changed host key with HOST_KEY_CHANGED, offers it no password, keeps the host\'s data, and takes the new key once an administrator accepts it', async () => {
    const host2 = await assetAt(h2);
    const kept = async () => ({
      packages: await db()('software_packages').where({ asset_id: host2.id }).count('* as c'),
      services: await db()('discovered_services').where({ asset_id: host2.id }).select('service_name').orderBy('service_name'),
      edges: (await api.get('/api/v1/relationships?type=COMMUNICATES_WITH')).body.total,
    });
    const before = await kept();
    const pinned = await db()('ssh_host_keys').where({ address: h2, port: 22 }).first();
    await network.hosts.h2.replaceHostKey();
    const logged = (await network.hosts.h2.sshdLog()).length;
    const run = await scan('h2 only', [h2]);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(run.errors).toEqual([{ address: h2, method: 'SSH', stage: 'verify-host-key', code: 'HOST_KEY_CHANGED', message: expect.stringMatching(/ssh-ed25519 SHA256:\S+/) }]);
    expect(await assetAt(h2)).toMatchObject({ lastScanOutcome: 'FAILED', consecutiveScanFailures: 1 });
    expect(await kept()).toEqual(before);
    // No credential reached the host: sshd saw the connection end before any authentication.
    const since = (await network.hosts.h2.sshdLog()).slice(logged);
    expect(since).toMatch(/Disconnected from \S+ port \d+ \[preauth\]/);
    expect(since).not.toMatch(/password|publickey|Accepted|Failed|authenticating user/i);
    // The pin holds until an administrator accepts the key that was presented, and only that one.
    const presented = /SHA256:[A-Za-z0-9+/]+/.exec(run.errors[0].message)?.[0] as string;
    const accept = { kind: 'SSH_HOST_KEY', address: h2, port: 22, fingerprint: presented };
    expect((await p.viewer.post('/api/v1/discovery/pins/accept', accept)).status).toBe(403);
    const wrong = await api.post('/api/v1/discovery/pins/accept', { ...accept, fingerprint: pinned.fingerprint });
    expect(wrong.status).toBe(409);
    expect(wrong.body.detail).toContain(presented);
    expect((await api.post('/api/v1/discovery/pins/accept', { ...accept, port: 2222 })).status).toBe(404);
    expect((await scan('h2 only', [h2])).status).toBe('COMPLETED_WITH_ERRORS');
    const accepted = await api.post('/api/v1/discovery/pins/accept', accept);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ kind: 'SSH_HOST_KEY', address: h2, port: 22, fingerprint: presented, detail: 'ssh-ed25519', presented: null });
    const audit = await p.adminSession.get('/api/v1/audit-events?action=pin.accept');
    expect(audit.body.data[0]).toMatchObject({ details: { kind: 'SSH_HOST_KEY', address: h2, port: 22, from: pinned.fingerprint, to: presented } });
    expect((await scan('h2 only', [h2])).status).toBe('COMPLETED');
    expect(await assetAt(h2)).toMatchObject({ lastScanOutcome: 'SUCCESS', consecutiveScanFailures: 0 });
  });

  it('marks a command refused for lack of permission as PARTIAL and keeps what that command gave before', async () => {
    const host1 = await assetAt(h1);
    const cablesBefore = await db()('interface_connections').count('* as c');
    // The credential logs in as the account outside adm, to which lldpctl is refused.
    expect((await api.put(`/api/v1/credentials/${credentialId}`, { settings: { username: LIMITED_USER } })).status).toBe(200);
    try {
      const run = await scan('h1 only', [h1]);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors).toEqual([{ address: h1, method: 'SSH', stage: 'collect:lldp', code: 'COMMAND_PERMISSION_DENIED', message: expect.any(String) }]);
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'PARTIAL' });
      expect(await db()('interface_connections').count('* as c')).toEqual(cablesBefore);
      expect(await db()('software_packages').where({ asset_id: host1.id }).count('* as c')).not.toEqual([{ c: '0' }]);
    } finally {
      await api.put(`/api/v1/credentials/${credentialId}`, { settings: { username: SCAN_USER } });
    }
  });

  it('reads lldpd at the control socket it was started with, and says so in the run when lldpd runs but cannot be read', async () => {
    // h1's lldpd runs with -u LAB_LLDP_SOCKET: the scan found its cables (the first test), with no error for h1.
    const read = await scan('h1 only', [h1]);
    expect(read.status).toBe('COMPLETED');
    const h1Cables = await db()('interface_connections as c').join('network_interfaces as i', 'i.id', 'c.source_interface_id').where({ 'i.asset_id': (await assetAt(h1)).id, 'c.discovered_via': 'LLDP' }).count('* as c');
    await network.hosts.h1.exec(`mv ${LAB_LLDP_SOCKET} ${LAB_LLDP_SOCKET}.hidden`);
    try {
      const run = await scan('h1 only', [h1]);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors).toEqual([{ address: h1, method: 'SSH', stage: 'collect:lldp', code: 'LLDP_UNREADABLE', message: expect.stringContaining('lldpd runs') }]);
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'PARTIAL' });
      // Nothing read, nothing retired.
      expect(await db()('interface_connections as c').join('network_interfaces as i', 'i.id', 'c.source_interface_id').where({ 'i.asset_id': (await assetAt(h1)).id, 'c.discovered_via': 'LLDP' }).count('* as c')).toEqual(h1Cables);
    } finally {
      await network.hosts.h1.exec(`mv ${LAB_LLDP_SOCKET}.hidden ${LAB_LLDP_SOCKET}`);
    }
  });

  it('reports an address where nothing answers as HOST_UNREACHABLE and fails a known host there', async () => {
    await network.hosts.h1.exec('ip link set eth0 down');
    try {
      const run = await scan('h1 and nothing', [h1, network.emptyAddress]);
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors.map((e: { address: string; code: string }) => [e.address, e.code]).sort()).toEqual([[h1, 'HOST_UNREACHABLE'], [network.emptyAddress, 'HOST_UNREACHABLE']]);
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'FAILED' });
      expect((await api.get('/api/v1/assets?type=UNKNOWN_ENDPOINT')).body.total).toBe(0);
    } finally {
      await network.hosts.h1.exec('ip link set eth0 up');
    }
  });

  it('finds a host that drops every TCP port probed by its answer to an ICMP echo', async () => {
    await network.hosts.h1.exec("nft add table inet probe && nft 'add chain inet probe in { type filter hook input priority 0; }' && nft add rule inet probe in tcp dport '{ 22, 6379 }' drop");
    try {
      const run = await scan('h1 by sweep', [h1], { methods: ['SWEEP'] });
      expect(run).toMatchObject({ status: 'COMPLETED', summary: { hostsResponding: 1, assetsUpdated: 1, errors: 0 } });
      expect(await assetAt(h1)).toMatchObject({ lastScanOutcome: 'SUCCESS' });
    } finally {
      await network.hosts.h1.exec('nft delete table inet probe');
    }
  });

  it('reports an SNMP agent that does not answer the community as SNMP_NO_ANSWER', async () => {
    await api.put(`/api/v1/credentials/${snmpCredentialId}`, { secrets: { community: 'not-the-community' } });
    try {
      const run = await scan('h2 by SNMP', [h2], { methods: ['SNMP'] });
      expect(run.status).toBe('COMPLETED_WITH_ERRORS');
      expect(run.errors).toEqual([{ address: h2, method: 'SNMP', stage: 'connect', code: 'SNMP_NO_ANSWER', message: expect.any(String) }]);
      expect(JSON.stringify(run)).not.toContain('not-the-community');
      expect(await assetAt(h2)).toMatchObject({ lastScanOutcome: 'FAILED' });
    } finally {
      await api.put(`/api/v1/credentials/${snmpCredentialId}`, { secrets: { community: SNMP_COMMUNITY } });
    }
    expect((await scan('h2 by SNMP', [h2], { methods: ['SNMP'] })).status).toBe('COMPLETED');
  });

  it('keeps what SNMP did not report when sshd is down, what only SNMP reports when its community is wrong, and moves nothing but seen-times when both are back', async () => {
    const target = (await api.post('/api/v1/discovery/targets', { name: 'h1 by SSH and SNMP', addresses: [h1], methods: ['SWEEP', 'SSH', 'SNMP'] })).body.data.id;
    const scanBoth = async () => {
      const queued = await api.post(`/api/v1/discovery/targets/${target}/scan`);
      return runToEnd(api, queued.body.data.id);
    };
    // The facts of the host as the API shows them (openPorts is the sweep's, and follows sshd).
    const facts = async () => {
      const a = await assetAt(h1);
      const { openPorts: _p, ...custom } = JSON.parse(a.customAttributes as string);
      return {
        id: a.id, displayName: a.displayName, assetType: a.assetType, virtual: a.virtual, hostname: a.hostname, fqdn: a.fqdn, vendor: a.vendor, model: a.model,
        serialNumber: a.serialNumber, macAddresses: [...(a.macAddresses as string[])].sort(), ipAddresses: [...(a.ipAddresses as string[])].sort(), custom, updatedAt: a.updatedAt,
      };
    };
    expect((await scanBoth()).status).toBe('COMPLETED');
    const both = await facts();
    // Both methods told something of their own: the OS from SSH, the system group from SNMP.
    expect(both.custom).toMatchObject({ osName: expect.any(String), kernel: expect.any(String), sysDescr: expect.any(String), sysObjectId: expect.any(String) });
    const provenance = (await api.get(`/api/v1/assets/${both.id}/provenance`)).body.data;
    const winner = (field: string) => provenance.fields.find((f: { field: string }) => f.field === field);
    expect(winner('custom.osName')).toMatchObject({ source: 'ssh' });
    expect(winner('custom.sysDescr')).toMatchObject({ source: 'snmp' });
    // SSH and SNMP both name the host: SSH's word wins, SNMP's is kept as evidence.
    expect(winner('hostname')).toMatchObject({ source: 'ssh', value: 'h1', candidates: expect.arrayContaining([expect.objectContaining({ source: 'snmp' })]) });

    await network.hosts.h1.stopSshd();
    try {
      const run = await scanBoth();
      expect(run.errors.map((e: { code: string }) => e.code)).toEqual(['CONNECTION_REFUSED']);
      expect(await facts()).toEqual(both);
    } finally {
      await network.hosts.h1.startSshd();
    }
    await api.put(`/api/v1/credentials/${snmpCredentialId}`, { secrets: { community: 'not-the-community' } });
    try {
      const run = await scanBoth();
      expect(run.errors.map((e: { code: string }) => e.code)).toEqual(['SNMP_NO_ANSWER']);
      expect(await facts()).toEqual(both);
    } finally {
      await api.put(`/api/v1/credentials/${snmpCredentialId}`, { secrets: { community: SNMP_COMMUNITY } });
    }
    expect((await scanBoth()).status).toBe('COMPLETED');
    expect(await facts()).toEqual(both);
  });

  describe('the SSH connector on its own', () => {
    const credential = (kind: 'SSH_PASSWORD' | 'SSH_KEY', secrets: Record<string, string>, username = SCAN_USER) =>
      ({ id: `${kind}-test`, name: kind, kind, settings: { username }, secrets }) as unknown as RevealedCredential;
    const options = (overrides: Partial<SshOptions> = {}): SshOptions => ({
      port: 22, connectTimeoutMs: 10_000, commandTimeoutMs: 30_000, outputMaxBytes: 16 * 1024 * 1024, deadline: Date.now() + 60_000, ...overrides,
    });
    const keys = () => service.running.container.hostState;

    it('logs in with a key, and tries the next credential after a refused one', async () => {
      const result = await collectSsh(h1, [credential('SSH_PASSWORD', { password: 'wrong' }), credential('SSH_KEY', { privateKey: network.privateKey })], options(), keys());
      expect(result.errors).toEqual([]);
      expect(result.credentialId).toBe('SSH_KEY-test');
      expect(result.observation).toMatchObject({ hostname: 'h1', method: 'SSH' });
      expect([...(result.observation?.complete ?? [])].sort()).toEqual(['connections', 'facts', 'interfaces', 'neighbors', 'processes', 'services', 'software']);
    });

    it('starts no command after the per-host deadline, and then nothing is complete', async () => {
      const result = await collectSsh(h1, [credential('SSH_PASSWORD', { password: SCAN_PASSWORD })], options({ deadline: Date.now() + 1 }), keys());
      expect(result.errors.length).toBeGreaterThan(0);
      expect(result.errors.every((e) => e.code === 'HOST_TIMEOUT' && e.stage.startsWith('collect:'))).toBe(true);
      expect(result.observation?.complete.size).toBe(0);
    });

    it('bounds each command in time and in bytes', async () => {
      // The slow account's every command waits SLOW_SHELL_SECONDS before it starts: far beyond the time-out.
      const slow = await collectSsh(h2, [credential('SSH_PASSWORD', { password: SCAN_PASSWORD }, SLOW_USER)], options({ commandTimeoutMs: (SLOW_SHELL_SECONDS * 1000) / 5 }), keys());
      expect(slow.errors.length).toBeGreaterThan(0);
      expect(slow.errors.every((e) => e.code === 'COMMAND_TIMEOUT' && e.stage.startsWith('collect:'))).toBe(true);
      expect(slow.observation?.complete.size).toBe(0);

      const big = await collectSsh(h2, [credential('SSH_PASSWORD', { password: SCAN_PASSWORD })], options({ outputMaxBytes: 4096 }), keys());
      expect(big.errors).toEqual(expect.arrayContaining([{ address: h2, method: 'SSH', stage: 'collect:packages', code: 'OUTPUT_LIMIT_EXCEEDED', message: expect.any(String) }]));
      expect(big.observation?.complete.has('software')).toBe(false);
      expect(big.observation?.software).toEqual([]);
    });
  });
});
