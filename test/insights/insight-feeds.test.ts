import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { INSIGHT_FEEDS } from '../../src/features/insights/insight-feeds.js';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { importEstate } from '../support/estate.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTestService, startTestServiceBehindProxies, type TestService } from '../support/test-stores.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
// Whole seconds, so that every store writes the instant back the same way.
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const iso = (d: Date) => d.toISOString();

// A crafted estate: each feed finds exactly the rows written below, and passes over the near misses
// (a DECOMMISSIONED twin, a failure below the threshold, a key changed before it was pinned again).
const ESTATE = {
  source: 'insights',
  observedAt: iso(NOW),
  assets: [
    { key: 'web', assetType: 'PHYSICAL_HOST', displayName: 'web-01', hostname: 'web-01', ipAddresses: ['10.1.0.1'], customAttributes: { osName: 'Debian GNU/Linux', osVersion: '10 (buster)' } },
    { key: 'db', assetType: 'PHYSICAL_HOST', displayName: 'db-01', hostname: 'db-01', ipAddresses: ['10.1.0.2'], customAttributes: { osName: 'Ubuntu', osVersion: '24.04.1 LTS (Noble Numbat)' } },
    { key: 'app', assetType: 'PHYSICAL_HOST', displayName: 'app-01', hostname: 'APP-01', site: 'paris', ipAddresses: ['10.1.0.3'], customAttributes: { osName: 'Debian GNU/Linux', osVersion: '12 (bookworm)' } },
    { key: 'app2', assetType: 'PHYSICAL_HOST', displayName: 'app-01-berlin', hostname: 'app-01', site: 'berlin', ipAddresses: ['10.1.0.4'] },
    { key: 'old', assetType: 'PHYSICAL_HOST', displayName: 'old-01', hostname: 'old-01', serialNumber: 'SER-SW', ipAddresses: ['10.1.0.5'], customAttributes: { osName: 'Debian GNU/Linux', osVersion: '9 (stretch)' } },
    { key: 'gone', assetType: 'PHYSICAL_HOST', displayName: 'gone-01', hostname: 'gone-01', ipAddresses: ['10.1.0.6'] },
    { key: 'sw', assetType: 'NETWORK_DEVICE', displayName: 'core-sw', serialNumber: 'SER-SW2', ipAddresses: ['10.1.0.254'] },
    { key: 'printer', assetType: 'PRINTER', displayName: 'printer-01', ipAddresses: ['10.1.0.7'] },
    { key: 'vm', assetType: 'VM', displayName: 'orphan-vm', ipAddresses: ['10.1.0.8'] },
    { key: 'ctr', assetType: 'CONTAINER', displayName: 'ctr-ok' },
    { key: 'svc', assetType: 'SERVICE', displayName: 'legacy-svc' },
    { key: 'pkg', assetType: 'SOFTWARE', displayName: 'orphan-sw' },
  ],
  relationships: [
    { type: 'HOSTS_CONTAINER', source: 'db', target: 'ctr' },
    { type: 'RUNS_ON', source: 'svc', target: 'old' },
    { type: 'COMMUNICATES_WITH', source: 'web', target: 'gone' },
  ],
  interfaces: [
    { asset: 'web', name: 'eth0', macAddress: '52:54:00:00:00:01' },
    { asset: 'printer', name: 'eth0', macAddress: '52:54:00:00:00:02' },
    { asset: 'sw', name: 'Gi1/0/1' },
    { asset: 'sw', name: 'Gi1/0/2' },
  ],
  fdb: [
    { asset: 'sw', port: 'Gi1/0/1', macAddress: '52:54:00:00:00:02' },
    { asset: 'sw', port: 'Gi1/0/2', macAddress: '52:54:00:00:00:01' },
    { asset: 'sw', port: 'Gi1/0/3', macAddress: '52:54:00:00:00:09' },
  ],
};

interface Row {
  rank: number;
  assets: { id: string; displayName: string; assetType: string; assetCategory: string }[];
  evidence: Record<string, unknown>;
}

/** A row as the tests compare it: asset names, and instants in one notation. */
function shown(row: Row): { assets: string[]; evidence: Record<string, unknown> } {
  const evidence = Object.fromEntries(Object.entries(row.evidence).map(([k, v]) => [k, typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v).toISOString() : v]));
  return { assets: row.assets.map((a) => a.displayName), evidence };
}

