// The lab's directories (lab-network.ts adds their hosts): OpenLDAP's slapd with Active
// Directory's computer class (msuser.schema, which Debian's slapd ships: computer, dNSHostName,
// operatingSystem, operatingSystemVersion, lastLogonTimestamp, location) and the standard ipHost
// class (nis.schema: ipHostNumber, l), serving LDAP with StartTLS on 389 and LDAPS on 636 with a
// self-signed certificate, a read-only bind account and LAB_COMPUTERS (and `extra` more under
// ou=Bench, for figures), loaded with slapadd before the start.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The OpenLDAP server's host on the lab's subnet. */
export const LDAP_SERVER_OCTET = 16;
export const LDAP_BASE_DN = 'dc=lab,dc=test';
export const LDAP_BIND_DN = `cn=inventory,ou=service,${LDAP_BASE_DN}`;
export const LDAP_BIND_PASSWORD = 'ldap-Reader-secret-1';

export interface LabComputer {
  /** Its RDN value (cn). */
  name: string;
  /** The OUs it sits in, top first. */
  ous: string[];
  dnsHostName: string;
  operatingSystem: string;
  operatingSystemVersion: string;
  /** lastLogonTimestamp as a Windows FILETIME (100 ns since 1601). */
  lastLogonTimestamp: string;
  location: string;
  /** ipHostNumber, where the computer has one. */
  address?: string;
}

/** An ISO time as a Windows FILETIME. */
export const filetime = (iso: string) => String(BigInt(Date.parse(iso)) * 10_000n + 116_444_736_000_000_000n);

/** What the lab's OpenLDAP holds: h1 (with its address) and h2 (by name only) are also lab hosts; the others are on no network. */
export function labComputers(subnet: string): LabComputer[] {
  return [
    { name: 'h1', ous: ['Paris', 'Servers'], dnsHostName: 'h1.lab.test', operatingSystem: 'Debian GNU/Linux', operatingSystemVersion: '12', lastLogonTimestamp: filetime('2026-11-20T08:00:00Z'), location: 'Paris DC1', address: `${subnet}.11` },
    { name: 'h2', ous: ['Paris', 'Servers'], dnsHostName: 'h2.lab.test', operatingSystem: 'Debian GNU/Linux', operatingSystemVersion: '12', lastLogonTimestamp: filetime('2026-11-21T08:00:00Z'), location: 'Paris DC2' },
    { name: 'ws-017', ous: ['Lyon', 'Workstations'], dnsHostName: 'ws-017.lab.test', operatingSystem: 'Windows 11 Enterprise', operatingSystemVersion: '10.0 (22631)', lastLogonTimestamp: filetime('2026-10-02T17:45:00Z'), location: 'Lyon 3rd floor' },
    { name: 'old-file-01', ous: ['Paris', 'Servers'], dnsHostName: 'old-file-01.lab.test', operatingSystem: 'Windows Server 2012 R2 Standard', operatingSystemVersion: '6.3 (9600)', lastLogonTimestamp: filetime('2025-03-14T09:30:00Z'), location: 'Paris DC1', address: `${subnet}.98` },
  ];
}

/** A lab computer's DN in the OpenLDAP directory. */
export const dnOf = (c: LabComputer) => [`cn=${c.name}`, ...[...c.ous].reverse().map((ou) => `ou=${ou}`), LDAP_BASE_DN].join(',');

function computerLdif(c: LabComputer): string {
  return [
    `dn: ${dnOf(c)}`, 'objectClass: computer', ...(c.address ? ['objectClass: ipHost', `ipHostNumber: ${c.address}`] : []),
    // What AD's top class requires (msuser.schema's mstop): an instance type, a category, a security descriptor (an empty one).
    'instanceType: 4', `objectCategory: cn=Computer,cn=Schema,cn=Configuration,${LDAP_BASE_DN}`, 'nTSecurityDescriptor:: AQAEgA==',
    `cn: ${c.name}`, `sn: ${c.name}`, `dNSHostName: ${c.dnsHostName}`, `operatingSystem: ${c.operatingSystem}`,
    `operatingSystemVersion: ${c.operatingSystemVersion}`, `lastLogonTimestamp: ${c.lastLogonTimestamp}`, `location: ${c.location}`, '',
  ].join('\n');
}

