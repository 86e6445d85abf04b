// The SNMP connector against Debian's real snmpd (test/support/snmp-agent.ts): IF-MIB and IP-MIB
// are snmpd's own view of this machine, checked against what the kernel says; BRIDGE, Q-BRIDGE,
// ENTITY, LLDP and Printer-MIB rows are the test's data, served through pass_persist.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { collectSnmp, type SnmpOptions } from '../../src/features/discovery/connectors/snmp/snmp-connector.js';
import type { SnmpCredential } from '../../src/features/discovery/connectors/snmp/snmp-session.js';
import type { PassValue } from '../../src/tools/lab/lab-network.js';
import { startSnmpAgent, type SnmpAgent, type SnmpAgentOptions } from '../support/snmp-agent.js';

const COMMUNITY = 'c0mmunity-Secret';
const SHA_AUTH = 'sha-auth-Secret1';
const SHA_PRIV = 'aes-priv-Secret2';
const MD5_AUTH = 'md5-auth-Secret3';
const V3_USERS: SnmpAgentOptions['v3Users'] = [
  { name: 'inventory', authProtocol: 'SHA', authKey: SHA_AUTH, privProtocol: 'AES', privKey: SHA_PRIV },
  { name: 'monitor', authProtocol: 'MD5', authKey: MD5_AUTH },
];

const v2c = (id: string, community: string): SnmpCredential => ({ id, kind: 'SNMP_V2C', settings: {}, secrets: { community } });
const v3 = (id: string, username: string, secrets: Record<string, string>, settings: Record<string, unknown>): SnmpCredential => ({
  id, kind: 'SNMP_V3', settings: { username, ...settings }, secrets,
});
const authPriv = (id: string, authKey: string, privKey: string) =>
  v3(id, 'inventory', { authKey, privKey }, { securityLevel: 'authPriv', authProtocol: 'SHA', privProtocol: 'AES' });

const OPTIONS: SnmpOptions = { timeoutMs: 1000, retries: 1, maxRows: 500, budgetMs: 30_000 };
// For answers that never come: one short try.
const QUICK: SnmpOptions = { ...OPTIONS, timeoutMs: 300, retries: 0 };

/** The kernel's interfaces: name → ifindex. */
function kernelInterfaces(): Map<string, number> {
  return new Map(readdirSync('/sys/class/net').flatMap((name): [string, number][] => {
    try {
      return [[name, Number(readFileSync(`/sys/class/net/${name}/ifindex`, 'utf8'))]];
    } catch {
      return []; // gone while listed: other tests on this machine add and remove interfaces
    }
  }));
}
// Interfaces that do not come and go with other tests' namespaces: the loopback and the default route's.
const defaultRoute = readFileSync('/proc/net/route', 'utf8').split('\n').map((line) => line.split('\t')).find((f) => f[1] === '00000000')?.[0] ?? 'lo';
const LOOPBACK = { name: 'lo', ifIndex: kernelInterfaces().get('lo') as number };
const UPLINK = { name: defaultRoute, ifIndex: kernelInterfaces().get(defaultRoute) as number };

const int = (value: number): PassValue => ({ type: 'integer', value });
const str = (value: string): PassValue => ({ type: 'string', value });
const macIndex = (mac: string) => mac.split(':').map((h) => parseInt(h, 16)).join('.');

const ENTITY_DATA: Record<string, PassValue> = {
  '1.3.6.1.2.1.47.1.1.1.1.5.1': int(3),
  '1.3.6.1.2.1.47.1.1.1.1.10.1': str('15.2(7)E4'),
  '1.3.6.1.2.1.47.1.1.1.1.11.1': str('FOC2104X1AB'),
  '1.3.6.1.2.1.47.1.1.1.1.12.1': str('Cisco Systems, Inc.'),
  // An escape sequence and a NUL, as raw octets: "WS-C2960X" ESC "[2J" NUL.
  '1.3.6.1.2.1.47.1.1.1.1.13.1': { type: 'octet', value: [...Buffer.from('WS-C2960X\u001b[2J\u0000')].map((b) => b.toString(16).padStart(2, '0')).join(' ') },
};

