// The lab network: real peers for the discovery tests and benchmarks: hosts in network namespaces, each with its own PID, mount
// and UTS namespaces (so `ps` and `hostname` are its own), joined to this machine by a bridge, and
// running Debian's real sshd, snmpd and lldpd (and redis-server on one, for an application and a
// TCP connection between two hosts). h1 and h2 are also cabled to the "switch" sw (veth pairs into
// a Linux bridge): its lldpd sees them as LLDP neighbours and serves LLDP-MIB to its snmpd over
// AgentX, and its bridge's learnt MACs are served as BRIDGE-MIB (snmpd has no BRIDGE-MIB of its
// own: snmp-pass-persist.mjs serves what `bridge fdb` shows). `extraHosts` adds plain hosts (sshd
// and snmpd only) for figures that need more hosts than three; `dnsServer` adds ns, a plain host that
// also runs Debian's bind9 (named) with the lab's zones (DNS_ZONES); `dhcpServer` adds dhcp, a plain
// host that also runs ISC Kea (kea-dhcp4 with the lease_cmds hook, and kea-ctrl-agent with basic
// authentication), and the DHCP clients c1..c3 (namespaces of their own whose busybox udhcpc gets a
// real lease each), its lease file seeded before the start with what no client can make here
// (DHCP_SEEDED_LEASES: a lease of c1 on another subnet, expired; a device gone; a declined address;
// a lease whose host name is no DNS name); `ldapServer` and `adServer` add ldap and ad, plain hosts
// that also run the directories of directory-lab.ts (OpenLDAP's slapd, a Samba AD DC); `remoteSite`
// makes the lab a network only a remote scanner reaches (REMOTE_SITE). Needs root.
//
// One lab network per jest worker (LAB_INDEX), so that lab test files in different workers run side
// by side: every name, address and lock below derives from the index, and index 1's are the lab's
// first ones (a run of an older checkout on this machine uses those, and takes turns with index 1).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../platform/project-root.js';
import { AD_SERVER_OCTET, LDAP_SERVER_OCTET, replaceLdapCertificate, writeAdServer, writeLdapServer } from './directory-lab.js';
import { fingerprintHostSpecs, startFingerprintHosts, type FingerprintLab } from './fingerprint-lab.js';

const run = promisify(execFile);

/** Which lab network this process builds: its jest worker's (JEST_WORKER_ID counts from 1), else 1 (the benchmarks, the CLI tools). */
export const LAB_INDEX = Number(process.env.JEST_WORKER_ID ?? 1);
/** Far more workers than a machine of ours runs; the subnets below stay apart up to 176 (10.<79 + index>). */
const MAX_LAB_INDEX = 32;

/** The namespaces' and links' prefix: invt-h1, invt2-h1, ...; the longest link name, invtNN-e1540, stays within IFNAMSIZ (15). */
const PREFIX = LAB_INDEX === 1 ? 'invt' : `invt${LAB_INDEX}`;
/** The lab's /24 (10.77.0, 10.77.1, ...); the cables h1/h2-sw use 10.78.<same>, the DHCP server's other subnet 10.79.<same>. */
export const SUBNET = `10.77.${LAB_INDEX - 1}`;
const CABLE_SUBNET = `10.78.${LAB_INDEX - 1}`;
export const SCAN_USER = 'invscan';
export const SCAN_PASSWORD = 'scan-Password-1';
/** An account whose every command takes SLOW_SHELL_SECONDS before it starts (its login shell waits first), with SCAN_PASSWORD. */
export const SLOW_USER = 'invslow';
export const SLOW_SHELL_SECONDS = 5;
/**
 * An account like SCAN_USER but outside the adm group (so lldpctl is refused to it), with
 * SCAN_PASSWORD: a test of a refused command logs in with it, never by changing SCAN_USER, which
 * every lab network of the machine logs in with at the same time.
 */
export const LIMITED_USER = 'invlimited';
const SLOW_SHELL = '/usr/local/sbin/inventory-lab-slow-shell';
export const SNMP_COMMUNITY = 'inventory-ro';
export const SWITCH_SERIAL = 'SW-LAB-0001';
/** h1's lldpd has its control socket here (lldpd -u), not at the default place (in h1's own /run: every host has a private one). */
export const LAB_LLDP_SOCKET = '/run/lldpd/lab-control.socket';
const TOOLS = ['/usr/sbin/nft', '/usr/bin/ping', '/usr/bin/sudo', '/usr/sbin/snmpd', '/usr/bin/snmpwalk', '/usr/bin/snmpget', '/usr/sbin/bridge', '/usr/sbin/sshd', '/usr/sbin/lldpd', '/usr/sbin/lldpctl', '/usr/bin/redis-server', '/usr/bin/redis-cli', '/usr/bin/ssh-keygen', '/usr/bin/virsh', '/usr/bin/podman', '/bin/busybox', '/usr/sbin/named', '/usr/sbin/kea-dhcp4', '/usr/sbin/kea-ctrl-agent', '/usr/sbin/slapd', '/usr/sbin/slapadd', '/usr/bin/openssl', '/usr/sbin/samba', '/usr/bin/samba-tool', '/usr/bin/nmap', '/usr/sbin/cupsd', '/usr/sbin/mosquitto', '/usr/sbin/nginx', '/usr/lib/postgresql/15/bin/postgres'];

export interface TestHost {
  name: string;
  address: string;
  /** The host's view of itself, as its commands print it. */
  exec(command: string): Promise<string>;
  startSshd(): Promise<void>;
  stopSshd(): Promise<void>;
  /** A new host key (as when a host is rebuilt), sshd restarted with it. */
  replaceHostKey(): Promise<void>;
  /** What sshd logged so far: each login accepted or refused, by method (LogLevel INFO). */
  sshdLog(): Promise<string>;
}

