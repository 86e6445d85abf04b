// The LDAP connector's mapping of directory entries (untrusted: any attribute may be missing,
// malformed or hostile): an Active Directory computer as Samba and Windows serve it (objectGUID in
// octets, lastLogonTimestamp as a FILETIME, CN=Computers), an OpenLDAP one (entryUUID, ipHost), the
// OU path with escaped commas, and the server as its own computer (a domain controller). The lab
// test against slapd is ldap-discovery.
import { computerAsset, filetimeToIso, guidOf, ouPathOf, rootDseOf, toEstate, type DirectoryEntry } from '../../src/features/discovery/connectors/ldap/ldap-computers.js';

const BASE = 'DC=corp,DC=example';
// Microsoft's documented form: the first three fields little-endian (the GUID 01020304-0506-0708-090a-0b0c0d0e0f10).
const GUID_OCTETS = Buffer.from([0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10]);

const adComputer = (fields: Record<string, string | string[] | Buffer>): DirectoryEntry => ({
  dn: `CN=WS-017,OU=Workstations,OU=Lyon,${BASE}`,
  objectGUID: GUID_OCTETS,
  cn: 'WS-017',
  sAMAccountName: 'WS-017$',
  dNSHostName: 'WS-017.corp.example',
  operatingSystem: 'Windows 11 Enterprise',
  operatingSystemVersion: '10.0 (22631)',
  lastLogonTimestamp: '134039007000000000',
  location: 'Lyon 3rd floor',
  ...fields,
});

describe('a directory computer', () => {
  it('of Active Directory is a host with its DNS name, OS, last logon, OU path, site hint, DN and GUID', () => {
    expect(computerAsset(adComputer({}), BASE)).toEqual({
      key: '01020304-0506-0708-090a-0b0c0d0e0f10',
      assetType: 'PHYSICAL_HOST',
      displayName: 'ws-017',
      hostname: 'ws-017',
      fqdn: 'ws-017.corp.example',
      macAddresses: [],
      ipAddresses: [],
      attributes: {
        osName: 'Windows 11 Enterprise',
        osVersion: '10.0 (22631)',
        lastLogonAt: '2025-10-02T17:45:00.000Z',
        ouPath: 'Lyon/Workstations',
        siteHint: 'Lyon 3rd floor',
        directoryDn: `CN=WS-017,OU=Workstations,OU=Lyon,${BASE}`,
        instanceId: 'directory:01020304-0506-0708-090a-0b0c0d0e0f10',
      },
    });
  });

  it('is a SERVER when its OS says so or is unknown, and named by its account without a DNS name', () => {
    const server = computerAsset(adComputer({ operatingSystem: 'Windows Server 2022 Datacenter', dNSHostName: [] }), BASE);
    expect(server).toMatchObject({ assetType: 'SERVER', hostname: 'ws-017', displayName: 'ws-017' });
    expect(server.fqdn).toBeUndefined();
    const unknown = computerAsset({ dn: `CN=Computers-Only,CN=Computers,${BASE}`, cn: 'NAS_01' }, BASE);
    expect(unknown).toMatchObject({ key: `cn=computers-only,cn=computers,${BASE.toLowerCase()}`, assetType: 'SERVER', hostname: 'nas_01', attributes: { ouPath: 'Computers' } });
    expect(unknown.attributes.instanceId).toBeUndefined();
  });

  it('of OpenLDAP is known by its entryUUID, with its ipHost addresses (valid ones, no loopback) and its l as the site hint', () => {
    const asset = computerAsset({
      dn: 'cn=h1,ou=Servers,ou=Paris,dc=lab,dc=test', entryUUID: '869215EC-7F10-1041-8E32-A76CE7E00A16', cn: 'h1', dNSHostName: 'h1.lab.test',
      ipHostNumber: ['10.77.0.11', '127.0.0.1', 'not-an-address', '10.77.0.11', 'fd00::11'], l: 'Paris DC1',
    }, 'dc=lab,dc=test');
    expect(asset).toMatchObject({ key: '869215ec-7f10-1041-8e32-a76ce7e00a16', ipAddresses: ['10.77.0.11', 'fd00::11'], attributes: { ouPath: 'Paris/Servers', siteHint: 'Paris DC1' } });
  });

  it('leaves out what is not what its attribute holds: a DNS name with spaces, a time out of range, control characters', () => {
    const asset = computerAsset(adComputer({ dNSHostName: 'bad name;rm -rf', lastLogonTimestamp: '99999999999999999999', operatingSystem: 'Windows\u001b[31m 10', objectGUID: Buffer.from([1, 2, 3]) }), BASE);
    expect(asset.fqdn).toBeUndefined();
    expect(asset.hostname).toBe('ws-017');
    expect(asset.attributes.lastLogonAt).toBeUndefined();
    expect(asset.attributes.osName).toBe('Windows[31m 10');
    // A GUID that is not 16 octets names nothing: the DN is the key.
    expect(asset.key).toBe(`cn=ws-017,ou=workstations,ou=lyon,${BASE.toLowerCase()}`);
  });
});