/** A switch: bridge port 1 is the loopback, port 2 the uplink. */
const SWITCH_DATA: Record<string, PassValue> = {
  '1.3.6.1.2.1.17.1.2.0': int(2),
  '1.3.6.1.2.1.17.1.4.1.2.1': int(LOOPBACK.ifIndex),
  '1.3.6.1.2.1.17.1.4.1.2.2': int(UPLINK.ifIndex),
  [`1.3.6.1.2.1.17.4.3.1.2.${macIndex('00:11:22:33:44:55')}`]: int(1),
  [`1.3.6.1.2.1.17.4.3.1.3.${macIndex('00:11:22:33:44:55')}`]: int(3),
  // The bridge's own address (status self): not a learned entry.
  [`1.3.6.1.2.1.17.4.3.1.2.${macIndex('02:00:00:00:00:99')}`]: int(0),
  [`1.3.6.1.2.1.17.4.3.1.3.${macIndex('02:00:00:00:00:99')}`]: int(4),
  [`1.3.6.1.2.1.17.7.1.2.2.1.2.10.${macIndex('aa:bb:cc:00:00:01')}`]: int(2),
  [`1.3.6.1.2.1.17.7.1.2.2.1.3.10.${macIndex('aa:bb:cc:00:00:01')}`]: int(3),
  [`1.3.6.1.2.1.17.7.1.2.2.1.2.20.${macIndex('aa:bb:cc:00:00:02')}`]: int(1),
  [`1.3.6.1.2.1.17.7.1.2.2.1.3.20.${macIndex('aa:bb:cc:00:00:02')}`]: int(3),
  [`1.3.6.1.2.1.17.7.1.2.2.1.2.20.${macIndex('aa:bb:cc:00:00:03')}`]: int(1),
  [`1.3.6.1.2.1.17.7.1.2.2.1.3.20.${macIndex('aa:bb:cc:00:00:03')}`]: int(3),
  ...ENTITY_DATA,
  // LLDP: the uplink (port number = ifIndex, as lldpd numbers them) sees core-sw1's Gi1/0/24.
  [`1.0.8802.1.1.2.1.3.7.1.2.${UPLINK.ifIndex}`]: int(5),
  [`1.0.8802.1.1.2.1.3.7.1.3.${UPLINK.ifIndex}`]: str(UPLINK.name),
  [`1.0.8802.1.1.2.1.4.1.1.4.0.${UPLINK.ifIndex}.1`]: int(4),
  [`1.0.8802.1.1.2.1.4.1.1.5.0.${UPLINK.ifIndex}.1`]: { type: 'octet', value: '00 aa bb cc dd ee' },
  [`1.0.8802.1.1.2.1.4.1.1.6.0.${UPLINK.ifIndex}.1`]: int(5),
  [`1.0.8802.1.1.2.1.4.1.1.7.0.${UPLINK.ifIndex}.1`]: str('Gi1/0/24'),
  [`1.0.8802.1.1.2.1.4.1.1.9.0.${UPLINK.ifIndex}.1`]: str('core-sw1.example.net'),
};

const PRINTER_DATA: Record<string, PassValue> = {
  '1.3.6.1.2.1.43.5.1.1.16.1': str('HP LaserJet M507'),
  '1.3.6.1.2.1.25.3.2.1.1.1': int(1),
  '1.3.6.1.2.1.25.3.2.1.2.1': { type: 'objectid', value: '.1.3.6.1.2.1.25.3.1.5' },
};

const SYSTEM = { sysName: 'access-sw1', sysLocation: 'Rack 12', sysContact: 'netops@example.net', sysDescr: 'Cisco IOS Software, C2960X', sysObjectId: '1.3.6.1.4.1.9.1.1208' };

async function withAgent<T>(options: Omit<SnmpAgentOptions, 'community'>, work: (agent: SnmpAgent) => Promise<T>): Promise<T> {
  const agent = await startSnmpAgent({ community: COMMUNITY, ...options });
  try {
    return await work(agent);
  } finally {
    await agent.stop();
  }
}