export interface TestNetworkOptions {
  /** Plain hosts e1..eN at .101 onwards on the bridge, running sshd and snmpd only (0 by default). */
  extraHosts?: number;
  /** The DNS server ns (DNS_SERVER_ADDRESS): a plain host that also runs named with the lab's zones. */
  dnsServer?: boolean;
  /** The DHCP server dhcp (DHCP_SERVER_ADDRESS: Kea, its control agent on DHCP_AGENT_PORT) and its clients c1..c3. */
  dhcpServer?: boolean;
  /** With dhcpServer: that many more active leases in the lease file, on DHCP_EXTRA_SUBNET's /16 (10.80.0.0/16 at index 1; for figures). */
  dhcpExtraLeases?: number;
  /** The OpenLDAP server ldap (directory-lab.ts: LDAPS on 636, StartTLS on 389) with the lab's computers. */
  ldapServer?: boolean;
  /** With ldapServer: that many more computers under ou=Bench (for figures). */
  ldapExtraComputers?: number;
  /** The Samba AD domain controller ad (directory-lab.ts: a provisioned domain with its computers). */
  adServer?: boolean;
  /** The fingerprint lab's hosts (fingerprint-lab.ts): a printer, an IoT device, an SNMP-only switch and a server. */
  fingerprintHosts?: boolean;
  /** The lab as a remote site (REMOTE_SITE): the namespace scn on the bridge, and this machine's own traffic to the lab's hosts dropped. */
  remoteSite?: boolean;
}

/**
 * A remote site: the namespace where a remote scanner runs (scn, at `address` on the bridge: it
 * reaches every host), while this machine's own traffic to the lab subnet is dropped (an nft table
 * of its own, its rule counting what it dropped) but for scn's address, which reaches the service
 * here and gets its answers.
 */
export const REMOTE_SITE = {
  namespace: `${PREFIX}-scn`,
  address: `${SUBNET}.50`,
  table: `inventory_lab_${LAB_INDEX}_remote_site`,
};

/** The packets of this machine's own to the lab's hosts that the remote site's rule dropped. */
export async function remoteSiteDrops(): Promise<number> {
  const rules = await sh(`nft list chain ip ${REMOTE_SITE.table} output`);
  return Number(/counter packets (\d+)/.exec(rules)?.[1] ?? Number.NaN);
}

/** dhcp's address; its control agent answers on DHCP_AGENT_PORT. */
export const DHCP_SERVER_ADDRESS = `${SUBNET}.15`;
export const DHCP_AGENT_PORT = 8000;
/** The agent's one user (basic authentication). */
export const DHCP_AGENT_USER = 'inventory';
export const DHCP_AGENT_PASSWORD = 'kea-Agent-secret-1';
/** The clients, each in a namespace of its own, and the name each sends (option 12; none for c3). */
export const DHCP_CLIENTS = [
  { name: 'c1', mac: '02:77:00:00:00:21', hostname: 'c1' },
  { name: 'c2', mac: '02:77:00:00:00:22', hostname: 'c2.lab.test' },
  { name: 'c3', mac: '02:77:00:00:00:23' },
] as const;
/** The pool the clients' leases come from, in the lab subnet (subnet-id 1). */
export const DHCP_POOL = [`${SUBNET}.200`, `${SUBNET}.220`] as const;
/** Another subnet of the server (subnet-id 2), where c1 held a lease before. */
export const DHCP_OTHER_SUBNET = `10.79.${LAB_INDEX - 1}`;
/**
 * The leases written to the lease file before the server starts (how long ago each ended, in
 * seconds): c1's lease on the other subnet (reclaimed), a device gone (reclaimed), a declined
 * address (no MAC) and a lease whose host name is no DNS name (active: it ends in an hour).
 */
export const DHCP_SEEDED_LEASES = [
  { address: `${DHCP_OTHER_SUBNET}.21`, mac: '02:77:00:00:00:21', subnetId: 2, endedAgo: 600, state: 2, hostname: '' },
  { address: `${SUBNET}.230`, mac: '02:77:00:00:00:99', subnetId: 1, endedAgo: 600, state: 2, hostname: '' },
  { address: `${SUBNET}.231`, mac: '', subnetId: 1, endedAgo: -3600, state: 1, hostname: '' },
  { address: `${SUBNET}.232`, mac: '02:77:00:00:00:98', subnetId: 1, endedAgo: -3600, state: 0, hostname: 'bad host!' },
] as const;
const DHCP_VALID_LIFETIME = 3600;
const DHCP_EXTRA_SUBNET = `10.${80 + LAB_INDEX - 1}`;

/** A lease as the server's lease file (memfile CSV) holds it last. */
export interface LabLease {
  address: string;
  mac: string;
  hostname: string;
  /** Client last transaction time and valid lifetime (seconds). */
  cltt: number;
  validLifetime: number;
  state: number;
}

