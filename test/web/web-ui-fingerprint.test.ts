/// <reference lib="dom" />
// The evidence behind a fingerprint on an asset's page (issue 39): the fingerprint lab's hosts
// (src/tools/lab/fingerprint-lab.ts: CUPS on a printer, OpenSSH with nginx and PostgreSQL on a
// server) scanned by FINGERPRINT through the API with Debian's nmap, the server then by SSH too;
// the Identification panel shows the device class, its confidence, the evidence that decided it and
// the facts SSH (ranked higher) overrode, as the asset's provenance serves them.
import type { Browser, Page } from 'playwright-core';
import { LAB_START_TIMEOUT_MS, startTestNetwork, type TestNetwork } from '../../src/tools/lab/lab-network.js';
import type { FingerprintLab } from '../../src/tools/lab/fingerprint-lab.js';
import type { ApiClient } from '../support/api-client.js';
import { createTarget, describeInLab, scanToEnd, startLabScanService } from '../support/discovery-scans.js';
import { USER_PASSWORD } from '../support/principals.js';
import type { TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

const describePeers = await describeInLab("The web UI's fingerprint evidence");

interface Evidence { rule: string; deviceClass: string; weight: number; detail: string }
interface Fact { field: string; source: string; value: any; candidates: { source: string; value: unknown }[] }

describePeers('the web UI showing what identified an asset by its fingerprint', () => {
  let network: TestNetwork;
  let service: TestService;
  let api: ApiClient;
  let browser: Browser;
  let lab: FingerprintLab;
  const idAt = async (address: string) => ((await api.get('/api/v1/assets?size=1000')).body.data as { id: string; ipAddresses: string[] }[]).find((a) => a.ipAddresses.includes(address))?.id as string;
  const provenance = async (id: string) => (await api.get(`/api/v1/assets/${id}/provenance`)).body.data.fields as Fact[];
  const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

  beforeAll(async () => {
    network = await startTestNetwork({ fingerprintHosts: true });
    lab = network.fingerprint as FingerprintLab;
    ({ service, api } = await startLabScanService());
    const [first, last] = [lab.hosts[0]?.address, lab.hosts.at(-1)?.address.split('.').pop()];
    const scanned = await scanToEnd(api, await createTarget(api, { name: 'fingerprint lab', addresses: [`${first}-${last}`], methods: ['SWEEP', 'FINGERPRINT'], settings: { FINGERPRINT: { osDetection: false } } }));
    expect(scanned.status).toBe('COMPLETED');
    const srv = lab.hosts.find((h) => h.name === 'srv')?.address as string;
    expect((await scanToEnd(api, await createTarget(api, { name: 'server with ssh', addresses: [srv], methods: ['SWEEP', 'SSH', 'FINGERPRINT'], settings: { FINGERPRINT: { osDetection: false } } }))).status).toBe('COMPLETED');
    browser = await launch();
  }, LAB_START_TIMEOUT_MS + 600_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await network?.stop();
  });

  const section = (page: Page) => page.getByRole('region', { name: 'Identification' });
  const field = async (page: Page, label: string) => section(page).locator('dl div').filter({ has: page.getByText(label, { exact: true }) }).locator('dd').textContent();
  const rows = (page: Page, table: string) => section(page).getByRole('table', { name: table }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' | ')));
  const evidenceRows = (list: Evidence[]) => list.map((e) => `${e.rule} | ${e.deviceClass} | ${e.weight.toFixed(2)} | ${e.detail}`);

  it('shows a printer\'s device class, confidence and the evidence that decided it, as its provenance serves them', async () => {
    const printer = await idAt(lab.hosts.find((h) => h.name === 'prn')?.address as string);
    const found = (await provenance(printer)).find((f) => f.field === 'fingerprintEvidence')?.value as { deviceClass: string; confidence: number; evidence: Evidence[]; against: Evidence[] };
    expect(found.deviceClass).toBe('PRINTER');
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/assets/${printer}`);
    await section(page).waitFor();
    expect(await field(page, 'Device class')).toBe('PRINTER');
    expect(await field(page, 'Confidence')).toBe(`${Math.round(found.confidence * 100)} %`);
    expect(await rows(page, 'The evidence that decided PRINTER')).toEqual(evidenceRows(found.evidence));
    expect((await rows(page, 'The evidence that decided PRINTER'))[0]).toMatch(/^IPP service \| PRINTER \| 0\.70 \| tcp\/631 ipp \(CUPS \d+\.\d+\)$/);
    // Nothing ranked higher spoke of the printer.
    expect(await section(page).getByRole('table', { name: /overrode/ }).count()).toBe(0);
    // The ports the fingerprint found open, not the sweep's none of its own, and the services on them in their tab.
    const ports = lab.hosts.find((h) => h.name === 'prn')?.services.filter((s) => s.protocol === 'tcp').map((s) => String(s.port)) ?? [];
    expect(ports).toEqual(['631']);
    expect(await page.getByRole('row', { name: /^Open ports \(openPorts\)/ }).getByRole('cell').allTextContents()).toEqual(['Open ports (openPorts)', ports.join(',')]);
    await expectAccessible(page);
    await screenshot(page, 'asset-identification');
    await page.getByRole('tab', { name: 'Services' }).click();
    const services = (await api.get(`/api/v1/assets?type=DISCOVERED_SERVICE&hostId=${printer}`)).body.data as { displayName: string }[];
    expect(services.map((r) => r.displayName)).toEqual(['ipp:631']);
    await page.getByRole('tabpanel').getByRole('row', { name: /^ipp:631 / }).getByRole('cell', { name: 'tcp/631', exact: true }).waitFor();
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('shows a server\'s evidence and which of the fingerprint\'s facts SSH, ranked higher, overrode', async () => {
    const server = await idAt(lab.hosts.find((h) => h.name === 'srv')?.address as string);
    const facts = await provenance(server);
    const found = facts.find((f) => f.field === 'fingerprintEvidence')?.value as { deviceClass: string; evidence: Evidence[] };
    const overridden = facts.flatMap((f) => {
      const mine = f.source === 'fingerprint' ? undefined : f.candidates.find((c) => c.source === 'fingerprint');
      return mine ? [`${f.field.replace(/^custom\./, '')} | ${f.source}: ${shown(f.value)} | ${shown(mine.value)}`] : [];
    });
    // The type SSH read beside the fingerprint's SERVER, and the OS name.
    expect(overridden).toEqual(expect.arrayContaining([expect.stringMatching(/^assetType \| ssh: \w+ \| SERVER$/), expect.stringMatching(/^osName \| ssh: /)]));
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/assets/${server}`);
    await section(page).waitFor();
    expect(await field(page, 'Device class')).toBe('HOST');
    expect(await rows(page, 'The evidence that decided HOST')).toEqual(evidenceRows(found.evidence));
    expect(await rows(page, "The fingerprint's facts a higher-ranked source overrode")).toEqual(overridden);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });
});
