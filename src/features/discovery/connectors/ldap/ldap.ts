// LDAP: the computer objects of a directory (Active Directory, Samba's AD DC, OpenLDAP) read at the
// target's address over LDAPS or StartTLS (ldap-directory.ts: the certificate pinned at first
// contact, a simple bind with an LDAP_BIND credential, paged results), each a HOST asset with its
// DNS host name, operating system and version, last logon, OU path and site hint
// (ldap-computers.ts), matched like any estate asset to the hosts the network showed: by its GUID,
// its FQDN, its host name and its addresses, so that a computer SSH or the sweep found is one asset.
// Only a complete read loads: one cut short (the size limit, a failed page, the time-out) loads
// nothing and changes nothing, so the scope's members are always those of the latest complete read
// (the insight feeds compare them with what the network shows). LDAP retires nothing: a computer
// object deleted is not a machine gone.
import { z } from 'zod';
import type { ConnectorResult } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { rootDseOf, toEstate } from './ldap-computers.js';
import { readDirectory } from './ldap-directory.js';
import { LDAP_ERRORS } from './ldap-errors.js';

const settings = z.strictObject({
  security: z.enum(['ldaps', 'starttls']).optional().describe('LDAPS (TLS from the start, port 636) or StartTLS on the plain LDAP port (389): ldaps by default. The password is never sent in clear.'),
  verifyCertificate: z.boolean().optional().describe("Check the server's certificate against the trusted authorities and the address (true by default); either way it is pinned at first contact"),
  caCertificate: z.string().max(20_000).optional().describe("The PEM certificate of the authority that signed the server's, trusted besides the system's"),
  maxEntries: z.number().int().min(1).max(1_000_000).optional().describe('Computer objects read at most (50,000 by default); more is a partial read, which loads nothing'),
  pageSize: z.number().int().min(1).max(5000).optional().describe('Entries per page of the paged search (500 by default; Active Directory serves at most its MaxPageSize, 1,000)'),
  timeoutMs: z.number().int().min(100).max(120_000).optional().describe('How long the connect and each page may take (ms; the connect time-out of the service by default)'),
});

export const DEFAULT_MAX_ENTRIES = 50_000;
export const DEFAULT_PAGE_SIZE = 500;

export async function collectLdap({ address, credentials, port, settings: targetSettings, deadline }: CollectRequest, { config, hostState }: ConnectorEnvironment): Promise<ConnectorResult> {
  const own = settings.parse(targetSettings);
  const read = await readDirectory(credentials, {
    host: address,
    port,
    security: own.security ?? 'ldaps',
    verifyCertificate: own.verifyCertificate ?? true,
    ...(own.caCertificate ? { caCertificate: own.caCertificate } : {}),
    timeoutMs: own.timeoutMs ?? config.discoveryConnectTimeoutMs,
    pageSize: own.pageSize ?? DEFAULT_PAGE_SIZE,
    maxEntries: own.maxEntries ?? DEFAULT_MAX_ENTRIES,
    deadline,
  }, hostState);
  const credential = read.credentialId ? { credentialId: read.credentialId } : {};
  if (read.failure) {
    const { code, stage, message } = read.failure;
    const error: RunError = { address, method: 'LDAP', stage, code, message: read.pages ? `${message} No computers of this scan are loaded.` : message };
    return { errors: [error], ...credential };
  }
  const estate = toEstate(address, `LDAP:${address}:${port}:${(read.baseDn ?? '').toLowerCase()}`, read.baseDn ?? '', rootDseOf(read.rootDse), read.entries);
  return { estate, errors: [], ...credential };
}

export const ldapConnector = {
  method: 'LDAP',
  stage: 'inventory',
  enabledByDefault: false,
  // Below SNMP (40) and SSH (50), which see the machine itself; above DNS (30): the computer
  // writes its own DNS name and OS into the directory, an administrator vouches for the account.
  factRank: 35,
  description: 'The computer objects of a directory (Active Directory, Samba AD, OpenLDAP) over LDAPS or StartTLS, in pages: each a host with its DNS name, operating system and version, last logon, OU path and site hint, matched to the hosts the network showed.',
  credentialKinds: ['LDAP_BIND'],
  defaultPort: 636,
  settings,
  errors: LDAP_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED'],
  retires: [],
  collect: collectLdap,
} as const satisfies InventoryConnector<typeof LDAP_ERRORS>;