/** The server's configurations, its seeded lease file and its start; the clients are started after the server answers. */
async function writeDhcpServer(hostDir: string, extraLeases: number): Promise<string> {
  await sh(`mkdir -p ${hostDir}`);
  const now = Math.floor(Date.now() / 1000);
  const header = 'address,hwaddr,client_id,valid_lifetime,expire,subnet_id,fqdn_fwd,fqdn_rev,hostname,state,user_context';
  const rows = DHCP_SEEDED_LEASES.map((l) => `${l.address},${l.mac},,${DHCP_VALID_LIFETIME},${now - l.endedAgo},${l.subnetId},0,0,${l.hostname},${l.state},`);
  for (let i = 0; i < extraLeases; i++) {
    const mac = `02:80:00:${[i >> 16, (i >> 8) & 0xff, i & 0xff].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
    rows.push(`${DHCP_EXTRA_SUBNET}.${Math.floor((i + 256) / 256)}.${(i + 256) % 256},${mac},,${DHCP_VALID_LIFETIME},${now + DHCP_VALID_LIFETIME},3,0,0,bench-${i + 1},0,`);
  }
  await writeFile(path.join(hostDir, 'leases4.csv'), [header, ...rows, ''].join('\n'));
  const socket = path.join(hostDir, 'kea4.sock');
  const log = (name: string) => [{ name, output_options: [{ output: path.join(hostDir, `${name}.log`) }], severity: 'INFO' }];
  await writeFile(path.join(hostDir, 'kea-dhcp4.conf'), JSON.stringify({
    Dhcp4: {
      'interfaces-config': { interfaces: ['eth0'] },
      'lease-database': { type: 'memfile', persist: true, name: path.join(hostDir, 'leases4.csv'), 'lfc-interval': 0 },
      'control-socket': { 'socket-type': 'unix', 'socket-name': socket },
      'hooks-libraries': [{ library: '/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so' }],
      'valid-lifetime': DHCP_VALID_LIFETIME,
      // Reclaimed leases are kept a day (the seeded ones ended minutes ago), so that every read of a test sees them.
      'expired-leases-processing': { 'hold-reclaimed-time': 86_400 },
      subnet4: [
        { id: 1, subnet: `${SUBNET}.0/24`, pools: [{ pool: `${DHCP_POOL[0]} - ${DHCP_POOL[1]}` }] },
        { id: 2, subnet: `${DHCP_OTHER_SUBNET}.0/24`, pools: [{ pool: `${DHCP_OTHER_SUBNET}.10 - ${DHCP_OTHER_SUBNET}.50` }] },
        ...(extraLeases ? [{ id: 3, subnet: `${DHCP_EXTRA_SUBNET}.0.0/16`, pools: [{ pool: `${DHCP_EXTRA_SUBNET}.1.0 - ${DHCP_EXTRA_SUBNET}.255.255` }] }] : []),
      ],
      loggers: log('kea-dhcp4'),
    },
  }));
  await writeFile(path.join(hostDir, 'kea-ctrl-agent.conf'), JSON.stringify({
    'Control-agent': {
      'http-host': DHCP_SERVER_ADDRESS,
      'http-port': DHCP_AGENT_PORT,
      authentication: { type: 'basic', realm: 'inventory-lab', clients: [{ user: DHCP_AGENT_USER, password: DHCP_AGENT_PASSWORD }] },
      'control-sockets': { dhcp4: { 'socket-type': 'unix', 'socket-name': socket } },
      loggers: log('kea-ctrl-agent'),
    },
  }));
  await writeFile(path.join(hostDir, 'udhcpc.script'), '#!/bin/sh\n[ "$1" = bound ] && ip addr add "$ip/24" dev "$interface"\nexit 0\n', { mode: 0o755 });
  const env = `KEA_LOCKFILE_DIR=${hostDir} KEA_PIDFILE_DIR=${hostDir}`;
  return [
    `${env} /usr/sbin/kea-dhcp4 -c ${hostDir}/kea-dhcp4.conf > ${hostDir}/kea-dhcp4.out 2>&1 < /dev/null &`,
    `${env} /usr/sbin/kea-ctrl-agent -c ${hostDir}/kea-ctrl-agent.conf > ${hostDir}/kea-ctrl-agent.out 2>&1 < /dev/null &`,
  ].join('\n');
}

/** The leases of the lab's DHCP server as its lease file holds them (the last line of each address wins; a deleted lease has valid_lifetime 0). */
async function labLeases(hostDir: string): Promise<LabLease[]> {
  const lines = (await readFile(path.join(hostDir, 'leases4.csv'), 'utf8')).split('\n').slice(1).filter(Boolean);
  const byAddress = new Map<string, LabLease>();
  for (const line of lines) {
    const [address = '', mac = '', , valid = '0', expire = '0', , , , hostname = '', state = '0'] = line.split(',');
    byAddress.set(address, { address, mac, hostname: hostname.replace(/&#x2c/g, ','), cltt: Number(expire) - Number(valid), validLifetime: Number(valid), state: Number(state) });
  }
  return [...byAddress.values()];
}

/** ns's address, where named answers on TCP and UDP port 53. */
export const DNS_SERVER_ADDRESS = `${SUBNET}.14`;
/** The TSIG key (hmac-sha256) that secure.test's transfer needs. */
export const DNS_TSIG_KEY_NAME = 'inventory-xfr';
export const DNS_TSIG_SECRET = Buffer.from('inventory-lab-tsig-secret-32byte').toString('base64');
/**
 * The lab's zones on ns: lab.test (transfer allowed to anyone), secure.test (only with the TSIG
 * key), closed.test (no transfer at all), and the reverse zone of the lab subnet (not transferred;
 * it answers PTR queries). .97 and .99 and fd77::99 hold nothing alive.
 */
export const DNS_ZONES: Record<string, { transfer: 'any' | 'key' | 'none'; records: string[] }> = {
  'lab.test': {
    transfer: 'any',
    records: [
      `ns A ${SUBNET}.14`, `h1 A ${SUBNET}.11`, `h2 A ${SUBNET}.12`, `sw A ${SUBNET}.13`, `mail A ${SUBNET}.12`, 'www CNAME h2',
      `api A ${SUBNET}.11`, `api A ${SUBNET}.12`, `gone A ${SUBNET}.99`, 'gone6 AAAA fd77::99', 'txt TXT "not an address"',
    ],
  },
  'secure.test': { transfer: 'key', records: [`db A ${SUBNET}.11`, `old A ${SUBNET}.97`] },
  'closed.test': { transfer: 'none', records: [`hidden A ${SUBNET}.11`] },
  [`${SUBNET.split('.').reverse().join('.')}.in-addr.arpa`]: { transfer: 'none', records: ['11 PTR h1.lab.test.', '12 PTR h2.lab.test.', '13 PTR sw.lab.test.'] },
};

/** named's configuration and zone files for ns, in its folder. */
async function writeDnsServer(hostDir: string): Promise<string> {
  const zones = Object.entries(DNS_ZONES);
  await sh(`mkdir -p ${hostDir}`);
  for (const [zone, { records }] of zones) {
    await writeFile(path.join(hostDir, `${zone}.zone`), ['$TTL 300', '@ SOA ns.lab.test. hostmaster.lab.test. 2026112701 3600 600 86400 300', '@ NS ns.lab.test.', ...records, ''].join('\n'));
  }
  const transfer = { any: 'any;', key: `key ${DNS_TSIG_KEY_NAME};`, none: 'none;' };
  await writeFile(path.join(hostDir, 'named.conf'), [
    `options { directory "${hostDir}"; pid-file "${hostDir}/named.pid"; session-keyfile "${hostDir}/session.key"; listen-on port 53 { ${DNS_SERVER_ADDRESS}; }; listen-on-v6 { none; }; recursion no; dnssec-validation no; allow-transfer { none; }; };`,
    'controls { };',
    `key "${DNS_TSIG_KEY_NAME}" { algorithm hmac-sha256; secret "${DNS_TSIG_SECRET}"; };`,
    ...zones.map(([zone, { transfer: t }]) => `zone "${zone}" { type primary; file "${hostDir}/${zone}.zone"; allow-transfer { ${transfer[t]} }; };`),
    '',
  ].join('\n'));
  return `/usr/sbin/named -4 -g -c ${hostDir}/named.conf > ${hostDir}/named.log 2>&1 &`;
}

export interface TestNetwork {
  hosts: Record<'h1' | 'h2' | 'sw', TestHost>;
  /** ns, with dnsServer. */
  dns?: TestHost;
  /** dhcp, with dhcpServer, and what its lease file holds. */
  dhcp?: TestHost & { leases(): Promise<LabLease[]> };
  /** ldap, with ldapServer; its certificate can be replaced (slapd restarted with a new one). */
  ldap?: TestHost & { replaceCertificate(): Promise<void> };
  /** ad, with adServer. */
  ad?: TestHost;
  /** The hosts of `extraHosts`, e1..eN. */
  extraHosts: TestHost[];
  /** With fingerprintHosts. */
  fingerprint?: FingerprintLab;
  /** The private key of SCAN_USER (OpenSSH format). */
  privateKey: string;
  /** An address on the subnet where nothing is. */
  emptyAddress: string;
  stop(): Promise<void>;
}

/** Why the namespace peers cannot run here, or undefined when they can. */
export async function networkUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'the discovery peer tests need root (network namespaces); run them as root, as CI does';
  for (const tool of TOOLS) {
    try {
      await run('test', ['-x', tool]);
    } catch {
      return `${tool} is missing; scripts/ensure-test-prerequisites.sh installs it when run as root`;
    }
  }
  return undefined;
}

export async function sh(command: string): Promise<string> {
  const { stdout } = await run('sh', ['-c', command], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function quiet(command: string): Promise<void> {
  await sh(command).catch(() => undefined);
}

/** Removes what an earlier run may have left: namespaces, links, their processes. */
async function cleanUp(): Promise<void> {
  const namespaces = (await sh('ip netns list').catch(() => '')).split('\n').map((l) => l.split(' ')[0] ?? '').filter((n) => n.startsWith(`${PREFIX}-`));
  for (const ns of namespaces) {
    await quiet(`ip netns pids ${ns} | xargs -r kill -9`);
    await quiet(`ip netns del ${ns}`);
  }
  await quiet(`ip link del ${PREFIX}-br`);
  await quiet(`nft delete table ip ${REMOTE_SITE.table}`);
}

/** The scan account's sudo rule, one file per lab network (each removes its own at its stop). */
const SUDOERS = `/etc/sudoers.d/${SCAN_USER}${LAB_INDEX === 1 ? '' : `-lab${LAB_INDEX}`}`;

// One lab network per index at a time on this machine, which its lock file (holding the owner's
// pid) enforces; a lock whose owner is gone is taken over. A second user waits for the first (two
// test runs on one machine take turns) up to LOCK_WAIT_MS, then says who holds it.
const LOCK = path.join(os.tmpdir(), LAB_INDEX === 1 ? 'inventory-lab-network.lock' : `inventory-lab-network-${LAB_INDEX}.lock`);
/** The accounts and the slow shell are the machine's, shared by every index: set up under a lock of their own, held only for that. */
const ACCOUNTS_LOCK = path.join(os.tmpdir(), 'inventory-lab-accounts.lock');
const LOCK_WAIT_MS = 30 * 60_000;
const LOCK_POLL_MS = 2_000;
/** How long a caller should allow startTestNetwork: the wait for the lock, then the start itself. */
export const LAB_START_TIMEOUT_MS = LOCK_WAIT_MS + 120_000;

function ownerAlive(owner: number): boolean {
  try {
    return owner > 0 && owner !== process.pid && process.kill(owner, 0);
  } catch {
    return false;
  }
}

export async function takeLock(lock: string, what: string): Promise<void> {
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(await readFile(lock, 'utf8').catch(() => ''));
    if (!ownerAlive(owner)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() > giveUpAt) throw new Error(`Timed out waiting for ${what}: process ${owner} holds it (${lock}).`);
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/**
 * The scan account (a password; lldpctl through the adm group: Debian's lldpcli is setuid _lldpd,
 * executable by adm), the limited account (the same, outside adm) and the slow account (time-out
 * tests need commands that really take long, whatever the machine's speed) with its shell. Only what is not as wanted is written: a lab
 * network of another index may be logging in with them meanwhile.
 */
async function ensureAccounts(): Promise<void> {
  await takeLock(ACCOUNTS_LOCK, 'the lab accounts');
  try {
    const shell = `#!/bin/sh\nsleep ${SLOW_SHELL_SECONDS}\nexec /bin/sh "$@"\n`;
    if ((await readFile(SLOW_SHELL, 'utf8').catch(() => '')) !== shell) await replaceFile(SLOW_SHELL, shell, 0o755);
    await ensureAccount(SCAN_USER, '/bin/sh', ['adm']);
    await ensureAccount(LIMITED_USER, '/bin/sh', []);
    await ensureAccount(SLOW_USER, SLOW_SHELL, []);
  } finally {
    await rm(ACCOUNTS_LOCK, { force: true });
  }
}

