// The computer objects of a directory as an estate, as pure functions. Active Directory and
// OpenLDAP are read with one mapping: AD's attribute names (dNSHostName, operatingSystem,
// operatingSystemVersion, lastLogonTimestamp, location), which an OpenLDAP directory gives its
// computers through the small schema of docs/discovery.md (the same names and OIDs), with the
// standard device (l) and ipHost (ipHostNumber) classes. Values are untrusted text: cleaned and
// capped; a value that is not what its attribute holds (a time out of range, an address that is
// not one) is left out, never the entry.
import net from 'node:net';
import { normaliseFqdn, normaliseIp } from '../../../inventory/asset-identity.js';
import type { EstateAsset, EstateObservation } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';

/** What the search asks for of each computer (objectGUID as octets). */
export const COMPUTER_ATTRIBUTES = ['objectGUID', 'entryUUID', 'cn', 'sAMAccountName', 'dNSHostName', 'operatingSystem', 'operatingSystemVersion', 'lastLogonTimestamp', 'location', 'l', 'ipHostNumber'] as const;
export const COMPUTER_FILTER = '(objectClass=computer)';
/** Addresses kept per computer (ipHostNumber is multi-valued). */
const MAX_ADDRESSES = 16;
const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?$/;
/** 100-ns intervals between 1601-01-01 (Windows FILETIME) and 1970-01-01. */
const FILETIME_EPOCH = 116_444_736_000_000_000n;

/** An entry as the LDAP client gives it: its DN and each attribute's values. */
export type DirectoryEntry = { dn: string } & Record<string, string | string[] | Buffer | Buffer[]>;

/** What the root DSE says of the server. */
export interface RootDse {
  dnsHostName?: string;
  product: string;
}

