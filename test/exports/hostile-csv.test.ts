// An estate whose every text holds what breaks CSV or runs as a spreadsheet formula (also behind
// Unicode spaces, control characters or a BOM): every export, streamed from the graph or by
// PostgreSQL's COPY, still parses with a strict RFC 4180 reader (each row as wide as the header),
// says what the JSON export says, and holds no cell that a spreadsheet would run. Import refuses
// what is no address.
import { exportColumns, EXPORT_DATASETS } from '../../src/features/exports/export-service.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { parseRfc4180 } from '../support/rfc4180.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const HOSTILE = [
  '\n=1+1', '=SUM(A1:A2)', '+1+1', '-2+3', '@cmd', '\t=x', '\r=x', ' =x', ' \n @x', 'a\nb', 'a\rb', 'a\r\nb',
  'quote " inside', 'comma, inside', '"=quoted"', 'plain ünicode ✓',
  '\u00a0=1+1', '\u3000=SUM(A1)', '\ufeff=x', '\u200b@x', '\u0001+1', '\u2028-1', '\u00a0\u3000 @x', '\u2007\u0085+x',
];
const h = (i: number) => HOSTILE[i % HOSTILE.length] as string;

/**
 * Would a spreadsheet run this cell? It starts with a tab or CR, or with = + - @ behind what a
 * spreadsheet skips: Unicode spaces and separators, control and format characters (a BOM, a
 * zero-width space). The neutralised form starts with a quote.
 */
const FORMULA = /^(?:[\t\r]|[\p{Z}\p{Cc}\p{Cf}]*[=+@-])/u;
const neutral = (s: string) => (FORMULA.test(s) ? `'${s}` : s);

/** The CSV cell that the JSON value of the same field must give. */
function cellOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return neutral(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : neutral(String(v)))).join(';');
  if (typeof value === 'object') return neutral(JSON.stringify(value));
  return String(value);
}

