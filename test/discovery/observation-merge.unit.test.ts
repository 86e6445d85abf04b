// One host from what SSH and SNMP observed of one address (mergeObservations, pure).
import { emptyObservation, type HostObservation, type ObservedInterface } from '../../src/features/discovery/host-observation.js';
import { mergeObservations } from '../../src/features/discovery/observation-bundle.js';

const iface = (name: string, fields: Partial<ObservedInterface> = {}): ObservedInterface =>
  ({ name, ifIndex: null, macAddress: null, ipAddresses: [], speedMbps: null, operStatus: 'up', mtu: 1500, ...fields });

function sshView(): HostObservation {
  return {
    ...emptyObservation('10.20.30.41', 'SSH', 'VM'),
    hostname: 'db1',
    vendor: 'Red Hat',
    model: 'KVM',
    macAddresses: ['52:54:00:aa:bb:01'],
    ipAddresses: ['10.20.30.41', 'fd00::41'],
    attributes: { osName: 'Red Hat Enterprise Linux', cpuCount: 4 },
    software: [{ packageName: 'bash', version: '5.1.8-9.el9', publisher: 'Red Hat, Inc.', packageManager: 'rpm' }],
    processes: [{ pid: 842, ppid: 1, processName: 'sshd', sourceConnector: 'SSH', application: 'openssh-server' }],
    services: [{ serviceName: 'sshd.service', state: 'running', listenPorts: [{ protocol: 'tcp', port: 22 }], sourceConnector: 'SSH' }],
    interfaces: [iface('eth0', { ifIndex: 2, macAddress: '52:54:00:aa:bb:01', ipAddresses: ['10.20.30.41'] })],
    neighbors: [{ localPort: 'eth0', protocol: 'LLDP', remotePort: 'Gi1/0/7', remoteSystemName: 'core-sw1' }],
    connections: [{ localAddress: '10.20.30.41', localPort: 5432, remoteAddress: '10.20.30.50', remotePort: 40112 }],
    applications: [{ id: 'openssh-server', name: 'OpenSSH server', listenPorts: [22] }],
    complete: new Set(['software', 'processes', 'services', 'interfaces', 'connections']),
  };
}

function snmpView(assetType: HostObservation['assetType']): HostObservation {
  return {
    ...emptyObservation('10.20.30.41', 'SNMP', assetType),
    hostname: 'db1-snmp',
    fqdn: 'db1.corp.example.com',
    vendor: 'net-snmp',
    serialNumber: 'SNMP-SERIAL-1',
    macAddresses: ['52:54:00:aa:bb:01', '52:54:00:aa:bb:02'],
    ipAddresses: ['10.20.30.41', '192.0.2.41'],
    attributes: { osName: 'Linux', sysObjectId: '1.3.6.1.4.1.8072.3.2.10', sysLocation: 'rack 4' },
    interfaces: [iface('eth0', { ifIndex: 2, speedMbps: 1000, description: 'from SNMP' }), iface('eth1', { ifIndex: 3, macAddress: '52:54:00:aa:bb:02' })],
    neighbors: [{ localPort: 'eth1', protocol: 'LLDP', remotePort: 'Gi1/0/8', remoteSystemName: 'core-sw1' }],
    fdb: [{ port: 'eth1', macAddress: 'aa:bb:cc:00:00:01', vlan: 10 }],
    complete: new Set(['interfaces', 'neighbors', 'fdb']),
  };
}

describe('merging the observations of one address', () => {
  it('keeps SSH\'s view of a host first, fills missing fields from SNMP, unites addresses, interfaces by name and complete scopes', () => {
    const ssh = sshView();
    const merged = mergeObservations([snmpView('SERVER'), ssh]);
    expect(merged).toEqual({
      ...ssh,
      assetType: 'VM',
      fqdn: 'db1.corp.example.com',
      serialNumber: 'SNMP-SERIAL-1',
      macAddresses: ['52:54:00:aa:bb:01', '52:54:00:aa:bb:02'],
      ipAddresses: ['10.20.30.41', 'fd00::41', '192.0.2.41'],
      attributes: { osName: 'Red Hat Enterprise Linux', cpuCount: 4, sysObjectId: '1.3.6.1.4.1.8072.3.2.10', sysLocation: 'rack 4' },
      interfaces: [ssh.interfaces[0], iface('eth1', { ifIndex: 3, macAddress: '52:54:00:aa:bb:02' })],
      neighbors: [...ssh.neighbors, { localPort: 'eth1', protocol: 'LLDP', remotePort: 'Gi1/0/8', remoteSystemName: 'core-sw1' }],
      fdb: [{ port: 'eth1', macAddress: 'aa:bb:cc:00:00:01', vlan: 10 }],
      complete: new Set(['software', 'processes', 'services', 'interfaces', 'connections', 'neighbors', 'fdb']),
    });
    expect(merged.method).toBe('SSH');
  });

  it.each([['NETWORK_DEVICE' as const], ['PRINTER' as const]])('lets SNMP\'s %s win the type over SSH\'s', (assetType) => {
    expect(mergeObservations([sshView(), snmpView(assetType)]).assetType).toBe(assetType);
    expect(mergeObservations([snmpView(assetType), sshView()]).assetType).toBe(assetType);
  });

  it('changes none of the observations merged', () => {
    const ssh = sshView();
    const snmp = snmpView('NETWORK_DEVICE');
    mergeObservations([ssh, snmp]);
    expect(ssh).toEqual(sshView());
    expect(snmp).toEqual(snmpView('NETWORK_DEVICE'));
  });

  it('of one observation is that observation', () => {
    expect(mergeObservations([snmpView('PRINTER')])).toEqual(snmpView('PRINTER'));
  });
});
