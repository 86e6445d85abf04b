// The pure SNMP mapping over captured walks of a real snmpd (test/fixtures/snmp: OID → value, an
// octet string that is not text as { hex }), and over hostile device strings.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classify, interfacesOf, macOf, toObservation, type SnmpValue, type Varbinds } from '../../src/features/discovery/connectors/snmp/snmp-mapping.js';
import { COLUMNS, SYSTEM } from '../../src/features/discovery/connectors/snmp/snmp-mibs.js';
import { PROJECT_ROOT } from '../../src/platform/project-root.js';

function fixture(name: string): Map<string, SnmpValue> {
  const json = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'snmp', `${name}.json`), 'utf8')) as Record<string, string | number | { hex: string }>;
  return new Map(Object.entries(json).map(([oid, v]) => [oid, typeof v === 'object' ? Buffer.from(v.hex, 'hex') : v]));
}

/** The fixture with some OIDs changed (a value) or removed (undefined). */
function changed(base: Varbinds, changes: Record<string, SnmpValue | undefined>): Map<string, SnmpValue> {
  const copy = new Map(base);
  for (const [oid, value] of Object.entries(changes)) {
    if (value === undefined) copy.delete(oid);
    else copy.set(oid, value);
  }
  return copy;
}

const withoutColumn = (base: Varbinds, prefix: string) => new Map([...base].filter(([oid]) => !oid.startsWith(`${prefix}.`)));
const observe = (varbinds: Varbinds) => toObservation('192.0.2.2', varbinds, new Set(['interfaces']));

describe('the SNMP mapping of a switch', () => {
  const switchWalk = fixture('switch');
  const observation = observe(switchWalk);

  it('takes identity from the system group and the ENTITY-MIB chassis row, not from a module row', () => {
    expect(observation).toMatchObject({
      method: 'SNMP', assetType: 'NETWORK_DEVICE', hostname: 'access-sw1.example.net', fqdn: 'access-sw1.example.net',
      serialNumber: 'FOC2104X1AB', model: 'WS-C2960X-24TS-L', vendor: 'Cisco Systems, Inc.',
    });
    expect(observation.attributes).toEqual({
      sysDescr: 'Cisco IOS Software, C2960X Software (C2960X-UNIVERSALK9-M), Version 15.2(7)E4',
      sysObjectId: '1.3.6.1.4.1.9.1.1208', sysLocation: 'Rack 12, Building A', sysContact: 'netops@example.net', firmware: '15.2(7)E4',
    });
  });

  it('names interfaces by ifName, with MAC, state, MTU, speed and their unicast addresses (no broadcast)', () => {
    expect(observation.interfaces.map((i) => i.name)).toEqual(['lo', 'ifb0', 'ifb1', 'eth0']);
    expect(observation.interfaces.find((i) => i.name === 'eth0')).toEqual({
      name: 'eth0', ifIndex: 4, macAddress: '02:fc:00:00:00:01', ipAddresses: ['192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1'],
      speedMbps: null, operStatus: 'up', mtu: 1400, description: null,
    });
    expect(observation.interfaces.find((i) => i.name === 'lo')).toMatchObject({ macAddress: null, ipAddresses: ['127.0.0.1', '::1'], speedMbps: 10 });
    expect(observation.interfaces.find((i) => i.name === 'ifb0')?.operStatus).toBe('down');
    expect(observation.macAddresses).toEqual(['f6:3d:ed:18:05:0f', 'a6:4d:15:58:fb:d5', '02:fc:00:00:00:01']);
    expect(observation.ipAddresses).toEqual(['127.0.0.1', '::1', '192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1']);
  });

  it('keeps learned forwarding entries only, on named ports, with the VLAN from Q-BRIDGE and no BRIDGE duplicate', () => {
    expect(observation.fdb).toEqual([
      { port: 'eth0', macAddress: 'aa:bb:cc:00:00:01', vlan: 10 },
      { port: 'ifb1', macAddress: 'aa:bb:cc:00:00:02', vlan: 20 },
      { port: 'ifb0', macAddress: '00:11:22:33:44:55' },
    ]);
  });

  it('names LLDP local ports as interfaces (port id or description) and remote ports by name, chassis MACs as aa:bb:..', () => {
    expect(observation.neighbors).toEqual([
      { localPort: 'eth0', protocol: 'LLDP', remotePort: 'Gi1/0/24', remoteChassisId: '00:aa:bb:cc:dd:ee', remoteSystemName: 'core-sw1.example.net' },
      { localPort: 'ifb1', protocol: 'LLDP', remotePort: 'ens3', remoteChassisId: '52:54:00:12:34:56', remoteSystemName: 'db1' },
    ]);
  });

  it('passes the complete scopes through as given, with the facts of the system group always complete', () => {
    expect([...observation.complete].sort()).toEqual(['facts', 'interfaces']);
  });

  it('falls back to ifDescr for the name and to ifSpeed for the speed when ifXTable is missing', () => {
    const walk = changed(withoutColumn(switchWalk, COLUMNS.ifName), { [`${COLUMNS.ifDescr}.4`]: 'Ethernet 4', [`${COLUMNS.ifSpeed}.4`]: 1_000_000_000 });
    expect(interfacesOf(walk).find((i) => i.ifIndex === 4)).toMatchObject({ name: 'Ethernet 4', speedMbps: 1000 });
  });
});