describe('exports of a hostile estate', () => {
  let service: TestService;
  let p: Principals;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    const hosts = Array.from({ length: HOSTILE.length }, (_v, i) => ({
      key: `h${i}`, assetType: 'SERVER', displayName: `${h(i)} ${i}`, hostname: `host${i}`, site: h(i + 1), environment: h(i + 2), vendor: h(i + 3), model: h(i + 4),
      serialNumber: `SN-${i}${h(i + 5)}`, macAddresses: [`00:50:56:00:01:${String(i).padStart(2, '0')}`], ipAddresses: [`10.1.0.${i + 1}`], customAttributes: { note: h(i + 6), [h(i + 7)]: [h(i + 8)] },
    }));
    const bundle = {
      source: '=HYPERLINK("http://x")',
      assets: [...hosts, { key: 'sw', assetType: 'SOFTWARE', displayName: h(3) }],
      relationships: hosts.slice(1).map((a) => ({ type: 'COMMUNICATES_WITH', source: 'h0', target: a.key })),
      software: hosts.map((a, i) => ({ asset: a.key, packageName: h(i), version: h(i + 1), publisher: h(i + 2), packageManager: 'dpkg' })),
      processes: hosts.map((a, i) => ({ asset: a.key, pid: 100 + i, processName: h(i + 3), commandLine: h(i + 4), username: h(i + 5), state: 'S' })),
      services: hosts.map((a, i) => ({ asset: a.key, serviceName: h(i + 6), displayName: h(i + 7), state: 'running' })),
      interfaces: hosts.flatMap((a, i) => [
        { asset: a.key, name: `eth0${h(i)}`, macAddress: `00:50:56:00:02:${String(i).padStart(2, '0')}`, ipAddresses: [`10.2.0.${i + 1}/24`], description: h(i + 8) },
        { asset: a.key, name: h(i + 9) },
      ]),
      neighbors: hosts.slice(1).map((a, i) => ({ asset: a.key, localPort: h(i + 9), remotePort: `eth0${h(0)}`, remoteAsset: 'h0' })),
    };
    const imported = await p.integrationKey.post('/api/v1/import', bundle);
    expect(imported.status).toBe(200);
    // A list whose item starts like a formula (what discovery may report): the SQL side of the exports.
    await service.running.container.db('network_interfaces').where({ name: 'eth0\n=1+1' }).update({ ip_addresses: ['=1+1', '10.2.0.1/24', '@x', '\u3000=2'] });
  }, 120_000);
  afterAll(() => service.stop());

  it.each(EXPORT_DATASETS.map((d) => [d]))('%s.csv is strict RFC 4180, says what %s.json says, and runs no formula', async (dataset) => {
    const csv = await p.integrationKey.get(`/api/v1/export/${dataset}.csv`);
    const json = await p.integrationKey.get(`/api/v1/export/${dataset}.json`);
    expect([csv.status, json.status]).toEqual([200, 200]);
    const [header, ...rows] = parseRfc4180(csv.text);
    expect(header).toEqual([...exportColumns(dataset)]);
    const objects = json.body as Record<string, unknown>[];
    expect(objects.length).toBeGreaterThan(0);
    expect(rows.length).toBe(objects.length);
    rows.forEach((row, r) => {
      expect(row.length).toBe(header?.length);
      const object = objects[r] as Record<string, unknown>;
      const expected = (header as string[]).map((c) => cellOf(object[c]));
      expect(row).toEqual(expected);
      (header as string[]).forEach((c, k) => {
        if (typeof object[c] !== 'number') expect({ column: c, cell: row[k] }).not.toEqual({ column: c, cell: expect.stringMatching(FORMULA) });
      });
    });
  });

  it('finds the hostile text in the exports (the estate is what the test says it is)', async () => {
    const csv = await p.integrationKey.get('/api/v1/export/interfaces.csv');
    expect(csv.text).toContain(`,'=1+1;10.2.0.1/24;'@x;'\u3000=2,`);
    const rel = await p.integrationKey.get('/api/v1/export/relationships.csv');
    expect(rel.text).toContain(`"'=HYPERLINK(""http://x"")"`);
  });

  it('refuses at import what is no MAC or IP address, names each, and imports nothing', async () => {
    const res = await p.integrationKey.post('/api/v1/import', {
      source: 'bad-addresses',
      assets: [{ key: 'x', assetType: 'SERVER', displayName: 'bad-addresses-host', macAddresses: ['=1+1', '00:50:56:AA:00:99'], ipAddresses: ['10.0.0.300', '10.0.0.1'] }],
      interfaces: [{ asset: 'x', name: 'eth0', macAddress: 'zz:zz', ipAddresses: ['10.0.0.1/33', 'fd00::1/64'] }],
      fdb: [{ asset: 'x', port: 'p1', macAddress: '@x' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'body.assets.0.macAddresses.0', 'body.assets.0.ipAddresses.0', 'body.interfaces.0.macAddress', 'body.interfaces.0.ipAddresses.0', 'body.fdb.0.macAddress',
    ]);
    const found = await p.integrationKey.get('/api/v1/assets?q=bad-addresses-host');
    expect(found.body.total).toBe(0);
  });

  it('takes a MAC in any usual notation and keeps it normalised', async () => {
    const res = await p.integrationKey.post('/api/v1/import', { source: 'macs', assets: [{ key: 'm', assetType: 'SERVER', displayName: 'mac-notations', macAddresses: ['00-50-56-AB-CD-01', '0050.56ab.cd02', '005056ABCD03'] }] });
    expect(res.status).toBe(200);
    const asset = await p.integrationKey.get(`/api/v1/assets/${res.body.data.assets[0].id}`);
    expect([...asset.body.data.macAddresses].sort()).toEqual(['00:50:56:ab:cd:01', '00:50:56:ab:cd:02', '00:50:56:ab:cd:03']);
  });
});
