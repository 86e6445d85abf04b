// Discovery of a directory's computers (method LDAP) through the service's API, against Debian's
// real OpenLDAP slapd on the lab's host ldap (src/tools/lab/directory-lab.ts: AD's computer class
// from msuser.schema, ipHost, LDAPS and StartTLS, a read-only bind account). The lab's network
// holds h1 (seen by the sweep only: an endpoint at the address the directory gives it), h2 (an SSH
// host, named as the directory names it) and sw (an endpoint the directory does not hold). The
// assets and their facts as exact sets of tuples against what the directory holds, a rescan that
// changes only seen-times, a partial read (maxEntries) that changes and retires nothing, a wrong
// password, a server that is not there, a replaced certificate (the pin), and the two insight feeds
// that compare the directory with the network; then Samba's Active Directory domain controller on
// the lab's host ad (a provisioned domain, its computers made with samba-tool), read the same way
// with a plain domain user.
import type { ApiClient } from '../support/api-client.js';
import { canonicalJson, createTarget, describeInLab, inventoryTuples, rescan, runErrors, scanToEnd, startLabScanService, type AssetRow } from '../support/discovery-scans.js';
import type { TestService } from '../support/test-stores.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  AD_BASE_DN, AD_BIND_PASSWORD, AD_BIND_USER, AD_REALM, AD_SERVER_OCTET, adComputers, dnOf, LDAP_BASE_DN, LDAP_BIND_DN, LDAP_BIND_PASSWORD, LDAP_SERVER_OCTET, labComputers,
} from '../../src/tools/lab/directory-lab.js';
import { LAB_START_TIMEOUT_MS, startTestNetwork, SUBNET, type TestNetwork } from '../../src/tools/lab/lab-network.js';

const describePeers = await describeInLab("LDAP discovery tests against the lab's slapd");

const TEST_TIMEOUT_MS = 180_000;
const DAY = 86_400_000;
const LDAP = `${SUBNET}.${LDAP_SERVER_OCTET}`;
const AD = `${SUBNET}.${AD_SERVER_OCTET}`;
const [H1, H2, SW] = [`${SUBNET}.11`, `${SUBNET}.12`, `${SUBNET}.13`];
const COMPUTERS = Object.fromEntries(labComputers(SUBNET).map((c) => [c.name, c]));
/** The custom attributes LDAP reports (instanceId apart: its GUID is the server's). */
/** A lab computer's lastLogonTimestamp (a FILETIME) as the ISO time LDAP reports. */
const logonOf = (name: string) => new Date(Number((BigInt(COMPUTERS[name]!.lastLogonTimestamp) - 116_444_736_000_000_000n) / 10_000n)).toISOString();
const SHOWN = ['osName', 'osVersion', 'lastLogonAt', 'ouPath', 'siteHint', 'directoryDn', 'directoryProduct', 'directoryBaseDn'];