const SECRETS = [COMMUNITY, SHA_AUTH, SHA_PRIV, MD5_AUTH];
function expectNoSecrets(result: unknown): void {
  const text = JSON.stringify(result);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('the SNMP connector against a real snmpd', () => {
  let agent: SnmpAgent;

  beforeAll(async () => {
    agent = await startSnmpAgent({ profile: 'switch', community: COMMUNITY, v3Users: V3_USERS, data: SWITCH_DATA, system: SYSTEM });
  });

  afterAll(async () => {
    await agent?.stop();
  });

  it('reads a v2c switch: NETWORK_DEVICE, identity from ENTITY-MIB, the kernel interfaces, learned FDB entries on named ports, LLDP', async () => {
    const before = kernelInterfaces();
    const result = await collectSnmp('127.0.0.1', agent.port, [v2c('cred-v2c', COMMUNITY)], OPTIONS);
    expect(result.errors).toEqual([]);
    expect(result.credentialId).toBe('cred-v2c');
    const observation = result.observation!;
    expect(observation).toMatchObject({
      address: '127.0.0.1', method: 'SNMP', assetType: 'NETWORK_DEVICE', hostname: 'access-sw1',
      serialNumber: 'FOC2104X1AB', vendor: 'Cisco Systems, Inc.', model: 'WS-C2960X[2J',
      attributes: { sysDescr: 'Cisco IOS Software, C2960X', sysObjectId: '1.3.6.1.4.1.9.1.1208', sysLocation: 'Rack 12', sysContact: 'netops@example.net', firmware: '15.2(7)E4' },
    });
    expect([...observation.complete].sort()).toEqual(['facts', 'fdb', 'interfaces', 'neighbors']);

    // IF-MIB and IP-MIB are snmpd's reading of this machine: compare with the kernel's, for the
    // interfaces that were there before and after the walk.
    const after = kernelInterfaces();
    const stable = [...before].filter(([name, ifIndex]) => after.get(name) === ifIndex);
    expect(stable.length).toBeGreaterThan(0);
    for (const [name, ifIndex] of stable) expect(observation.interfaces).toContainEqual(expect.objectContaining({ name, ifIndex }));
    for (const { name } of [LOOPBACK, UPLINK]) {
      const observed = observation.interfaces.find((i) => i.name === name);
      for (const address of os.networkInterfaces()[name] ?? []) {
        if (address.family === 'IPv4') expect(observed?.ipAddresses).toContain(address.address);
        if (address.mac !== '00:00:00:00:00:00') expect(observed?.macAddress).toBe(address.mac);
      }
    }
    expect(observation.ipAddresses).toContain('127.0.0.1');

    expect(observation.fdb).toEqual([
      { port: UPLINK.name, macAddress: 'aa:bb:cc:00:00:01', vlan: 10 },
      { port: LOOPBACK.name, macAddress: 'aa:bb:cc:00:00:02', vlan: 20 },
      { port: LOOPBACK.name, macAddress: 'aa:bb:cc:00:00:03', vlan: 20 },
      { port: LOOPBACK.name, macAddress: '00:11:22:33:44:55' },
    ]);
    expect(observation.neighbors).toEqual([
      { localPort: UPLINK.name, protocol: 'LLDP', remotePort: 'Gi1/0/24', remoteChassisId: '00:aa:bb:cc:dd:ee', remoteSystemName: 'core-sw1.example.net' },
    ]);
  });

  it('reads with v3 authPriv (SHA/AES) and with v3 authNoPriv (MD5)', async () => {
    const priv = await collectSnmp('127.0.0.1', agent.port, [authPriv('cred-v3', SHA_AUTH, SHA_PRIV)], OPTIONS);
    expect(priv).toMatchObject({ credentialId: 'cred-v3', errors: [], observation: { hostname: 'access-sw1', serialNumber: 'FOC2104X1AB' } });
    expect(priv.observation?.fdb).toHaveLength(4);
    const auth = await collectSnmp('127.0.0.1', agent.port, [v3('cred-md5', 'monitor', { authKey: MD5_AUTH }, { securityLevel: 'authNoPriv', authProtocol: 'MD5' })], OPTIONS);
    expect(auth).toMatchObject({ credentialId: 'cred-md5', errors: [], observation: { assetType: 'NETWORK_DEVICE' } });
  });

  it('a wrong v3 auth key is SNMP_AUTH_FAILED, with no observation and no key in the message', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [authPriv('cred-bad-key', 'not-the-key-42', SHA_PRIV)], QUICK);
    expect(result.observation).toBeUndefined();
    expect(result.credentialId).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({ address: '127.0.0.1', method: 'SNMP', stage: 'authenticate', code: 'SNMP_AUTH_FAILED', message: expect.stringContaining('Wrong Digest') }),
    ]);
    expect(JSON.stringify(result)).not.toContain('not-the-key-42');
    expectNoSecrets(result);
  });

  it('an unknown v3 user is SNMP_AUTH_FAILED', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [v3('cred-ghost', 'ghost', { authKey: MD5_AUTH }, { securityLevel: 'authNoPriv', authProtocol: 'MD5' })], QUICK);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'SNMP_AUTH_FAILED', message: expect.stringContaining('Unknown User Name') })]);
  });

  it('a wrong v2c community gets no answer: SNMP_NO_ANSWER, and the message says a wrong community looks the same', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [v2c('cred-wrong', 'wrong-community-7')], QUICK);
    expect(result.observation).toBeUndefined();
    expect(result.errors).toEqual([
      expect.objectContaining({ stage: 'connect', code: 'SNMP_NO_ANSWER', message: expect.stringContaining('wrong v2c community') }),
    ]);
    expect(JSON.stringify(result)).not.toContain('wrong-community-7');
  });

  it('a port nothing listens on is SNMP_NO_ANSWER', async () => {
    const closed = await startSnmpAgent({ profile: 'host', community: COMMUNITY });
    await closed.stop();
    const result = await collectSnmp('127.0.0.1', closed.port, [v2c('cred-v2c', COMMUNITY)], QUICK);
    expect(result).toEqual({ errors: [expect.objectContaining({ code: 'SNMP_NO_ANSWER' })] });
  });

  it('tries credentials in order: the first fails, the second answers and is the one remembered', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [v2c('cred-first', 'not-it'), authPriv('cred-second', SHA_AUTH, SHA_PRIV)], QUICK);
    expect(result.credentialId).toBe('cred-second');
    expect(result.errors).toEqual([]);
    expect(result.observation?.hostname).toBe('access-sw1');
  });

  it('with no credentials, says so: NO_CREDENTIALS', async () => {
    expect(await collectSnmp('127.0.0.1', agent.port, [], OPTIONS)).toEqual({
      errors: [expect.objectContaining({ method: 'SNMP', code: 'NO_CREDENTIALS' })],
    });
  });

  it('a table cut by the row cap keeps its first rows, is recorded, and leaves its scope incomplete', async () => {
    // 300 learned entries against a cap of 250, which this machine's IF-MIB and IP-MIB stay under.
    const big = { ...SWITCH_DATA };
    for (let n = 0; n < 300; n++) {
      const mac = macIndex(`0e:00:00:00:${(n >> 8).toString(16)}:${(n & 0xff).toString(16)}`);
      big[`1.3.6.1.2.1.17.7.1.2.2.1.2.30.${mac}`] = int(1);
      big[`1.3.6.1.2.1.17.7.1.2.2.1.3.30.${mac}`] = int(3);
    }
    const result = await withAgent({ profile: 'switch', data: big }, (bigSwitch) =>
      collectSnmp('127.0.0.1', bigSwitch.port, [v2c('cred-v2c', COMMUNITY)], { ...OPTIONS, maxRows: 250 }));
    expect(result.errors).toEqual([expect.objectContaining({ stage: 'collect', code: 'SNMP_TABLE_TRUNCATED', message: expect.stringContaining('dot1qTpFdbTable') })]);
    const observation = result.observation!;
    expect(observation.fdb.filter((e) => e.vlan !== undefined)).toHaveLength(250);
    expect([...observation.complete].sort()).toEqual(['facts', 'interfaces', 'neighbors']);
  });

  it('interfaces cut by the row cap leave the FDB incomplete too, since they name its ports', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [v2c('cred-v2c', COMMUNITY)], { ...OPTIONS, maxRows: 1 });
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'SNMP_TABLE_TRUNCATED', message: expect.stringContaining('ifTable') }));
    expect(result.observation?.interfaces).toHaveLength(1);
    expect(result.observation?.complete.has('interfaces')).toBe(false);
    expect(result.observation?.complete.has('fdb')).toBe(false);
  });

  it('when the time budget runs out, the system group is kept and no scope but its facts is complete', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [v2c('cred-v2c', COMMUNITY)], { ...OPTIONS, budgetMs: 0 });
    expect(result.observation).toMatchObject({ hostname: 'access-sw1', assetType: 'NETWORK_DEVICE', interfaces: [], fdb: [] });
    expect([...result.observation!.complete]).toEqual(['facts']);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'HOST_TIMEOUT' })]);
  });

  it('never puts a community or key in an error, whatever failed', async () => {
    const result = await collectSnmp('127.0.0.1', agent.port, [
      v2c('wrong-community', `${COMMUNITY}-x`),
      authPriv('wrong-auth', `${SHA_AUTH}-x`, SHA_PRIV),
      authPriv('wrong-priv', SHA_AUTH, `${SHA_PRIV}-x`),
      v3('wrong-user', 'ghost', { authKey: MD5_AUTH }, { securityLevel: 'authNoPriv', authProtocol: 'MD5' }),
    ], QUICK);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(/wrong-community.*wrong-auth.*wrong-priv.*wrong-user/);
    expectNoSecrets(result);
  });

  it('a printer profile is a PRINTER', async () => {
    const result = await withAgent({ profile: 'printer', data: { ...PRINTER_DATA, ...ENTITY_DATA }, system: { sysName: 'printer-3f' } }, (printer) =>
      collectSnmp('127.0.0.1', printer.port, [v2c('cred-v2c', COMMUNITY)], OPTIONS));
    expect(result.errors).toEqual([]);
    expect(result.observation).toMatchObject({ assetType: 'PRINTER', hostname: 'printer-3f', serialNumber: 'FOC2104X1AB' });
  });

  it('a plain host is a SERVER, with an empty but complete forwarding table', async () => {
    const result = await withAgent({ profile: 'host', system: { sysName: 'app1' } }, (host) =>
      collectSnmp('127.0.0.1', host.port, [v2c('cred-v2c', COMMUNITY)], OPTIONS));
    expect(result.errors).toEqual([]);
    expect(result.observation).toMatchObject({ assetType: 'SERVER', hostname: 'app1', fdb: [], neighbors: [] });
    expect(result.observation?.serialNumber).toBeUndefined();
    expect([...result.observation!.complete].sort()).toEqual(['facts', 'fdb', 'interfaces', 'neighbors']);
  });
});