/** The extra computers of a directory for figures: bench-00001.bench.lab.test, ... under ou=Bench. */
export function benchComputer(i: number): LabComputer {
  const name = `bench-${String(i).padStart(5, '0')}`;
  return { name, ous: ['Bench'], dnsHostName: `${name}.bench.lab.test`, operatingSystem: 'Windows 10 Pro', operatingSystemVersion: '10.0 (19045)', lastLogonTimestamp: filetime('2026-11-01T00:00:00Z'), location: 'Bench' };
}

/** A new self-signed certificate (and key) for the server at the address. */
async function writeCertificate(hostDir: string, address: string): Promise<void> {
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=ldap.lab.test', '-addext', `subjectAltName=IP:${address},DNS:ldap.lab.test`,
    '-keyout', `${hostDir}/server.key`, '-out', `${hostDir}/server.crt`]);
}

const slapdCommand = (hostDir: string, address: string) => `/usr/sbin/slapd -f ${hostDir}/slapd.conf -h "ldap://${address}:389/ ldaps://${address}:636/" > ${hostDir}/slapd.log 2>&1`;

/**
 * Writes slapd's configuration, certificate and database (slapadd) under hostDir, and returns the
 * command that starts it at the address.
 */
export async function writeLdapServer(hostDir: string, address: string, subnet: string, extra = 0): Promise<string> {
  await run('mkdir', ['-p', `${hostDir}/db`]);
  await writeCertificate(hostDir, address);
  await writeFile(path.join(hostDir, 'slapd.conf'), [
    ...['core', 'cosine', 'nis', 'inetorgperson', 'msuser'].map((s) => `include /etc/ldap/schema/${s}.schema`),
    `pidfile ${hostDir}/slapd.pid`,
    `argsfile ${hostDir}/slapd.args`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `TLSCertificateFile ${hostDir}/server.crt`,
    `TLSCertificateKeyFile ${hostDir}/server.key`,
    // Paged searches of any length (the connector bounds its own reads).
    'sizelimit unlimited',
    'database mdb',
    `suffix "${LDAP_BASE_DN}"`,
    `rootdn "cn=admin,${LDAP_BASE_DN}"`,
    `directory ${hostDir}/db`,
    'maxsize 1073741824',
    // The root DSE to anyone; passwords only to bind with; everything else to the read-only account.
    'access to dn.base="" by * read',
    'access to attrs=userPassword by anonymous auth by * none',
    `access to * by dn.exact="${LDAP_BIND_DN}" read by * none`,
    '',
  ].join('\n'));
  const computers = [...labComputers(subnet), ...Array.from({ length: extra }, (_, i) => benchComputer(i + 1))];
  const ous = [...new Set(computers.flatMap((c) => c.ous.map((_, i) => c.ous.slice(0, i + 1).reverse().map((ou) => `ou=${ou}`).join(','))))].sort((a, b) => a.split(',').length - b.split(',').length);
  const ldif = [
    `dn: ${LDAP_BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: lab\no: Lab\n`,
    `dn: ou=service,${LDAP_BASE_DN}\nobjectClass: organizationalUnit\nou: service\n`,
    `dn: ${LDAP_BIND_DN}\nobjectClass: person\ncn: inventory\nsn: inventory\nuserPassword: ${LDAP_BIND_PASSWORD}\n`,
    ...ous.map((ou) => `dn: ${ou},${LDAP_BASE_DN}\nobjectClass: organizationalUnit\nou: ${ou.split(',')[0]?.slice(3)}\n`),
    ...computers.map(computerLdif),
  ].join('\n');
  await writeFile(path.join(hostDir, 'lab.ldif'), ldif);
  await run('slapadd', ['-q', '-f', `${hostDir}/slapd.conf`, '-l', `${hostDir}/lab.ldif`], { maxBuffer: 16 * 1024 * 1024 });
  return slapdCommand(hostDir, address);
}

/** The server's host as lab-network.ts gives it: its address, and commands run inside it. */
interface DirectoryHost {
  address: string;
  exec(command: string): Promise<string>;
}

/** Gives the lab's slapd a new certificate (as when a server is rebuilt) and restarts it with it. */
export async function replaceLdapCertificate(host: DirectoryHost, hostDir: string): Promise<void> {
  await writeCertificate(hostDir, host.address);
  await host.exec(`kill $(cat ${hostDir}/slapd.pid) && while ss -Hlnt | grep -q ":636 "; do sleep 0.05; done && ${slapdCommand(hostDir, host.address)} && while ! ss -Hlnt | grep -q ":636 "; do sleep 0.05; done`);
}