/**
 * A local account with its login shell, SCAN_PASSWORD and groups, changed only where it differs;
 * retried, as a run of an older checkout changes the account files without ACCOUNTS_LOCK (the
 * shadow tools then refuse, the files being locked).
 */
async function ensureAccount(user: string, shell: string, groups: string[]): Promise<void> {
  const wanted = [
    `test "$(getent passwd ${user} | cut -d: -f7)" = ${shell}`,
    `perl -e '$h = (getpwnam($ARGV[0]))[1]; exit(crypt($ARGV[1], $h) eq $h ? 0 : 1)' ${user} '${SCAN_PASSWORD}'`,
    ...groups.map((group) => `id -nG ${user} | grep -qw ${group}`),
  ].join(' && ');
  const change = [
    `{ id ${user} > /dev/null 2>&1 || useradd -M -d /tmp -s ${shell} ${user}; }`,
    `usermod -s ${shell}${groups.length ? ` -aG ${groups.join(',')}` : ''} ${user}`,
    `echo '${user}:${SCAN_PASSWORD}' | chpasswd`,
  ].join(' && ');
  await waitFor(async () => {
    await sh(`{ ${wanted}; } || { ${change}; }`);
  }, `the account ${user}`);
}

/** Written aside and renamed into place: a reader (a login's shell, sudo reading every file of sudoers.d) never sees half of it. */
async function replaceFile(file: string, content: string, mode: number): Promise<void> {
  // sudo skips names with a dot in sudoers.d.
  const aside = `${file}.${process.pid}`;
  await writeFile(aside, content, { mode });
  await rename(aside, file);
}