const daysSince = (date: string) => Math.floor((Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), NOW.getUTCDate()) - Date.parse(`${date}T00:00:00Z`)) / DAY);
// What an end-of-life feed lists on the day the test runs, from catalogued rows in end-of-life
// order: releases ended before today, and with withinDays also those ending before today plus that
// many days, as NEAR_END_OF_LIFE (the catalogue's dates stay, the day moves on).
const endOfLifeRows = <R extends { evidence: { endOfLife: string; reason: string } }>(catalogued: R[], withinDays = 0): R[] =>
  catalogued
    .filter((row) => daysSince(row.evidence.endOfLife) > 0 || -daysSince(row.evidence.endOfLife) < withinDays)
    .map((row) => (daysSince(row.evidence.endOfLife) > 0 ? row : { ...row, evidence: { ...row.evidence, reason: 'NEAR_END_OF_LIFE' } }));

describe('insight feeds on a crafted estate', () => {
  let service: TestService;
  let p: Principals;
  let ids: Record<string, string>;
  const feed = async (path: string) => {
    const res = await p.viewer.get(`/api/v1/insights/${path}`);
    expect(res.status).toBe(200);
    return res;
  };
  const rows = async (path: string) => ((await feed(path)).body.data as Row[]).map(shown);

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    ids = await importEstate(p.integrationKey, ESTATE);
    const { container } = service.running;
    const cypher = (text: string, params: Record<string, unknown> = {}) => container.driver.executeQuery(text, params);
    const db = container.db;
    const set = (key: string, props: Record<string, unknown>) => cypher('MATCH (a:Asset {id: $id}) SET a += $props', { id: ids[key], props });

    // Observations: all seen now and known for 60 days, but two new ones, one unseen for 10 days,
    // one INACTIVE after 40 days, one DECOMMISSIONED after 100 days.
    await cypher('MATCH (a:Asset) SET a.firstSeenAt = datetime($first), a.lastSeenAt = datetime($now)', { first: iso(ago(60 * DAY)), now: iso(NOW) });
    const firstSeen = (key: string, at: Date) => cypher('MATCH (a:Asset {id: $id}) SET a.firstSeenAt = datetime($at)', { id: ids[key], at: iso(at) });
    await firstSeen('vm', ago(2 * HOUR));
    await firstSeen('ctr', ago(HOUR));
    await cypher('MATCH (a:Asset {id: $id}) SET a.lastSeenAt = datetime($at)', { id: ids.app2, at: iso(ago(10 * DAY)) });
    await cypher('MATCH (a:Asset {id: $id}) SET a.lastSeenAt = datetime($at), a.staleSince = datetime($since), a.status = "INACTIVE"', { id: ids.gone, at: iso(ago(40 * DAY)), since: iso(ago(33 * DAY)) });
    await cypher('MATCH (a:Asset {id: $id}) SET a.lastSeenAt = datetime($at), a.status = "DECOMMISSIONED"', { id: ids.old, at: iso(ago(100 * DAY)) });

    // Scans: every scannable asset scanned successfully an hour ago, but db failing 4 times in a
    // row, app2 once, and the VM never targeted.
    await cypher(`MATCH (a:Asset) WHERE a.assetCategory IN ['HOST', 'NETWORK_DEVICE', 'PRINTER']
                  SET a.lastScanOutcome = 'SUCCESS', a.lastScanAt = datetime($at), a.consecutiveScanFailures = 0`, { at: iso(ago(HOUR)) });
    await set('db', { lastScanOutcome: 'FAILED', consecutiveScanFailures: 4 });
    await set('app2', { lastScanOutcome: 'FAILED', consecutiveScanFailures: 1 });
    await cypher('MATCH (a:Asset {id: $id}) REMOVE a.lastScanOutcome, a.lastScanAt', { id: ids.vm });

    // Identifiers that reconciliation kept apart: one MAC on three assets, a serial on a live and a
    // DECOMMISSIONED asset.
    for (const key of ['web', 'printer', 'gone']) await set(key, { macAddresses: ['00-00-5E-00-53-01'] });
    await set('sw', { serialNumber: 'SER-SW' });

    // A run that scanned web successfully (the FDB endpoint printer never was), and SSH host keys.
    const [run] = await db('discovery_runs').insert({ target_name: 'lab', trigger: 'MANUAL', status: 'COMPLETED_WITH_ERRORS', queued_at: ago(DAY), finished_at: ago(DAY) }).returning('id');
    const [oldRun] = await db('discovery_runs').insert({ target_name: 'lab', trigger: 'MANUAL', status: 'COMPLETED_WITH_ERRORS', queued_at: ago(20 * DAY), finished_at: ago(20 * DAY) }).returning('id');
    await db('discovery_run_hosts').insert({ run_id: run.id, address: '10.1.0.1', asset_id: ids.web, created: false, methods: ['SSH'], outcome: 'SUCCESS' });
    await db('ssh_host_keys').insert([
      { address: '10.1.0.1', port: 22, key_type: 'ssh-ed25519', fingerprint: 'SHA256:web', first_seen_at: ago(5 * DAY) },
      { address: '10.1.0.2', port: 22, key_type: 'ssh-ed25519', fingerprint: 'SHA256:db', first_seen_at: ago(10 * DAY) },
      { address: '10.1.0.3', port: 22, key_type: 'ssh-rsa', fingerprint: 'SHA256:cloned', first_seen_at: ago(10 * DAY) },
      { address: '10.1.0.4', port: 2222, key_type: 'ssh-rsa', fingerprint: 'SHA256:cloned', first_seen_at: ago(10 * DAY) },
    ]);
    await db('discovery_run_errors').insert([
      { run_id: run.id, address: '10.1.0.2', method: 'SSH', stage: 'verify-host-key', code: 'HOST_KEY_CHANGED', message: 'The host key of 10.1.0.2:22 is now ssh-ed25519 SHA256:other' },
      { run_id: oldRun.id, address: '10.1.0.1', method: 'SSH', stage: 'verify-host-key', code: 'HOST_KEY_CHANGED', message: 'before the key was pinned again' },
    ]);

    // Services and packages.
    const service_ = (key: string, name: string, ports: [string, number][], firstSeen: Date) =>
      db('discovered_services').insert({ asset_id: ids[key], service_name: name, listen_ports: JSON.stringify(ports.map(([protocol, port]) => ({ protocol, port }))), first_seen_at: firstSeen, last_seen_at: NOW });
    await service_('web', 'sshd', [['tcp', 22]], ago(30 * DAY));
    await service_('db', 'sshd', [['tcp', 22]], ago(30 * DAY));
    await service_('db', 'postgresql', [['tcp', 5432]], ago(30 * DAY));
    await service_('app', 'sshd', [['tcp', 22]], ago(30 * DAY));
    await service_('app', 'nc', [['tcp', 4444], ['udp', 4444]], ago(HOUR));
    await service_('app2', 'sshd', [['tcp', 22]], ago(2 * HOUR));
    await service_('web', 'cron', [], ago(HOUR));
    const pkg = (key: string, name: string, version: string) =>
      db('software_packages').insert({ asset_id: ids[key], package_name: name, version, source: 'test', first_seen_at: NOW, last_seen_at: NOW });
    await pkg('web', 'libssl1.1', '1.1.1n-0+deb11u5');
    await pkg('web', 'openssl', '3.0.11-1~deb12u2');
    await pkg('db', 'postgresql-13', '13.16-0+deb11u1');
    await pkg('db', 'python3', '3.11.2-1+b1');
    await pkg('app', 'nodejs', '18.19.0+dfsg-6~deb12u2');
    await pkg('app', 'postgresql-15', '15.8-0+deb12u1');
    await pkg('app2', 'php7.4', '1:7.4.33-1+deb11u5');
    await pkg('app2', 'postgresql-11', '11.0');
    await pkg('app2', 'postgresql-1', '11.0');
  }, 300_000);
  afterAll(() => service.stop(), 180_000);

  it('lists every feed of the registry with its parameters and store, and api.yaml documents each parameter', async () => {
    const res = await p.viewer.get('/api/v1/insights');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(INSIGHT_FEEDS.map(({ name, title, description, store, parameters }) => ({ name, title, description, store, parameters })));
    expect(res.body.data.map((f: { name: string }) => f.name)).toEqual([
      'stale-assets', 'scan-failures', 'duplicate-candidates', 'unmanaged-port-endpoints', 'new-assets', 'new-listening-services',
      'ssh-host-keys', 'end-of-life-os', 'end-of-life-software', 'orphan-assets', 'relationships-to-retired-assets', 'unknown-top-talkers',
      'directory-not-seen', 'unmanaged-devices',
    ]);
    const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8'));
    const documented = (doc.paths['/api/v1/insights/{feed}'].get.parameters as { name: string }[]).map((q) => q.name);
    expect(documented.sort()).toEqual(['feed', 'limit', ...new Set(INSIGHT_FEEDS.flatMap((f) => f.parameters.map((q) => q.name)))].sort());
    const guide = readFileSync(fromProjectRoot('docs', 'insights.md'), 'utf8');
    for (const f of INSIGHT_FEEDS) expect(guide).toContain(`| \`${f.name}\` | ${f.store === 'neo4j' ? 'Neo4j' : 'PostgreSQL'} |`);
  });

  it('stale-assets: the assets unseen for 7 days or more (days), the longest unseen first, never a DECOMMISSIONED one', async () => {
    expect(await rows('stale-assets')).toEqual([
      { assets: ['gone-01'], evidence: { status: 'INACTIVE', lastSeenAt: iso(ago(40 * DAY)), staleSince: iso(ago(33 * DAY)), daysUnseen: 40 } },
      { assets: ['app-01-berlin'], evidence: { status: 'ACTIVE', lastSeenAt: iso(ago(10 * DAY)), staleSince: null, daysUnseen: 10 } },
    ]);
    expect((await rows('stale-assets?days=20')).map((r) => r.assets)).toEqual([['gone-01']]);
  });

  it('scan-failures: FAILING from the threshold of consecutive failures (most first), then scannable assets never scanned', async () => {
    const scanned = { lastScanAt: iso(ago(HOUR)), lastSeenAt: iso(NOW) };
    expect(await rows('scan-failures')).toEqual([
      { assets: ['db-01'], evidence: { reason: 'FAILING', lastScanOutcome: 'FAILED', consecutiveScanFailures: 4, ...scanned } },
      { assets: ['orphan-vm'], evidence: { reason: 'NEVER_SCANNED', lastScanOutcome: null, lastScanAt: null, consecutiveScanFailures: 0, lastSeenAt: iso(NOW) } },
    ]);
    expect((await rows('scan-failures?failures=1')).map((r) => [r.assets[0], r.evidence.reason])).toEqual([['db-01', 'FAILING'], ['app-01-berlin', 'FAILING'], ['orphan-vm', 'NEVER_SCANNED']]);
  });

  it('duplicate-candidates: assets sharing a MAC (normalised) or a host name (any case), the largest group first; a DECOMMISSIONED twin is no candidate', async () => {
    const sorted = (keys: string[]) => keys.map((k) => ids[k] as string).sort();
    const res = await feed('duplicate-candidates');
    expect(res.body.data.map((r: Row) => ({ ids: r.assets.map((a) => a.id), evidence: r.evidence }))).toEqual([
      { ids: sorted(['web', 'printer', 'gone']), evidence: { sharedBy: 'MAC_ADDRESS', value: '00:00:5e:00:53:01', assets: 3 } },
      { ids: sorted(['app', 'app2']), evidence: { sharedBy: 'HOSTNAME', value: 'app-01', assets: 2 } },
    ]);
  });

  it('unmanaged-port-endpoints: the FDB endpoint that no run scanned successfully, with its switch and port, and the MAC that no asset has', async () => {
    expect(await rows('unmanaged-port-endpoints')).toEqual([
      { assets: ['printer-01', 'core-sw'], evidence: { switchPort: 'Gi1/0/1', macAddress: '52:54:00:00:00:02', interfaceName: 'eth0', firstSeenAt: iso(NOW), lastSeenAt: iso(NOW) } },
      { assets: ['core-sw'], evidence: { switchPort: 'Gi1/0/3', macAddress: '52:54:00:00:00:09', interfaceName: null, firstSeenAt: iso(NOW), lastSeenAt: iso(NOW) } },
    ]);
  });

  it('new-assets: first seen since a time (default the last 24 hours), the newest first', async () => {
    const evidence = (first: Date) => ({ firstSeenAt: iso(first), status: 'ACTIVE', sources: ['insights'] });
    expect(await rows('new-assets')).toEqual([
      { assets: ['ctr-ok'], evidence: evidence(ago(HOUR)) },
      { assets: ['orphan-vm'], evidence: evidence(ago(2 * HOUR)) },
    ]);
    expect((await rows(`new-assets?since=${encodeURIComponent(iso(ago(90 * 60_000)))}`)).map((r) => r.assets)).toEqual([['ctr-ok']]);
  });

  it('new-listening-services: NEW ports first (newest first), then UNCOMMON ones (rarest first)', async () => {
    const row = (asset: string, serviceName: string, protocol: string, port: number, first: Date, assetsListening: number, reasons: string[]) =>
      ({ assets: [asset], evidence: { serviceName, protocol, port, firstSeenAt: iso(first), lastSeenAt: iso(NOW), assetsListening, reasons } });
    expect(await rows('new-listening-services')).toEqual([
      row('app-01', 'nc', 'tcp', 4444, ago(HOUR), 1, ['NEW', 'UNCOMMON']),
      row('app-01', 'nc', 'udp', 4444, ago(HOUR), 1, ['NEW', 'UNCOMMON']),
      row('app-01-berlin', 'sshd', 'tcp', 22, ago(2 * HOUR), 4, ['NEW']),
      row('db-01', 'postgresql', 'tcp', 5432, ago(30 * DAY), 1, ['UNCOMMON']),
    ]);
    const onlyNew = await rows(`new-listening-services?uncommonBelow=1&since=${encodeURIComponent(iso(ago(90 * 60_000)))}`);
    expect(onlyNew.map((r) => [r.evidence.serviceName, r.evidence.protocol, r.evidence.reasons])).toEqual([['nc', 'tcp', ['NEW']], ['nc', 'udp', ['NEW']]]);
  });

  it('ssh-host-keys: a key found changed after it was pinned, then a key shared by two addresses', async () => {
    expect(await rows('ssh-host-keys')).toEqual([
      { assets: ['db-01'], evidence: { reason: 'CHANGED', keyType: 'ssh-ed25519', fingerprint: 'SHA256:db', addresses: ['10.1.0.2'], detectedAt: iso(ago(DAY)), detail: 'The host key of 10.1.0.2:22 is now ssh-ed25519 SHA256:other' } },
      { assets: ['app-01', 'app-01-berlin'], evidence: { reason: 'SHARED', keyType: 'ssh-rsa', fingerprint: 'SHA256:cloned', addresses: ['10.1.0.3', '10.1.0.4'], detectedAt: null, detail: null } },
    ]);
  });

  it('end-of-life-os: releases past their end of life in the catalogue, and with withinDays those near it', async () => {
    const row = (asset: string, cycle: string, eol: string, osVersion: string) => ({
      assets: [asset],
      evidence: { reason: 'END_OF_LIFE', product: 'Debian', cycle, endOfLife: eol, daysPastEndOfLife: daysSince(eol), osName: 'Debian GNU/Linux', osVersion, source: 'https://wiki.debian.org/LTS', catalogueDate: '2026-11-25' },
    });
    const catalogued = [row('web-01', '10', '2024-06-30', '10 (buster)'), row('app-01', '12', '2028-06-30', '12 (bookworm)')];
    expect(await rows('end-of-life-os')).toEqual(endOfLifeRows(catalogued));
    expect(await rows('end-of-life-os?withinDays=3650')).toEqual(endOfLifeRows(catalogued, 3650));
  });

  it('end-of-life-software: packages of an ended release by name and whole version cycle (a Debian epoch allowed), the longest past first', async () => {
    const row = (asset: string, product: string, cycle: string, eol: string, packageName: string, version: string, source: string) => ({
      assets: [asset],
      evidence: { reason: 'END_OF_LIFE', product, cycle, endOfLife: eol, daysPastEndOfLife: daysSince(eol), packageName, version, source, catalogueDate: '2026-11-25' },
    });
    const pg = 'https://www.postgresql.org/support/versioning/';
    const catalogued = [
      row('app-01-berlin', 'PHP', '7.4', '2022-11-28', 'php7.4', '1:7.4.33-1+deb11u5', 'https://www.php.net/supported-versions.php'),
      row('web-01', 'OpenSSL', '1.1.1', '2023-09-11', 'libssl1.1', '1.1.1n-0+deb11u5', 'https://openssl-library.org/policies/releasestrat/'),
      row('app-01-berlin', 'PostgreSQL', '11', '2023-11-09', 'postgresql-11', '11.0', pg),
      row('app-01', 'Node.js', '18', '2025-04-30', 'nodejs', '18.19.0+dfsg-6~deb12u2', 'https://github.com/nodejs/Release'),
      row('db-01', 'PostgreSQL', '13', '2025-11-13', 'postgresql-13', '13.16-0+deb11u1', pg),
      row('app-01', 'PostgreSQL', '15', '2027-11-11', 'postgresql-15', '15.8-0+deb12u1', pg),
    ];
    expect(await rows('end-of-life-software')).toEqual(endOfLifeRows(catalogued));
    expect(await rows('end-of-life-software?withinDays=3650')).toEqual(endOfLifeRows(catalogued, 3650));
  });

  it('orphan-assets: assets of a child type without their parent by the rules of spec 2.4', async () => {
    expect(await rows('orphan-assets')).toEqual([
      { assets: ['orphan-sw'], evidence: { expectedVia: ['RUNS_ON'], direction: 'OUT', expectedParent: ['HOST'] } },
      { assets: ['orphan-vm'], evidence: { expectedVia: ['HOSTS_VM'], direction: 'IN', expectedParent: ['HYPERVISOR'] } },
    ]);
  });

  it('relationships-to-retired-assets: active relationships to an INACTIVE or DECOMMISSIONED asset, source then target', async () => {
    const res = await feed('relationships-to-retired-assets');
    expect(res.body.data.map(shown)).toEqual([
      { assets: ['web-01', 'gone-01'], evidence: { relationshipId: expect.any(String), relationshipType: 'COMMUNICATES_WITH', sourceStatus: 'ACTIVE', targetStatus: 'INACTIVE' } },
      { assets: ['legacy-svc', 'old-01'], evidence: { relationshipId: expect.any(String), relationshipType: 'RUNS_ON', sourceStatus: 'ACTIVE', targetStatus: 'DECOMMISSIONED' } },
    ]);
    const listed = await p.viewer.get(`/api/v1/assets/${ids.gone}/relationships`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toContain(res.body.data[0].evidence.relationshipId);
  });

  it('directory-not-seen and unmanaged-devices: nothing while no directory has been read (an import is neither a directory nor a sighting); the lab test reads one', async () => {
    expect((await feed('directory-not-seen')).body.data).toEqual([]);
    expect((await feed('unmanaged-devices?days=3650')).body.data).toEqual([]);
  });

  it('answers a capped set: limit rows with capped true, links with only first (the request as sent), limit lowered to 500', async () => {
    const res = await feed('new-assets?limit=1');
    expect(res.body).toMatchObject({ feed: 'new-assets', limit: 1, capped: true, links: { first: `${service.url}/api/v1/insights/new-assets?limit=1` } });
    expect(Object.keys(res.body.links)).toEqual(['first']);
    expect(res.body.data.map((r: Row) => [r.rank, r.assets[0]?.assetType, r.assets[0]?.assetCategory])).toEqual([[1, 'CONTAINER', 'HOST']]);
    const all = await feed('new-assets?limit=1000');
    expect(all.body).toMatchObject({ limit: 500, capped: false });
    expect(all.body.data.map((r: Row) => r.rank)).toEqual([1, 2]);
  });

  it('refuses a parameter of another feed, an invalid value and an unknown feed with problem details', async () => {
    for (const [path, status, field] of [
      ['new-assets?days=3', 400, 'query.days'],
      ['stale-assets?days=0', 400, undefined],
      ['new-assets?since=yesterday', 400, undefined],
      ['stale-assets?limit=0', 400, undefined],
      ['no-such-feed', 404, undefined],
    ] as const) {
      const res = await p.viewer.get(`/api/v1/insights/${path}`);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, status, expect.stringContaining('application/problem+json')]);
      if (field) expect(res.body.errors).toEqual([{ path: field, message: 'not a parameter of feed new-assets' }]);
    }
  });
});

describe('insight feeds when a store goes away', () => {
  let service: TestService;
  let p: Principals;
  let neo4jProxy: TcpProxy;
  let postgresProxy: TcpProxy;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ service, neo4jProxy, postgresProxy, stop } = await startTestServiceBehindProxies({ adminPassword: ADMIN_PASSWORD, storeTimeoutMs: 1500 }));
    p = await createPrincipals(service.url);
  }, 300_000);
  afterAll(() => stop(), 180_000);

  it('answers 503 problem details for a feed whose store is unreachable, and the feed again once it is back', async () => {
    for (const [proxy, path] of [[neo4jProxy, 'stale-assets'], [postgresProxy, 'ssh-host-keys']] as const) {
      proxy.cut();
      const down = await p.integrationKey.get(`/api/v1/insights/${path}`);
      expect([path, down.status, down.headers.get('content-type')]).toEqual([path, 503, expect.stringContaining('application/problem+json')]);
      proxy.restore();
      const back = await eventually(() => p.integrationKey.get(`/api/v1/insights/${path}`), (r) => r.status === 200, `${path} once its store is back`);
      expect([path, back.status, back.body.data]).toEqual([path, 200, []]);
    }
  });
});
