import http from 'node:http';
import type { ApiClient } from '../support/api-client.js';
import { request } from '../support/http.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const TRICKY = 'ACME, "Quoted" Inc.\nSecond line';

describe('exports', () => {
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  let ids: Record<string, string>;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    api = p.apiUserToken;
    const many = Array.from({ length: 1300 }, (_, i) => ({ asset: 'bulk', packageName: `pkg-${String(i).padStart(4, '0')}`, version: '1.0', packageManager: 'rpm' }));
    const res = await p.integrationKey.post('/api/v1/import', {
      source: 'export-test',
      assets: [
        { key: 'zeta', assetType: 'SERVER', displayName: 'zeta', hostname: 'zeta-host', serialNumber: 'EXP-ZETA' },
        { key: 'alpha', assetType: 'SERVER', displayName: 'alpha', hostname: 'alpha-host', serialNumber: 'EXP-ALPHA' },
        { key: 'mid', assetType: 'VM', displayName: 'mid', serialNumber: 'EXP-MID' },
        { key: 'bulk', assetType: 'SERVER', displayName: 'yy-bulk', serialNumber: 'EXP-BULK' },
      ],
      software: [
        { asset: 'zeta', packageName: 'openssl', version: '3.0.15', publisher: 'Debian', packageManager: 'dpkg', installDate: '2026-03-01' },
        { asset: 'alpha', packageName: 'zlib', version: '1.3', publisher: TRICKY, packageManager: 'dpkg' },
        { asset: 'alpha', packageName: '=HYPERLINK("http://evil")', publisher: 'Debian', packageManager: 'dpkg' },
        { asset: 'alpha', packageName: 'bash', version: '5.2', publisher: 'Debian', packageManager: 'dpkg' },
        { asset: 'mid', packageName: 'curl', version: '8.5', publisher: 'Debian', packageManager: 'snap' },
        ...many,
      ],
      processes: [
        { asset: 'zeta', pid: 900, processName: 'nginx', username: 'www-data' },
        { asset: 'zeta', pid: 12, processName: 'sshd', username: 'root' },
        { asset: 'alpha', pid: 1, processName: 'systemd', username: 'root', commandLine: '-bash --login', cpuPercent: 2.5, memoryKb: 2048 },
      ],
      services: [
        { asset: 'zeta', serviceName: 'sshd', state: 'running', startMode: 'auto', listenPorts: [{ protocol: 'tcp', port: 22 }] },
        { asset: 'alpha', serviceName: 'nginx', state: 'stopped', listenPorts: [{ protocol: 'tcp', port: 80 }, { protocol: 'tcp', port: 443 }] },
        { asset: 'alpha', serviceName: 'cron', state: 'running' },
      ],
    });
    ids = Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
  });
  afterAll(() => service.stop());

  const csvLines = (text: string) => text.split('\r\n').filter(Boolean);

  it('streams software as CSV with the header of docs/interface.md §2.8, ordered by asset name then package name, as an attachment', async () => {
    const res = await api.get('/api/v1/export/software.csv?packageManager=dpkg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="software.csv"');
    const lines = csvLines(res.text);
    expect(lines[0]).toBe('assetId,assetDisplayName,assetHostname,packageName,version,publisher,installDate,packageManager');
    expect(res.text).toContain(`${ids.alpha},alpha,alpha-host,bash,5.2,Debian,,dpkg`);
    // RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
    expect(res.text).toContain(`zlib,1.3,"ACME, ""Quoted"" Inc.\nSecond line",,dpkg`);
    // A cell that a spreadsheet would run as a formula is neutralised.
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    const names = res.text.split('\r\n').filter((l) => l.startsWith(ids.alpha as string) || l.startsWith(ids.zeta as string)).map((l) => l.split(',')[3]);
    expect(names).toEqual([`"'=HYPERLINK(""http://evil"")"`, 'bash', 'zlib', 'openssl']);
    expect(res.text).toContain(`${ids.zeta},zeta,zeta-host,openssl,3.0.15,Debian,2026-03-01,dpkg`);
  });

  it('writes the same software as one JSON array, and filters by asset, publisher and package manager', async () => {
    const all = await api.get('/api/v1/export/software.json');
    expect(all.headers.get('content-disposition')).toBe('attachment; filename="software.json"');
    expect(all.body).toHaveLength(1305);
    expect(all.body[0]).toEqual({ assetId: ids.alpha, assetDisplayName: 'alpha', assetHostname: 'alpha-host', packageName: '=HYPERLINK("http://evil")', version: null, publisher: 'Debian', installDate: null, packageManager: 'dpkg' });
    expect(all.body.map((r: { assetDisplayName: string }) => r.assetDisplayName).filter((v: string, i: number, a: string[]) => a.indexOf(v) === i)).toEqual(['alpha', 'mid', 'yy-bulk', 'zeta']);
    expect((await api.get(`/api/v1/export/software.json?assetId=${ids.mid}`)).body.map((r: { packageName: string }) => r.packageName)).toEqual(['curl']);
    expect((await api.get(`/api/v1/export/software.json?publisher=${encodeURIComponent(TRICKY)}`)).body.map((r: { packageName: string; publisher: string }) => [r.packageName, r.publisher])).toEqual([['zlib', TRICKY]]);
    expect((await api.get('/api/v1/export/software.json?publisher=debian')).body).toEqual([]);
    expect((await api.get('/api/v1/export/software.json?packageManager=snap')).body).toHaveLength(1);
  });

  it('exports processes by asset name then pid, filtered by user, with the columns of docs/interface.md §2.9', async () => {
    const csv = await api.get('/api/v1/export/processes.csv');
    expect(csvLines(csv.text)[0]).toBe('assetId,assetDisplayName,assetHostname,pid,ppid,processName,commandLine,username,state,memoryKb,cpuPercent,sourceConnector,softwareAssetId');
    expect(csv.text).toContain(`${ids.alpha},alpha,alpha-host,1,,systemd,'-bash --login,root,,2048,2.5,IMPORT,`);
    const json = await api.get('/api/v1/export/processes.json');
    expect(json.body.map((r: { assetDisplayName: string; pid: number }) => `${r.assetDisplayName}:${r.pid}`)).toEqual(['alpha:1', 'zeta:12', 'zeta:900']);
    // Numbers as numbers, an empty value as null, text as written (no neutralising in JSON).
    expect(json.body[0]).toMatchObject({ pid: 1, ppid: null, processName: 'systemd', commandLine: '-bash --login', memoryKb: 2048, cpuPercent: 2.5 });
    expect((await api.get('/api/v1/export/processes.json?username=root')).body).toHaveLength(2);
  });

  it('exports services by asset name then service name, filtered by state, with listen ports', async () => {
    const json = await api.get('/api/v1/export/services.json');
    expect(json.body.map((r: { assetDisplayName: string; serviceName: string }) => `${r.assetDisplayName}:${r.serviceName}`)).toEqual(['alpha:cron', 'alpha:nginx', 'zeta:sshd']);
    expect(json.body[1].listenPorts).toEqual([{ protocol: 'tcp', port: 80 }, { protocol: 'tcp', port: 443 }]);
    expect((await api.get('/api/v1/export/services.json?state=running')).body).toHaveLength(2);
    const csv = await api.get('/api/v1/export/services.csv?state=stopped');
    expect(csvLines(csv.text)).toEqual([
      'assetId,assetDisplayName,assetHostname,serviceName,displayName,state,startMode,listenPorts,sourceConnector',
      `${ids.alpha},alpha,alpha-host,nginx,,stopped,,tcp/80;tcp/443,IMPORT`,
    ]);
  });

  it('exports assets with assetType beside assetCategory, assetSubtype and virtual, in name order, filtered', async () => {
    const csv = await api.get('/api/v1/export/assets.csv?type=SERVER,VM');
    const lines = csvLines(csv.text);
    expect(lines[0]?.startsWith('id,displayName,assetType,assetCategory,assetSubtype,virtual,status,')).toBe(true);
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['alpha', 'mid', 'yy-bulk', 'zeta']);
    expect(lines[2]).toContain(',mid,VM,HOST,VM,true,ACTIVE,');
    const json = await api.get('/api/v1/export/assets.json?type=VM');
    expect(json.body).toEqual([expect.objectContaining({ displayName: 'mid', assetType: 'VM', assetCategory: 'HOST', assetSubtype: 'VM', virtual: true })]);
    expect((await api.get('/api/v1/export/assets.json?type=PRINTER')).text.trim()).toBe('[]');
  });

  it('exports an asset renamed by a later observation under its new name and in its new place', async () => {
    const rename = await p.integrationKey.post('/api/v1/import', {
      source: 'export-test',
      assets: [{ key: 'zeta', assetType: 'SERVER', displayName: 'aaa-renamed', hostname: 'zeta-host', serialNumber: 'EXP-ZETA' }],
    });
    expect(rename.status).toBe(200);
    const json = await api.get('/api/v1/export/processes.json');
    expect(json.body.map((r: { assetDisplayName: string; pid: number }) => `${r.assetDisplayName}:${r.pid}`)).toEqual(['aaa-renamed:12', 'aaa-renamed:900', 'alpha:1']);
    await p.integrationKey.post('/api/v1/import', {
      source: 'export-test',
      assets: [{ key: 'zeta', assetType: 'SERVER', displayName: 'zeta', serialNumber: 'EXP-ZETA' }],
    });
    // A later observation that leaves the host name out keeps it, as the graph does.
    expect((await api.get('/api/v1/export/processes.json')).body.at(-1)).toMatchObject({ assetDisplayName: 'zeta', assetHostname: 'zeta-host', pid: 900 });
  });

  it('gets back the names an installation lacks (as after an upgrade) from the graph at the retention sweep', async () => {
    const db = service.running.container.db;
    await db('asset_names').update({ display_name: 'stale name' }).where({ asset_id: ids.alpha });
    await db('asset_names').delete().where({ asset_id: ids.zeta });
    // Names of assets the graph does not have: an old one is dropped, a recent one may be an import in flight and stays.
    const gone = '00000000-0000-4000-8000-0000000000aa';
    const inFlight = '00000000-0000-4000-8000-0000000000bb';
    await db('asset_names').insert([
      { asset_id: gone, display_name: 'gone', updated_at: new Date(Date.now() - 3_600_000) },
      { asset_id: inFlight, display_name: 'in flight' },
    ]);
    expect((await api.get('/api/v1/export/processes.json')).body.map((r: { assetDisplayName: string }) => r.assetDisplayName)).toEqual(['stale name']);
    const sweep = await p.adminSession.post('/api/v1/jobs/retention-sweep/run');
    expect(sweep.status).toBe(200);
    expect(sweep.body.data.summary.assetNamesRemoved).toBe(1);
    expect((await db('asset_names').whereIn('asset_id', [gone, inFlight]).pluck('display_name'))).toEqual(['in flight']);
    expect((await api.get('/api/v1/export/processes.json')).body.map((r: { assetDisplayName: string; pid: number }) => `${r.assetDisplayName}:${r.pid}`)).toEqual(['alpha:1', 'zeta:12', 'zeta:900']);
  });

  it('refuses an unknown filter, and a caller without an export role', async () => {
    expect((await api.get('/api/v1/export/software.csv?username=root')).status).toBe(400);
    expect((await api.get('/api/v1/export/software.csv?assetId=not-a-uuid')).status).toBe(400);
    expect((await p.viewer.get('/api/v1/export/software.csv')).status).toBe(403);
  });

  it('serves a client that reads slowly, batch by batch, while the service keeps answering others', async () => {
    const url = new URL(`${service.url}/api/v1/export/software.csv`);
    const token = (api.credential as { token: string }).token;
    const text = await new Promise<string>((resolve, reject) => {
      http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.pause();
          setTimeout(() => res.resume(), 20);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      });
    });
    expect(csvLines(text)).toHaveLength(1 + 1305);
    expect((await request(`${service.url}/health`)).status).toBe(200);
  });
});