interface HostSpec {
  name: string;
  octet: number;
  /** The ports lldpd runs on; a plain host runs no lldpd. */
  lldpPorts?: string;
  /** lldpd's control socket where it is not the default one (-u). */
  lldpSocket?: string;
  extra: string;
}

const EXTRA_HOSTS_FROM = 101;
const MAX_EXTRA_HOSTS = 254 - EXTRA_HOSTS_FROM + 1;

export async function startTestNetwork({ extraHosts = 0, dnsServer = false, dhcpServer = false, dhcpExtraLeases = 0, ldapServer = false, ldapExtraComputers = 0, adServer = false, fingerprintHosts = false, remoteSite = false }: TestNetworkOptions = {}): Promise<TestNetwork> {
  if (!Number.isInteger(extraHosts) || extraHosts < 0 || extraHosts > MAX_EXTRA_HOSTS) throw new RangeError(`extraHosts must be an integer from 0 to ${MAX_EXTRA_HOSTS}`);
  if (!Number.isInteger(LAB_INDEX) || LAB_INDEX < 1 || LAB_INDEX > MAX_LAB_INDEX) throw new RangeError(`lab network ${LAB_INDEX} (JEST_WORKER_ID): the lab networks are 1 to ${MAX_LAB_INDEX}; run fewer jest workers`);
  await takeLock(LOCK, `lab network ${LAB_INDEX}`);
  await cleanUp();
  await ensureAccounts();
  await replaceFile(SUDOERS, `${SCAN_USER} ALL=(root) NOPASSWD: /usr/bin/ss, /usr/bin/podman ps *, /usr/bin/podman inspect *\n`, 0o440);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'inventory-peers-'));
  await chmod(dir, 0o755);
  await sh(`ssh-keygen -q -t ed25519 -N '' -f ${dir}/scan_key && cp ${dir}/scan_key.pub ${dir}/authorized_keys && chmod 644 ${dir}/authorized_keys`);
  const privateKey = await sh(`cat ${dir}/scan_key`);

  const inits: ChildProcess[] = [];
  const stop = async () => {
    for (const child of inits) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The host's processes are gone already (ESRCH): removing its namespace is all that is left.
      }
    }
    await cleanUp();
    await rm(dir, { recursive: true, force: true });
    await rm(SUDOERS, { force: true });
    await rm(LOCK, { force: true });
  };
  try {
    return await build(dir, inits, privateKey, { extraHosts, dnsServer, dhcpServer, dhcpExtraLeases, ldapServer, ldapExtraComputers, adServer, fingerprintHosts, remoteSite }, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function build(dir: string, inits: ChildProcess[], privateKey: string, options: Required<TestNetworkOptions>, stop: () => Promise<void>): Promise<TestNetwork> {
  const { extraHosts, dnsServer, dhcpServer, dhcpExtraLeases, ldapServer, ldapExtraComputers, adServer, fingerprintHosts, remoteSite } = options;
  await sh(`ip link add ${PREFIX}-br type bridge && ip addr add ${SUBNET}.1/24 dev ${PREFIX}-br && ip link set ${PREFIX}-br up`);
  const specs: HostSpec[] = [
    { name: 'h1', octet: 11, lldpPorts: 'eth1', lldpSocket: LAB_LLDP_SOCKET, extra: '' },
    { name: 'h2', octet: 12, lldpPorts: 'eth1', extra: `redis-server --bind ${SUBNET}.12 --port 6379 --save '' --appendonly no --daemonize no --protected-mode no > /dev/null 2>&1 &` },
    { name: 'sw', octet: 13, lldpPorts: 'swp1,swp2', extra: '' },
    ...(dnsServer ? [{ name: 'ns', octet: 14, extra: await writeDnsServer(path.join(dir, 'ns')) }] : []),
    ...(dhcpServer ? [{ name: 'dhcp', octet: 15, extra: await writeDhcpServer(path.join(dir, 'dhcp'), dhcpExtraLeases) }] : []),
    ...(ldapServer ? [{ name: 'ldap', octet: LDAP_SERVER_OCTET, extra: await writeLdapServer(path.join(dir, 'ldap'), `${SUBNET}.${LDAP_SERVER_OCTET}`, SUBNET, ldapExtraComputers) }] : []),
    ...(adServer ? [{ name: 'ad', octet: AD_SERVER_OCTET, extra: await writeAdServer(path.join(dir, 'ad')) }] : []),
    ...(fingerprintHosts ? fingerprintHostSpecs() : []),
    ...Array.from({ length: extraHosts }, (_, i) => ({ name: `e${i + 1}`, octet: EXTRA_HOSTS_FROM + i, extra: '' })),
  ];
  const all = new Map<string, TestHost>();
  for (const spec of specs) {
    const ns = `${PREFIX}-${spec.name}`;
    await sh(`ip netns add ${ns} && ip -n ${ns} link set lo up`);
    await sh(`ip link add ${PREFIX}-${spec.name}0 type veth peer name eth0 netns ${ns} && ip link set ${PREFIX}-${spec.name}0 master ${PREFIX}-br up`);
    await sh(`ip -n ${ns} addr add ${SUBNET}.${spec.octet}/24 dev eth0 && ip -n ${ns} link set eth0 up`);
  }
  // The cables to the switch, and the switch's bridge over its two ports.
  for (const [host, port] of [['h1', 'swp1'], ['h2', 'swp2']] as const) {
    await sh(`ip link add eth1 netns ${PREFIX}-${host} type veth peer name ${port} netns ${PREFIX}-sw`);
    await sh(`ip -n ${PREFIX}-${host} link set eth1 up && ip -n ${PREFIX}-sw link set ${port} up`);
  }
  await sh(`ip -n ${PREFIX}-sw link add br0 type bridge && ip -n ${PREFIX}-sw link set swp1 master br0 && ip -n ${PREFIX}-sw link set swp2 master br0 && ip -n ${PREFIX}-sw link set br0 up`);
  await sh(`ip -n ${PREFIX}-h1 addr add ${CABLE_SUBNET}.11/24 dev eth1 && ip -n ${PREFIX}-h2 addr add ${CABLE_SUBNET}.12/24 dev eth1`);
  // An interface's IPv6 link-local address comes a moment after it is up, once duplicate address
  // detection is done (longer on a loaded machine): wait for every one, so that each scan of a
  // host sees the same addresses (SNMP lists them).
  for (const spec of specs) {
    const ns = `${PREFIX}-${spec.name}`;
    await waitFor(async () => {
      const up = (await sh(`ip -n ${ns} -o link show up`)).split('\n').map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1]).filter((name): name is string => !!name && name !== 'lo');
      const linkLocal = await sh(`ip -n ${ns} -6 -o addr show scope link`);
      const pending = [...up.filter((name) => !new RegExp(`^\\d+: ${name}\\s+inet6 `, 'm').test(linkLocal)), ...(await sh(`ip -n ${ns} -6 -o addr show tentative`)).split('\n').filter(Boolean)];
      if (pending.length) throw new Error(`in ${ns}: ${pending.join(', ')}`);
    }, 'the IPv6 link-local addresses');
  }
  // Traffic over the cables (an ARP exchange and a refused connection), so that the switch learns both MACs.
  await sh(`ip netns exec ${PREFIX}-h1 timeout 2 bash -c 'echo > /dev/tcp/${CABLE_SUBNET}.12/9' 2>/dev/null || true`);
  await writeFile(path.join(dir, 'bridge-mib.json'), JSON.stringify(await switchMib()));

  for (const spec of specs) {
    const ns = `${PREFIX}-${spec.name}`;
    const hostDir = path.join(dir, spec.name);
    await sh(`mkdir -p ${hostDir} && ssh-keygen -q -t ed25519 -N '' -f ${hostDir}/host_key`);
    await writeFile(path.join(hostDir, 'sshd_config'), [
      'Port 22', 'ListenAddress 0.0.0.0', `HostKey ${hostDir}/host_key`, 'PidFile /run/sshd.pid', 'UsePAM no', 'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no', 'PermitRootLogin no', `AuthorizedKeysFile ${dir}/authorized_keys`, 'StrictModes no', 'LogLevel INFO', '',
    ].join('\n'));
    await writeFile(path.join(hostDir, 'snmpd.conf'), [
      'agentAddress udp:161',
      `[snmp] persistentDir ${hostDir}/snmp`,
      'master agentx',
      'agentXSocket /run/agentx.sock',
      `rocommunity ${SNMP_COMMUNITY} ${SUBNET}.0/24`,
      `sysServices ${spec.name === 'sw' ? 6 : 72}`,
      ...(spec.name === 'sw' ? [BRIDGE, ENTITY].map((root) => `pass_persist .${root} ${process.execPath} ${PASS_PERSIST_SCRIPT} ${dir}/bridge-mib.json`) : []),
      '',
    ].join('\n'));
    // The host's own init: a private /run (sshd's, snmpd's and lldpd's sockets and pid files), its daemons, then wait.
    const init = [
      `hostname ${spec.name}`,
      'mount -t tmpfs tmpfs /run',
      'mkdir -p /run/sshd /run/lldpd',
      `/usr/sbin/sshd -f ${hostDir}/sshd_config -E ${hostDir}/sshd.log`,
      `MIBS= /usr/sbin/snmpd -C -c ${hostDir}/snmpd.conf -p /run/snmpd.pid -Lf ${hostDir}/snmpd.log`,
      spec.lldpPorts ? `/usr/sbin/lldpd -d -x -X /run/agentx.sock -I ${spec.lldpPorts}${spec.lldpSocket ? ` -u ${spec.lldpSocket}` : ''} > /dev/null 2>&1 &` : '',
      spec.extra,
      // pid 1 reaps orphans as a real init does (sshd's ended sessions would stay zombies otherwise).
      "exec perl -e 'while (1) { sleep 1 if waitpid(-1, 0) <= 0 }'",
    ].filter(Boolean).join('\n');
    const child = spawn('ip', ['netns', 'exec', ns, 'unshare', '--pid', '--fork', '--mount-proc', '--uts', '--mount', '--propagation', 'private', 'sh', '-c', init], {
      stdio: 'ignore',
      detached: true,
    });
    inits.push(child);
    // unshare forks the host's init (pid 1 inside); commands enter all of its namespaces.
    const enter = async (command: string) => {
      const initPid = (await sh(`pgrep -P ${child.pid}`)).trim().split('\n')[0];
      return sh(`nsenter -t ${initPid} -a sh -c ${JSON.stringify(command)}`);
    };
    const host: TestHost = {
      name: spec.name,
      address: `${SUBNET}.${spec.octet}`,
      exec: enter,
      startSshd: async () => {
        await enter(`/usr/sbin/sshd -f ${hostDir}/sshd_config -E ${hostDir}/sshd.log`);
      },
      // The listener only: its process title names it; ended sessions are not its business.
      stopSshd: async () => {
        await enter("pkill -f '^sshd: /usr/sbin/sshd' && while pgrep -f '^sshd: /usr/sbin/sshd' > /dev/null; do sleep 0.05; done");
      },
      replaceHostKey: async () => {
        await host.stopSshd();
        await sh(`rm -f ${hostDir}/host_key ${hostDir}/host_key.pub && ssh-keygen -q -t ed25519 -N '' -f ${hostDir}/host_key`);
        await host.startSshd();
      },
      sshdLog: () => readFile(path.join(hostDir, 'sshd.log'), 'utf8'),
    };
    all.set(spec.name, host);
  }
  const byName = (name: string) => all.get(name) as TestHost;
  const hosts: TestNetwork['hosts'] = { h1: byName('h1'), h2: byName('h2'), sw: byName('sw') };
  await waitFor(async () => {
    for (const host of all.values()) await sh(`ip netns exec ${PREFIX}-${host.name} sh -c 'ss -Hlnt | grep -q ":22 " && ss -Hlnu | grep -q ":161 "'`);
    await sh(`ip netns exec ${PREFIX}-h2 sh -c 'ss -Hlnt | grep -q ":6379 "'`);
    if (dnsServer) await sh(`ip netns exec ${PREFIX}-ns sh -c 'ss -Hlnt | grep -q ":53 "'`);
    if (dhcpServer) await sh(`ip netns exec ${PREFIX}-dhcp sh -c 'ss -Hlnt | grep -q ":${DHCP_AGENT_PORT} " && test -S ${dir}/dhcp/kea4.sock'`);
    if (ldapServer) await sh(`ip netns exec ${PREFIX}-ldap sh -c 'ss -Hlnt | grep -q ":636 "'`);
    // A domain controller that stopped (a task it could not start) says why only in its log.
    if (adServer) await sh(`ip netns exec ${PREFIX}-ad sh -c 'ss -Hlnt | grep -q ":636 "'`).catch(async (error: Error) => {
      const log = await readFile(path.join(dir, 'ad', 'samba.log'), 'utf8').catch(() => '');
      throw new Error(`${error.message}; samba.log ends: ${log.split('\n').slice(-6).join(' | ')}`);
    });
  }, 'sshd, snmpd, redis-server (and named, Kea, slapd, samba) listening in every host', 120_000);
  if (dhcpServer) await startDhcpClients(path.join(dir, 'dhcp'));
  if (remoteSite) await isolateRemoteSite();
  const fingerprint = fingerprintHosts ? await startFingerprintHosts(all, dir) : undefined;
  // A long-lived client connection h1 → h2 (COMMUNICATES_WITH), and traffic over the cables so that
  // the switch's bridge learns the hosts' MACs.
  await hosts.h1.exec(`redis-cli -h ${SUBNET}.12 subscribe inventory > /dev/null 2>&1 &`);
  await waitFor(async () => {
    const out = await sh(`ip netns exec ${PREFIX}-h1 ss -Htn state established`);
    if (!out.includes(`${SUBNET}.12:6379`)) throw new Error('no connection yet');
    for (const host of ['h1', 'h2'] as const) {
      const json = await hosts[host].exec(`lldpctl${host === 'h1' ? ` -u ${LAB_LLDP_SOCKET}` : ''} -f json0`);
      if (!json.includes('"swp')) throw new Error(`${host} has no LLDP neighbour yet`);
    }
    // lldpd reaches the switch's snmpd over AgentX: LLDP-MIB answers there.
    const walk = await hosts.sw.exec(`snmpwalk -v2c -c ${SNMP_COMMUNITY} -On ${SUBNET}.13 1.0.8802.1.1.2.1.4.1.1.9`);
    if ((walk.match(/STRING/g) ?? []).length < 2) throw new Error('no LLDP-MIB neighbours on the switch yet');
    // snmpd starts its pass_persist helpers at their first request: before the scans, so that every scan sees the same processes.
    await hosts.sw.exec(`snmpget -v2c -c ${SNMP_COMMUNITY} ${SUBNET}.13 ${BRIDGE}.1.2.0 ${ENTITY}.1.1.1.1.11.1`);
  }, 'the redis connection and the LLDP neighbours');

  return {
    hosts,
    extraHosts: [...all.values()].slice(specs.length - extraHosts),
    ...(dnsServer ? { dns: byName('ns') } : {}),
    ...(dhcpServer ? { dhcp: { ...byName('dhcp'), leases: () => labLeases(path.join(dir, 'dhcp')) } } : {}),
    ...(ldapServer ? { ldap: { ...byName('ldap'), replaceCertificate: () => replaceLdapCertificate(byName('ldap'), path.join(dir, 'ldap')) } } : {}),
    ...(adServer ? { ad: byName('ad') } : {}),
    ...(fingerprint ? { fingerprint } : {}),
    privateKey,
    emptyAddress: `${SUBNET}.99`,
    stop,
  };
}