describe('the helpers', () => {
  it('read a FILETIME (0 and never are no logon), a GUID and an OU path with escaped commas', () => {
    expect(filetimeToIso('0')).toBeUndefined();
    expect(filetimeToIso('9223372036854775807')).toBeUndefined();
    expect(filetimeToIso('116444736000000001')).toBe('1970-01-01T00:00:00.000Z');
    expect(filetimeToIso('-5')).toBeUndefined();
    expect(guidOf(GUID_OCTETS)).toBe('01020304-0506-0708-090a-0b0c0d0e0f10');
    expect(ouPathOf(`CN=PC1,OU=Sales\\, EMEA,OU=Paris,${BASE}`, BASE)).toBe('Paris/Sales, EMEA');
    expect(ouPathOf(`CN=PC1,${BASE}`, BASE)).toBeUndefined();
  });

  it('tell Active Directory (Samba too) from OpenLDAP by the root DSE', () => {
    expect(rootDseOf({ dn: '', dnsHostName: 'DC1.corp.example', forestFunctionality: '7' })).toEqual({ dnsHostName: 'dc1.corp.example', product: 'Active Directory' });
    expect(rootDseOf({ dn: '', objectClass: ['top', 'OpenLDAProotDSE'] })).toEqual({ product: 'OpenLDAP' });
    expect(rootDseOf(undefined)).toEqual({ product: 'LDAP' });
  });
});

describe('the estate of a read', () => {
  it('makes the domain controller, a computer of its own directory, the host at the address', () => {
    const dc = adComputer({ dn: `CN=DC1,OU=Domain Controllers,${BASE}`, objectGUID: Buffer.alloc(16, 7), dNSHostName: 'dc1.corp.example', operatingSystem: 'Windows Server 2022 Standard' });
    const estate = toEstate('10.0.0.5', `LDAP:10.0.0.5:636:${BASE}`, BASE, { dnsHostName: 'dc1.corp.example', product: 'Active Directory' }, [adComputer({}), dc]);
    expect(estate).toMatchObject({ method: 'LDAP', rootIsHost: true, complete: true, relationships: [] });
    expect(estate.assets).toHaveLength(2);
    const root = estate.assets.find((a) => a.key === estate.root);
    expect(root).toMatchObject({ fqdn: 'dc1.corp.example', ipAddresses: ['10.0.0.5'], attributes: { directoryProduct: 'Active Directory', directoryBaseDn: BASE, ouPath: 'Domain Controllers' } });
  });

  it('adds the server as an asset of its own when none of its computers is it, and keeps one asset per GUID', () => {
    const estate = toEstate('10.0.0.6', 'LDAP:x', BASE, { product: 'OpenLDAP' }, [adComputer({}), adComputer({ cn: 'again' })]);
    expect(estate.assets.map((a) => a.key)).toEqual(['01020304-0506-0708-090a-0b0c0d0e0f10', 'server:10.0.0.6']);
    expect(estate.root).toBe('server:10.0.0.6');
  });
});