/** The Samba AD domain controller's host on the lab's subnet, and its domain. */
export const AD_SERVER_OCTET = 17;
export const AD_REALM = 'ad.lab.test';
export const AD_BASE_DN = 'DC=ad,DC=lab,DC=test';
/** A plain domain user (Domain Users only): what the connector needs to read computer objects. */
export const AD_BIND_USER = 'inventory';
export const AD_BIND_PASSWORD = 'ad-Reader-secret-1';
const AD_ADMIN_PASSWORD = 'ad-Admin-secret-1';

/** The computers created in the lab's domain besides its controller (dc1): h2 is also a lab host, by name. */
export function adComputers(): LabComputer[] {
  return [
    { name: 'WS-101', ous: ['Workstations'], dnsHostName: `ws-101.${AD_REALM}`, operatingSystem: 'Windows 11 Enterprise', operatingSystemVersion: '10.0 (22631)', lastLogonTimestamp: filetime('2026-10-02T17:45:00Z'), location: 'Lyon 3rd floor' },
    { name: 'H2', ous: [], dnsHostName: `h2.${AD_REALM}`, operatingSystem: 'Debian GNU/Linux', operatingSystemVersion: '12', lastLogonTimestamp: filetime('2026-11-21T08:00:00Z'), location: 'Paris DC2' },
  ];
}

/**
 * Provisions a Samba AD domain (samba-tool domain provision, no DNS server of its own) under
 * hostDir, creates its reader account, its OUs and computers (samba-tool), sets the attributes a
 * machine would write itself at join (dNSHostName, operatingSystem, ..., through Samba's own
 * python bindings on the database), and returns the command that starts the domain controller.
 * Samba makes its self-signed LDAPS certificate at its first start.
 */
export async function writeAdServer(hostDir: string): Promise<string> {
  await run('mkdir', ['-p', hostDir]);
  await run('samba-tool', ['domain', 'provision', `--realm=${AD_REALM.toUpperCase()}`, '--domain=ADLAB', '--server-role=dc', '--dns-backend=NONE', `--adminpass=${AD_ADMIN_PASSWORD}`,
    '--host-name=dc1', `--targetdir=${hostDir}`], { maxBuffer: 16 * 1024 * 1024 });
  const conf = `${hostDir}/etc/smb.conf`;
  await run('samba-tool', ['user', 'create', AD_BIND_USER, AD_BIND_PASSWORD, '-s', conf]);
  const computers = adComputers();
  for (const ou of new Set(computers.flatMap((c) => c.ous))) await run('samba-tool', ['ou', 'create', `OU=${ou}`, '-s', conf]);
  for (const c of computers) await run('samba-tool', ['computer', 'create', c.name, ...(c.ous.length ? [`--computerou=${c.ous.map((ou) => `OU=${ou}`).reverse().join(',')}`] : []), '-s', conf]);
  const ldif = computers.map((c) => [
    `dn: CN=${c.name},${c.ous.length ? [...c.ous].reverse().map((ou) => `OU=${ou}`).join(',') : 'CN=Computers'},${AD_BASE_DN}`, 'changetype: modify',
    ...Object.entries({ dNSHostName: c.dnsHostName, operatingSystem: c.operatingSystem, operatingSystemVersion: c.operatingSystemVersion, location: c.location, lastLogonTimestamp: c.lastLogonTimestamp })
      .flatMap(([name, value]) => [`replace: ${name}`, `${name}: ${value}`, '-']),
    '',
  ].join('\n')).join('\n');
  await writeFile(path.join(hostDir, 'computers.ldif'), ldif);
  await run('/usr/bin/python3', ['-c', [
    'import sys',
    'from samba.samdb import SamDB',
    'from samba.auth import system_session',
    'from samba.param import LoadParm',
    'lp = LoadParm(); lp.load(sys.argv[1])',
    'SamDB(url=lp.samdb_url(), session_info=system_session(), lp=lp).modify_ldif(open(sys.argv[2]).read())',
  ].join('\n'), conf, path.join(hostDir, 'computers.ldif')]);
  return `/usr/sbin/samba -i -s ${conf} > ${hostDir}/samba.log 2>&1 &`;
}