/** The remote site's namespace on the bridge, and the rule that keeps this machine's own traffic from the hosts (REMOTE_SITE). */
async function isolateRemoteSite(): Promise<void> {
  const { namespace: ns, address, table } = REMOTE_SITE;
  await sh(`ip netns add ${ns} && ip -n ${ns} link set lo up`);
  await sh(`ip link add ${PREFIX}-scn0 type veth peer name eth0 netns ${ns} && ip link set ${PREFIX}-scn0 master ${PREFIX}-br up`);
  await sh(`ip -n ${ns} addr add ${address}/24 dev eth0 && ip -n ${ns} link set eth0 up`);
  await sh(`nft add table ip ${table} && nft add chain ip ${table} output '{ type filter hook output priority 0; }' && nft add rule ip ${table} output ip daddr ${SUBNET}.0/24 ip daddr != ${address} counter drop`);
}

/** Each client in a namespace of its own on the bridge, with its MAC: busybox udhcpc gets a lease (one after the other, so that the pool gives them its first addresses in order), binds it and quits. */
async function startDhcpClients(hostDir: string): Promise<void> {
  for (const client of DHCP_CLIENTS) {
    const ns = `${PREFIX}-${client.name}`;
    await sh(`ip netns add ${ns} && ip -n ${ns} link set lo up`);
    await sh(`ip link add ${PREFIX}-${client.name}0 type veth peer name eth0 netns ${ns} && ip link set ${PREFIX}-${client.name}0 master ${PREFIX}-br up`);
    await sh(`ip -n ${ns} link set eth0 address ${client.mac} && ip -n ${ns} link set eth0 up`);
    const name = 'hostname' in client ? ` -x hostname:${client.hostname}` : '';
    await sh(`ip netns exec ${ns} /bin/busybox udhcpc -i eth0 -q -n -t 10 -T 1 -s ${hostDir}/udhcpc.script${name} > ${hostDir}/udhcpc-${client.name}.log 2>&1 < /dev/null`);
  }
}