describePeers('discovery of directory computers (slapd and a Samba AD DC on namespace hosts)', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let bind: string;
  let targetId: string;
  /** h2 as SSH saw it, before the directory was read. */
  let h2: AssetRow & { attributes: Record<string, unknown> };

  const credential = async (name: string, password: string) => {
    const res = await api.post('/api/v1/credentials', { name, kind: 'LDAP_BIND', matchPatterns: [], settings: { bindDn: LDAP_BIND_DN, baseDn: LDAP_BASE_DN }, secrets: { password } });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const scan = (id: string) => scanToEnd(api, id);
  const errorsOf = (runId: string) => runErrors(api, runId);
  const pick = (attributes: Record<string, unknown>) => Object.fromEntries(SHOWN.filter((k) => k in attributes).map((k) => [k, attributes[k]]));
  /** Every asset as (type, name, status, addresses, fqdn, LDAP's attributes), and every fact as (addresses, field, source, value), sorted. */
  const inventory = async () => {
    const found = await inventoryTuples(api, (a) => `${a.assetType} ${a.displayName} ${a.status} ${(a.ipAddresses as string[]).join(';')} ${a.fqdn ?? '-'} ${canonicalJson(pick(JSON.parse(a.customAttributes as string)))}`);
    return { ...found, facts: found.facts.map((f) => f.replace(/directory:[0-9a-f-]{36}/, 'directory:GUID')) };
  };
  const ldapFacts = (facts: string[]) => facts.filter((f) => / ldap /.test(f));
  const feed = async (path: string) => {
    const res = await api.get(`/api/v1/insights/${path}`);
    expect(res.status).toBe(200);
    return res.body.data as { assets: { displayName: string }[]; evidence: Record<string, unknown> }[];
  };

  beforeAll(async () => {
    network = await startTestNetwork({ ldapServer: true, adServer: true });
    ({ service, api } = await startLabScanService());
    // What the network shows before the directory is read: h1 and sw answer the sweep, SSH reads h2.
    expect((await scan(await createTarget(api, { name: 'swept', addresses: [H1, SW], methods: ['SWEEP'] }))).status).toBe('COMPLETED');
    expect((await scan(await createTarget(api, { name: 'h2', addresses: [H2], methods: ['SWEEP', 'SSH'] }))).status).toBe('COMPLETED');
    const assets = (await api.get('/api/v1/assets?size=1000')).body.data as AssetRow[];
    const ssh = assets.find((a) => a.displayName === 'h2') as AssetRow;
    h2 = { ...ssh, attributes: JSON.parse(ssh.customAttributes as string) };
    bind = await credential('directory reader', LDAP_BIND_PASSWORD);
    targetId = await createTarget(api, { name: 'directory', addresses: [LDAP], methods: ['SWEEP', 'LDAP'], settings: { LDAP: { verifyCertificate: false } }, credentialIds: [bind] });
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await network?.stop();
  });

  /** What LDAP reports of a lab computer, as fact tuples: at `addresses`, the asset's own. */
  const computerFacts = (name: string, addresses: string, type: string) => {
    const c = COMPUTERS[name]!;
    const values: Record<string, unknown> = {
      assetType: type, displayName: name, hostname: name, fqdn: c.dnsHostName, macAddresses: [], ipAddresses: c.address ? [c.address] : [],
      'custom.osName': c.operatingSystem, 'custom.osVersion': c.operatingSystemVersion, 'custom.ouPath': c.ous.join('/'), 'custom.siteHint': c.location,
      'custom.lastLogonAt': logonOf(name), 'custom.directoryDn': dnOf(c), 'custom.instanceId': 'directory:GUID',
    };
    return Object.entries(values).map(([field, value]) => `${addresses} ${field} ldap ${canonicalJson(value)}`);
  };

  it("loads each computer as a host with its names, OS, last logon, OU path and site hint, one asset with the host the network showed (by address, by name), and the server as the host at its address", async () => {
    const run = await scan(targetId);
    expect({ status: run.status, errors: await errorsOf(run.id) }).toEqual({ status: 'COMPLETED', errors: [] });
    const { tuples, facts } = await inventory();
    const attrs = (name: string, extra: Record<string, unknown> = {}) => {
      const c = COMPUTERS[name]!;
      return canonicalJson({ osName: c.operatingSystem, osVersion: c.operatingSystemVersion, ouPath: c.ous.join('/'), siteHint: c.location, lastLogonAt: logonOf(name), directoryDn: dnOf(c), ...extra });
    };
    const h2Addresses = (h2.ipAddresses as string[]).join(';');
    // h2's applications (SOFTWARE assets) are SSH's, untouched.
    expect(tuples.filter((t) => !t.startsWith('SOFTWARE '))).toEqual([
      // The sweep's endpoint at h1's address is the directory's h1: typed and named by LDAP (above the sweep).
      `PHYSICAL_HOST h1 ACTIVE ${H1} h1.lab.test ${attrs('h1')}`,
      // SSH's h2 is the directory's h2 (by host name): SSH's type, name and OS stay (its facts rank above LDAP's).
      `${h2.assetType} h2 ACTIVE ${h2Addresses} ${h2.fqdn ?? 'h2.lab.test'} ${attrs('h2', { osName: h2.attributes.osName, osVersion: h2.attributes.osVersion })}`,
      `PHYSICAL_HOST ws-017 ACTIVE  ws-017.lab.test ${attrs('ws-017')}`,
      `SERVER old-file-01 ACTIVE ${COMPUTERS['old-file-01']!.address} old-file-01.lab.test ${attrs('old-file-01')}`,
      `SERVER ${LDAP} ACTIVE ${LDAP} - ${canonicalJson({ directoryProduct: 'OpenLDAP', directoryBaseDn: LDAP_BASE_DN })}`,
      `UNKNOWN_ENDPOINT ${SW} ACTIVE ${SW} - {}`,
    ].sort());
    expect(ldapFacts(facts)).toEqual([
      ...computerFacts('h1', H1, 'PHYSICAL_HOST'),
      ...computerFacts('h2', h2Addresses, 'PHYSICAL_HOST'),
      ...computerFacts('ws-017', '', 'PHYSICAL_HOST'),
      ...computerFacts('old-file-01', COMPUTERS['old-file-01']!.address!, 'SERVER'),
      ...Object.entries({ assetType: 'SERVER', displayName: LDAP, macAddresses: [], ipAddresses: [LDAP], 'custom.directoryProduct': 'OpenLDAP', 'custom.directoryBaseDn': LDAP_BASE_DN })
        .map(([field, value]) => `${LDAP} ${field} ldap ${canonicalJson(value)}`),
    ].sort());
    const hosts = (await api.get(`/api/v1/discovery/runs/${run.id}/hosts`)).body.data;
    expect(hosts).toEqual([expect.objectContaining({ address: LDAP, methods: ['LDAP'], outcome: 'SUCCESS' })]);
  }, TEST_TIMEOUT_MS);

  it('changes nothing but seen-times on a rescan, and StartTLS on the plain port reads the same computers', async () => {
    const { before, after } = await rescan(inventory, () => scan(targetId), 'COMPLETED');
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    const startTls = await scan(await createTarget(api, { name: 'starttls', addresses: [LDAP], methods: ['LDAP'], ports: { LDAP: 389 }, settings: { LDAP: { security: 'starttls', verifyCertificate: false } }, credentialIds: [bind] }));
    expect(startTls.status).toBe('COMPLETED');
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('changes and retires nothing on a partial read: more computers than maxEntries (LDAP_SIZE_LIMIT), in pages of one', async () => {
    const before = await inventory();
    const notSeen = await feed('directory-not-seen');
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { LDAP: { verifyCertificate: false, maxEntries: 3, pageSize: 1 } } })).status).toBe(200);
    const run = await scan(targetId);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(run.id)).toEqual([{ address: LDAP, method: 'LDAP', stage: 'collect', code: 'LDAP_SIZE_LIMIT' }]);
    const after = await inventory();
    expect({ ...after, times: undefined }).toEqual({ ...before, times: undefined });
    // Not even LDAP's facts' times moved, and the directory's members are those of the last complete read.
    for (const [fact, at] of Object.entries(after.times)) if (fact.includes(' ldap')) expect(at).toBe(before.times[fact]);
    expect(await feed('directory-not-seen')).toEqual(notSeen);
    expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { LDAP: { verifyCertificate: false } } })).status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it('gives LDAP_BIND_REFUSED for a wrong password, CONNECTION_REFUSED where no directory listens, LDAP_CERTIFICATE_UNTRUSTED for a self-signed certificate checked, and changes nothing', async () => {
    const before = await inventory();
    const wrong = await credential('wrong password', 'not-the-password');
    const refused = await scan(await createTarget(api, { name: 'wrong password', addresses: [LDAP], methods: ['LDAP'], settings: { LDAP: { verifyCertificate: false } }, credentialIds: [wrong] }));
    expect(refused.status).toBe('COMPLETED_WITH_ERRORS');
    expect(await errorsOf(refused.id)).toEqual([{ address: LDAP, method: 'LDAP', stage: 'authenticate', code: 'LDAP_BIND_REFUSED' }]);
    const nothing = await scan(await createTarget(api, { name: 'no directory', addresses: [H1], methods: ['LDAP'], credentialIds: [bind] }));
    expect(await errorsOf(nothing.id)).toEqual([{ address: H1, method: 'LDAP', stage: 'connect', code: 'CONNECTION_REFUSED' }]);
    const checked = await scan(await createTarget(api, { name: 'checked', addresses: [LDAP], methods: ['LDAP'], credentialIds: [bind] }));
    expect(await errorsOf(checked.id)).toEqual([{ address: LDAP, method: 'LDAP', stage: 'verify-certificate', code: 'LDAP_CERTIFICATE_UNTRUSTED' }]);
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
  }, TEST_TIMEOUT_MS);

  it('refuses another certificate than the one pinned at first contact (LDAP_CERTIFICATE_CHANGED) until it is accepted', async () => {
    const before = await inventory();
    await network.ldap!.replaceCertificate();
    const run = await scan(targetId);
    const [error] = (await api.get(`/api/v1/discovery/runs/${run.id}`)).body.data.errors;
    expect(error).toEqual(expect.objectContaining({ address: LDAP, stage: 'verify-certificate', code: 'LDAP_CERTIFICATE_CHANGED' }));
    expect({ ...(await inventory()), times: undefined }).toEqual({ ...before, times: undefined });
    const presented = /is now ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})/.exec(error.message)?.[1] as string;
    expect((await api.post('/api/v1/discovery/pins/accept', { kind: 'TLS_CERTIFICATE', address: LDAP, port: 636, fingerprint: presented })).status).toBe(200);
    expect((await scan(targetId)).status).toBe('COMPLETED');
  }, TEST_TIMEOUT_MS);

  it('refuses LDAP settings and LDAP_BIND credentials that do not validate', async () => {
    for (const ldap of [{ security: 'plain' }, { maxEntries: 0 }, { pageSize: 100_000 }, { filter: '(objectClass=*)' }]) {
      expect((await api.put(`/api/v1/discovery/targets/${targetId}`, { settings: { LDAP: ldap } })).status).toBe(400);
    }
    for (const settings of [{ bindDn: LDAP_BIND_DN }, { bindDn: LDAP_BIND_DN, baseDn: 'not a dn' }, { bindDn: 'x\u0000', baseDn: LDAP_BASE_DN }]) {
      expect((await api.post('/api/v1/credentials', { name: 'bad', kind: 'LDAP_BIND', matchPatterns: [], settings, secrets: { password: 'x' } })).status).toBe(400);
    }
  });

  it('lists the directory computers the network has not shown for `days` days, and the devices the network shows that no directory holds', async () => {
    const names = (rows: { assets: { displayName: string }[] }[]) => rows.map((r) => r.assets.map((a) => a.displayName).join());
    // Never seen on the network: the two computers on no network, never seen first.
    const notSeen = await feed('directory-not-seen');
    expect(names(notSeen).sort()).toEqual(['old-file-01', 'ws-017']);
    const ws = notSeen.find((r) => r.assets[0]?.displayName === 'ws-017')!;
    expect(ws.evidence).toEqual({
      // Both reads list it (LDAPS on 636, StartTLS on 389); the evidence names the first scope.
      directory: `LDAP:${LDAP}:389:${LDAP_BASE_DN}`, directoryDn: `cn=ws-017,ou=Workstations,ou=Lyon,${LDAP_BASE_DN}`, ouPath: 'Lyon/Workstations',
      lastLogonAt: '2026-10-02T17:45:00.000Z', lastSeenOnNetworkAt: null, daysUnseen: null,
    });
    // h1 last answered the sweep 40 days ago: listed after those never seen, until `days` exceeds 40.
    const db = service.running.container.db;
    const h1 = (await api.get(`/api/v1/assets?size=1000`)).body.data.find((a: AssetRow) => a.displayName === 'h1') as AssetRow;
    await db('asset_facts').where({ asset_id: h1.id, source: 'sweep' }).update({ observed_at: new Date(Date.now() - 40 * DAY) });
    const later = await feed('directory-not-seen');
    expect(names(later).slice(2)).toEqual(['h1']);
    expect(later[2]?.evidence).toMatchObject({ ouPath: 'Paris/Servers', daysUnseen: 40 });
    expect(names(await feed('directory-not-seen?days=41')).sort()).toEqual(['old-file-01', 'ws-017']);
    expect(names(await feed('directory-not-seen?limit=1'))).toHaveLength(1);
    // Unmanaged: the switch's address answered the sweep, and neither directory (LDAPS and StartTLS: two scopes) lists it.
    const unmanaged = await feed('unmanaged-devices');
    expect(names(unmanaged)).toEqual([SW]);
    expect(unmanaged[0]?.evidence).toEqual({ lastSeenOnNetworkAt: expect.any(String), seenBy: ['sweep'], directories: 2 });
  }, TEST_TIMEOUT_MS);
  it("reads Samba's Active Directory the same way: its computers, the domain controller as the host at its address, h2 one asset with SSH's", async () => {
    const before = await inventory();
    const reader = (await api.post('/api/v1/credentials', { name: 'domain reader', kind: 'LDAP_BIND', matchPatterns: [], settings: { bindDn: `${AD_BIND_USER}@${AD_REALM}`, baseDn: AD_BASE_DN }, secrets: { password: AD_BIND_PASSWORD } })).body.data.id as string;
    const adTarget = await createTarget(api, { name: 'domain', addresses: [AD], methods: ['SWEEP', 'LDAP'], settings: { LDAP: { verifyCertificate: false } }, credentialIds: [reader] });
    const run = await scan(adTarget);
    expect({ status: run.status, errors: await errorsOf(run.id) }).toEqual({ status: 'COMPLETED', errors: [] });
    const { tuples } = await inventory();
    const added = tuples.filter((t) => !before.tuples.includes(t));
    const samba = (await promisify(execFile)('samba', ['-V'])).stdout.trim().replace(/^Version /, '');
    const ws = adComputers()[0]!;
    // Samba's own LDAPS certificate and objectGUIDs; the controller (dc1) is the host at the address and its own computer.
    expect(added.map((t) => t.replace(/"lastLogonAt":"[^"]+",/, ''))).toEqual(expect.arrayContaining([
      `PHYSICAL_HOST ws-101 ACTIVE  ${ws.dnsHostName} ${canonicalJson({ directoryDn: `CN=WS-101,OU=Workstations,${AD_BASE_DN}`, osName: ws.operatingSystem, osVersion: ws.operatingSystemVersion, ouPath: 'Workstations', siteHint: ws.location })}`,
      `SERVER dc1 ACTIVE ${AD} dc1.${AD_REALM} ${canonicalJson({ directoryBaseDn: AD_BASE_DN, directoryDn: `CN=DC1,OU=Domain Controllers,${AD_BASE_DN}`, directoryProduct: 'Active Directory', osName: 'Samba', osVersion: samba, ouPath: 'Domain Controllers' })}`,
    ]));
    // h2 stays one asset: the domain's H2 is SSH's h2 by host name (the latest directory's facts show: its FQDN and OU).
    expect(tuples.filter((t) => / h2 /.test(t))).toEqual([expect.stringContaining(`h2.${AD_REALM}`)]);
    expect(tuples).toHaveLength(before.tuples.length + 2);
    const wrong = (await api.post('/api/v1/credentials', { name: 'wrong domain password', kind: 'LDAP_BIND', matchPatterns: [], settings: { bindDn: `${AD_BIND_USER}@${AD_REALM}`, baseDn: AD_BASE_DN }, secrets: { password: 'not-the-password' } })).body.data.id as string;
    const refused = await scan(await createTarget(api, { name: 'domain, wrong password', addresses: [AD], methods: ['LDAP'], settings: { LDAP: { verifyCertificate: false } }, credentialIds: [wrong] }));
    expect(await errorsOf(refused.id)).toEqual([{ address: AD, method: 'LDAP', stage: 'authenticate', code: 'LDAP_BIND_REFUSED' }]);
  }, TEST_TIMEOUT_MS);
});