function values(entry: DirectoryEntry, name: string): (string | Buffer)[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

const first = (entry: DirectoryEntry, name: string) => cleanText(values(entry, name)[0]);

/** A DNS name in lower case without a final dot, or undefined when it is none. */
export function dnsName(value: string | undefined): string | undefined {
  const name = value?.toLowerCase().replace(/\.$/, '');
  return name && name.length <= 253 && name.split('.').every((l) => LABEL.test(l)) ? name : undefined;
}

/** An objectGUID (16 octets, its first three fields little-endian) in the form AD shows it. */
export function guidOf(octets: Buffer): string | undefined {
  if (octets.length !== 16) return undefined;
  const hex = (b: Buffer) => b.toString('hex');
  const le = (from: number, to: number) => hex(Buffer.from(octets.subarray(from, to)).reverse());
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${hex(octets.subarray(8, 10))}-${hex(octets.subarray(10, 16))}`;
}

/** lastLogonTimestamp (a Windows FILETIME) as an ISO time; 0, "never" and out-of-range values give none. */
export function filetimeToIso(value: string | undefined): string | undefined {
  if (!value || !/^\d{1,20}$/.test(value)) return undefined;
  const ticks = BigInt(value);
  if (ticks <= FILETIME_EPOCH || ticks >= 0x7fffffffffffffffn) return undefined;
  const ms = Number((ticks - FILETIME_EPOCH) / 10_000n);
  return ms < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** The RDNs of a DN, top first kept as written (escaped commas stay within their RDN). */
export function rdnsOf(dn: string): string[] {
  const rdns: string[] = [];
  let current = '';
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i] as string;
    if (c === '\\' && i + 1 < dn.length) {
      current += c + dn[++i];
    } else if (c === ',') {
      rdns.push(current.trim());
      current = '';
    } else {
      current += c;
    }
  }
  rdns.push(current.trim());
  return rdns.filter(Boolean);
}

const rdnValue = (rdn: string) => rdn.slice(rdn.indexOf('=') + 1).replace(/\\(.)/g, '$1');

/**
 * The path of the containers between the base DN and the entry, top first, joined by "/"
 * (OU=Web,OU=Paris,DC=corp → Paris/Web; AD's default CN=Computers → Computers); none when the
 * entry sits right under the base.
 */
export function ouPathOf(dn: string, baseDn: string): string | undefined {
  const rdns = rdnsOf(dn);
  const path = rdns.slice(1, Math.max(1, rdns.length - rdnsOf(baseDn).length)).map(rdnValue).reverse().join('/');
  return path ? cleanText(path) : undefined;
}

/** The estate key of an entry: its GUID (AD's objectGUID, OpenLDAP's entryUUID), else its DN. */
function keyOf(entry: DirectoryEntry): { key: string; guid?: string } {
  const octets = values(entry, 'objectGUID')[0];
  const guid = (Buffer.isBuffer(octets) ? guidOf(octets) : undefined) ?? cleanText(values(entry, 'entryUUID')[0])?.toLowerCase();
  return guid ? { key: guid, guid } : { key: entry.dn.toLowerCase() };
}

/** One computer object as an asset: names, OS, last logon, its OU path, site hint and addresses. */
export function computerAsset(entry: DirectoryEntry, baseDn: string): EstateAsset {
  const { key, guid } = keyOf(entry);
  const fqdn = dnsName(first(entry, 'dNSHostName'));
  const account = first(entry, 'sAMAccountName')?.replace(/\$$/, '');
  const hostname = fqdn?.split('.')[0] ?? dnsName(account ?? first(entry, 'cn'))?.split('.')[0];
  const osName = first(entry, 'operatingSystem');
  const ipAddresses = [...new Set(values(entry, 'ipHostNumber').flatMap((v) => {
    const ip = cleanText(v);
    return ip && net.isIP(ip) ? (normaliseIp(ip) ?? []) : [];
  }))].slice(0, MAX_ADDRESSES).sort();
  const attributes: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => {
    if (value) attributes[name] = value;
  };
  set('osName', osName);
  set('osVersion', first(entry, 'operatingSystemVersion'));
  set('lastLogonAt', filetimeToIso(first(entry, 'lastLogonTimestamp')));
  set('ouPath', ouPathOf(entry.dn, baseDn));
  set('siteHint', first(entry, 'location') ?? first(entry, 'l'));
  set('directoryDn', cleanText(entry.dn, 1024));
  if (guid) attributes.instanceId = `directory:${guid}`;
  return {
    key,
    // A directory cannot tell a VM from a machine: a hint that any classifying source outranks.
    assetType: osName && !/server/i.test(osName) ? 'PHYSICAL_HOST' : 'SERVER',
    displayName: hostname ?? fqdn ?? cleanText(entry.dn, 200) ?? key,
    ...(hostname ? { hostname } : {}),
    ...(normaliseFqdn(fqdn) ? { fqdn } : {}),
    macAddresses: [],
    ipAddresses,
    attributes,
  };
}

/** The product behind a root DSE: Active Directory (Samba's too) or another LDAP server by its vendor. */
export function rootDseOf(entry: DirectoryEntry | undefined): RootDse {
  if (!entry) return { product: 'LDAP' };
  const ad = values(entry, 'forestFunctionality').length > 0 || values(entry, 'domainControllerFunctionality').length > 0;
  const dnsHostName = dnsName(first(entry, 'dnsHostName'));
  return { ...(dnsHostName ? { dnsHostName } : {}), product: ad ? 'Active Directory' : (first(entry, 'vendorName') ?? (values(entry, 'objectClass').some((v) => String(v) === 'OpenLDAProotDSE') ? 'OpenLDAP' : 'LDAP')) };
}

/**
 * The estate of one complete read: each computer an asset of the scope; the server at the address
 * its root, as the host there (the computer that is the server itself, a domain controller, when
 * its DNS name is the root DSE's, else an asset of its own with the address).
 */
export function toEstate(address: string, scope: string, baseDn: string, rootDse: RootDse, entries: DirectoryEntry[]): EstateObservation {
  const byKey = new Map<string, EstateAsset>();
  for (const entry of entries) {
    const asset = computerAsset(entry, baseDn);
    if (!byKey.has(asset.key)) byKey.set(asset.key, asset);
  }
  const assets = [...byKey.values()];
  const self = rootDse.dnsHostName ? assets.find((a) => a.fqdn === rootDse.dnsHostName) : undefined;
  const root: EstateAsset = self ?? { key: `server:${address}`, assetType: 'SERVER', displayName: rootDse.dnsHostName ?? address, macAddresses: [], ipAddresses: [], attributes: {} };
  // A directory server is a server, whatever its operatingSystem says (Samba writes "Samba").
  root.assetType = 'SERVER';
  root.ipAddresses = [...new Set([...root.ipAddresses, address])].sort();
  root.attributes = { ...root.attributes, directoryProduct: rootDse.product, directoryBaseDn: cleanText(baseDn, 1024) ?? baseDn };
  if (!self) assets.push(root);
  return { method: 'LDAP', scope, root: root.key, rootIsHost: true, assets, relationships: [], relationshipTypes: [], complete: true };
}