async function waitFor(check: () => Promise<void>, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > end) throw new Error(`Timed out waiting for ${what}: ${error instanceof Error ? error.message : error}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A value as snmp-pass-persist.mjs serves it: octet is space-separated hex ("00 1a 2b"). */
export interface PassValue {
  type: 'integer' | 'gauge' | 'counter' | 'timeticks' | 'ipaddress' | 'objectid' | 'string' | 'octet';
  value: string | number;
}

const BRIDGE = '1.3.6.1.2.1.17';
const ENTITY = '1.3.6.1.2.1.47';
export const PASS_PERSIST_SCRIPT = path.join(PROJECT_ROOT, 'src', 'tools', 'lab', 'snmp-pass-persist.mjs');

/** The switch's BRIDGE-MIB (ports, and the MACs its bridge learnt) and ENTITY-MIB chassis row, from the real bridge. */
async function switchMib(): Promise<Record<string, PassValue>> {
  const ns = `${PREFIX}-sw`;
  const links = JSON.parse(await sh(`ip -n ${ns} -j link show`)) as { ifindex: number; ifname: string }[];
  const fdb = JSON.parse(await sh(`ip netns exec ${ns} bridge -j fdb show br br0`)) as { mac: string; ifname: string; state?: string; flags?: string[] }[];
  const ports = ['swp1', 'swp2'];
  const data: Record<string, PassValue> = {
    [`${BRIDGE}.1.2.0`]: { type: 'integer', value: ports.length },
    [`${ENTITY}.1.1.1.1.5.1`]: { type: 'integer', value: 3 },
    [`${ENTITY}.1.1.1.1.10.1`]: { type: 'string', value: '1.0.4' },
    [`${ENTITY}.1.1.1.1.11.1`]: { type: 'string', value: SWITCH_SERIAL },
    [`${ENTITY}.1.1.1.1.12.1`]: { type: 'string', value: 'Inventory Labs' },
    [`${ENTITY}.1.1.1.1.13.1`]: { type: 'string', value: 'Lab Switch 2' },
  };
  ports.forEach((name, i) => {
    data[`${BRIDGE}.1.4.1.2.${i + 1}`] = { type: 'integer', value: links.find((l) => l.ifname === name)?.ifindex ?? 0 };
  });
  // Learnt entries only: the bridge's own port addresses are "permanent".
  for (const entry of fdb.filter((e) => e.state !== 'permanent' && ports.includes(e.ifname))) {
    const index = entry.mac.split(':').map((h) => parseInt(h, 16)).join('.');
    data[`${BRIDGE}.4.3.1.1.${index}`] = { type: 'octet', value: entry.mac.split(':').join(' ') };
    data[`${BRIDGE}.4.3.1.2.${index}`] = { type: 'integer', value: ports.indexOf(entry.ifname) + 1 };
    data[`${BRIDGE}.4.3.1.3.${index}`] = { type: 'integer', value: 3 };
  }
  return data;
}