describe('the SNMP classification', () => {
  const host = fixture('host');
  const printer = fixture('printer');
  const kind = (walk: Varbinds) => classify(walk, interfacesOf(walk));

  it('a host (sysServices 72, no bridge, hrDeviceTable of processors and network devices) is a SERVER', () => {
    expect(observe(host)).toMatchObject({ assetType: 'SERVER', hostname: 'app1', attributes: { sysLocation: 'DC1', sysContact: 'ops@example.net' } });
    expect(observe(host).fqdn).toBeUndefined();
  });

  it('a printer answers Printer-MIB, or lists a printer in hrDeviceTable: either alone makes a PRINTER', () => {
    expect(observe(printer)).toMatchObject({ assetType: 'PRINTER', serialNumber: 'PHBQB12345', vendor: 'HP', model: 'LaserJet M507' });
    expect(kind(withoutColumn(printer, COLUMNS.hrDeviceType))).toBe('PRINTER');
    expect(kind(withoutColumn(printer, COLUMNS.prtGeneralPrinterName))).toBe('PRINTER');
    expect(kind(withoutColumn(withoutColumn(printer, COLUMNS.prtGeneralPrinterName), COLUMNS.hrDeviceType))).toBe('SERVER');
  });

  it('a bridge is a NETWORK_DEVICE whatever sysServices says', () => {
    expect(kind(changed(host, { [SYSTEM.dot1dBaseNumPorts]: 24 }))).toBe('NETWORK_DEVICE');
  });

  it('sysServices with layer 2 or 3 and nothing above is a NETWORK_DEVICE', () => {
    expect(kind(changed(host, { [SYSTEM.sysServices]: 2 }))).toBe('NETWORK_DEVICE');
    expect(kind(changed(host, { [SYSTEM.sysServices]: 4 }))).toBe('NETWORK_DEVICE');
    expect(kind(changed(host, { [SYSTEM.sysServices]: 4 + 8 }))).toBe('SERVER');
  });

  it('without sysServices, forwarding between several interfaces makes a router; with sysServices 72 it stays a host', () => {
    // The host fixture has three non-loopback interfaces.
    expect(kind(changed(host, { [SYSTEM.sysServices]: undefined, [SYSTEM.ipForwarding]: 1 }))).toBe('NETWORK_DEVICE');
    expect(kind(changed(host, { [SYSTEM.sysServices]: undefined, [SYSTEM.ipForwarding]: 2 }))).toBe('SERVER');
    expect(kind(changed(host, { [SYSTEM.ipForwarding]: 1 }))).toBe('SERVER');
  });
});

describe('hostile device strings', () => {
  const observation = observe(fixture('hostile'));
  const strings = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

  it('lose their control characters (escape sequences, NUL, BEL, bidi overrides) and line breaks', () => {
    expect(observation.hostname).toBe(']0;ownedevil[2J-host');
    expect(observation.serialNumber).toBe('SN123[K456');
    expect(observation.attributes.sysLocation).toBe('line1 line2 tabbed');
    expect(observation.attributes.sysContact).toBe('eulav admin');
    expect(observation.interfaces[0]).toMatchObject({ name: 'eth0', description: '[31mred alias[0m', macAddress: '00:11:22:33:44:55' });
    expect(observation.neighbors[0]).toMatchObject({ remotePort: '[1mGi0/1', remoteSystemName: 'peername' });
    expect(strings(observation).filter((text) => /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/.test(text))).toEqual([]);
  });

  it('are capped in length (10 kB in, 512 characters out)', () => {
    expect(observation.attributes.sysDescr).toBe('D'.repeat(512));
    expect(observation.model).toBe('M'.repeat(512));
  });
});

describe('MAC addresses', () => {
  it('come from six octets or from text, and all zeros is none', () => {
    expect(macOf(Buffer.from('0a1b2c3d4e5f', 'hex'))).toBe('0a:1b:2c:3d:4e:5f');
    expect(macOf('0A-1B-2C-3D-4E-5F')).toBe('0a:1b:2c:3d:4e:5f');
    expect(macOf(Buffer.alloc(6))).toBeUndefined();
    expect(macOf(Buffer.alloc(0))).toBeUndefined();
    expect(macOf(Buffer.from('0a1b2c3d4e', 'hex'))).toBeUndefined();
  });
});
