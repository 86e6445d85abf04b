// A real SNMP agent for the tests: Debian's snmpd in the foreground on 127.0.0.1:<free port>, from
// a generated config in a temp dir (its persistent state there too), with a v2c community, v3
// users, and an AgentX master socket (so lldpd can attach). IF-MIB and IP-MIB are snmpd's own (the
// machine's interfaces); what snmpd lacks (BRIDGE, Q-BRIDGE, ENTITY, LLDP, Printer-MIB, printer
// rows of hrDeviceTable) comes from a pass_persist extension serving the test's data, so that one
// snmpd can look like a switch, a printer or a plain host.
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PASS_PERSIST_SCRIPT, type PassValue } from '../../src/tools/lab/lab-network.js';

export type SnmpProfile = 'switch' | 'printer' | 'host';


export interface SnmpV3User {
  name: string;
  authProtocol: 'MD5' | 'SHA';
  authKey: string;
  /** Given: authPriv; omitted: authNoPriv. */
  privProtocol?: 'DES' | 'AES';
  privKey?: string;
}

export interface SnmpAgentOptions {
  profile: SnmpProfile;
  community: string;
  v3Users?: SnmpV3User[];
  /** OID (numeric, no leading dot) → value, served under the profile's MIB roots. */
  data?: Record<string, PassValue>;
  system?: { sysName?: string; sysDescr?: string; sysObjectId?: string; sysLocation?: string; sysContact?: string };
  /** Where the AgentX master listens; a socket in the temp dir by default. */
  agentxSocket?: string;
}

export interface SnmpAgent {
  port: number;
  agentxSocket: string;
  stop(): Promise<void>;
}

const BRIDGE = '1.3.6.1.2.1.17';
const ENTITY = '1.3.6.1.2.1.47';
const LLDP = '1.0.8802.1.1.2';
const PRINTER = '1.3.6.1.2.1.43';
const HR_DEVICE_TABLE = '1.3.6.1.2.1.25.3.2';

// The subtrees each profile hands to pass_persist (those the data has OIDs under, so that LLDP-MIB
// stays free for lldpd when the test gives no LLDP rows), and its sysServices (RFC 3418 layers).
const PROFILES: Record<SnmpProfile, { roots: string[]; sysServices: number }> = {
  switch: { roots: [BRIDGE, ENTITY, LLDP], sysServices: 6 },
  printer: { roots: [PRINTER, HR_DEVICE_TABLE, ENTITY], sysServices: 72 },
  host: { roots: [], sysServices: 72 },
};

const START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 3_000;

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/** A config directive's argument: one line, or snmpd would read the rest as a new directive. */
function line(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`snmpd.conf values must be one line: ${JSON.stringify(value)}`);
  return value;
}

function config(options: SnmpAgentOptions, port: number, dir: string, agentxSocket: string, dataFile: string): string {
  const profile = PROFILES[options.profile];
  const oids = Object.keys(options.data ?? {});
  const roots = profile.roots.filter((root) => oids.some((oid) => oid.startsWith(`${root}.`)));
  const system = options.system ?? {};
  return [
    `agentAddress udp:127.0.0.1:${port}`,
    // persistentDir is a library token: in snmpd.conf it needs the [snmp] prefix.
    `[snmp] persistentDir ${dir}/persist`,
    'master agentx',
    `agentXSocket ${agentxSocket}`,
    `rocommunity ${line(options.community)} 127.0.0.1`,
    ...(options.v3Users ?? []).flatMap((u) => [
      `createUser ${line(u.name)} ${u.authProtocol} "${line(u.authKey)}"${u.privProtocol ? ` ${u.privProtocol} "${line(u.privKey ?? '')}"` : ''}`,
      `rouser ${u.name} ${u.privProtocol ? 'priv' : 'auth'}`,
    ]),
    `sysServices ${profile.sysServices}`,
    ...(system.sysName ? [`sysName ${line(system.sysName)}`] : []),
    ...(system.sysDescr ? [`sysDescr ${line(system.sysDescr)}`] : []),
    ...(system.sysObjectId ? [`sysObjectID .${line(system.sysObjectId)}`] : []),
    ...(system.sysLocation ? [`sysLocation ${line(system.sysLocation)}`] : []),
    ...(system.sysContact ? [`sysContact ${line(system.sysContact)}`] : []),
    ...roots.map((root) => `pass_persist .${root} ${process.execPath} ${PASS_PERSIST_SCRIPT} ${dataFile}`),
    '',
  ].join('\n');
}

function waitForStart(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', settle);
      if (error) reject(error);
      else resolve();
    };
    // snmpd logs its version once its transports are open.
    const onData = () => /NET-SNMP version/.test(output()) && settle();
    const onExit = (code: number | null) => settle(new Error(`snmpd exited (${code}) while starting:\n${output()}`));
    const timer = setTimeout(() => settle(new Error(`snmpd did not start within ${START_TIMEOUT_MS} ms:\n${output()}`)), START_TIMEOUT_MS);
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', settle);
  });
}

export async function startSnmpAgent(options: SnmpAgentOptions): Promise<SnmpAgent> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'snmpd-'));
  const port = await freeUdpPort();
  const agentxSocket = options.agentxSocket ?? path.join(dir, 'agentx.sock');
  const dataFile = path.join(dir, 'data.json');
  const configFile = path.join(dir, 'snmpd.conf');
  await writeFile(dataFile, JSON.stringify(options.data ?? {}));
  await writeFile(configFile, config(options, port, dir, agentxSocket, dataFile));
  const args = ['-f', '-Lo', '-C', '-c', configFile, '-p', path.join(dir, 'snmpd.pid')];
  // A printer has no Linux hrDeviceTable: snmpd's own would outrank the pass_persist rows.
  if (options.profile === 'printer') args.push('-I', '-hr_device');
  // detached: its own process group, so that stop() takes the pass_persist children with it.
  // MIBS empty: numeric OIDs only, no warnings about MIB files that are not installed.
  const child = spawn('/usr/sbin/snmpd', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MIBS: '' } });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-(child.pid as number), 'SIGTERM');
      const killer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForStart(child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, agentxSocket, stop };
}
