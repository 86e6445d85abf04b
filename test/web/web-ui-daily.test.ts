/// <reference lib="dom" />
// The web UI's daily tools (issue 37): the one search in the header, the Flows page and the audit
// trail, each in Chromium against the real service with a demo estate and flows sent over UDP,
// each page checked with axe-core.
import type { Browser, Page } from 'playwright-core';
import { demoEstate } from '../../src/tools/demo-estate.js';
import { datagrams } from '../flows/fixtures.js';
import { sendDatagrams, udpSender } from '../flows/flow-senders.js';
import { eventually } from '../support/eventually.js';
import { startSnmpAgent } from '../support/snmp-agent.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, USER_PASSWORD, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

// Two exporters: softflowd's plain NetFlow v5 export and its 1-in-4 sampled v9 one (test/fixtures/flows).
const EXPORTERS = [['127.0.0.1', 'softflowd-v5'], ['127.0.0.2', 'softflowd-v9-sampled']] as const;

describe('the web UI\'s search, flows, audit trail and credentials\' use and try', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;

  beforeAll(async () => {
    // The fixtures are dated when they were captured (2026-11-25): a long raw retention keeps them.
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, flowsRetentionRawDays: 3650, flowsFlushMs: 50, discoverySnmpTimeoutMs: 300 });
    p = await createPrincipals(service.url);
    for (const bundle of demoEstate(50)) expect((await p.integrationKey.post('/api/v1/import', bundle)).status).toBe(200);
    const port = service.running.container.flowCollector.ports!.netflowPort;
    let expected = 0;
    for (const [address, fixture] of EXPORTERS) {
      const socket = await udpSender(address);
      const sent = datagrams(fixture);
      await sendDatagrams(socket, port, sent);
      socket.close();
      expected += sent.length;
    }
    await eventually(async () => (await p.viewer.get('/api/v1/flow/exporters')).body.data as { address: string; datagrams: number; flows: number; recordsStored: number }[], (rows) => rows.length === 2 && rows.reduce((n, r) => n + r.datagrams, 0) === expected && rows.every((r) => r.recordsStored === r.flows), 'flows stored');
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const box = (page: Page) => page.getByRole('combobox', { name: 'Search the inventory' });
  const results = (page: Page) => page.getByRole('listbox', { name: 'Search results' });

  it('searches everything from the header: "/" focuses it, hits grouped by type with counts, arrows and Enter open one, Escape closes', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    // A short page under the list, for the screenshot.
    await page.goto(`${service.url}/profile`);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await page.keyboard.press('/');
    expect(await box(page).evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type('openssl');
    const api = (await p.viewer.get('/api/v1/search?q=openssl')).body.data as { assetType: string; assetTypeLabel: string; total: number; hits: { id: string; displayName: string }[] }[];
    const packages = api.find((g) => g.assetType === 'SOFTWARE_PACKAGE');
    const group = results(page).getByRole('group', { name: `${packages?.assetTypeLabel} ${packages?.total}` });
    await group.waitFor();
    expect(await group.getByRole('option').count()).toBe((packages?.hits.length ?? 0) + 1);
    await expectAccessible(page);
    await screenshot(page, 'search');

    // The second hit, by the keyboard.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await box(page).getAttribute('aria-activedescendant')).toBe(await group.getByRole('option').nth(1).getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.url}/assets/${packages?.hits[1]?.id}`);

    // A host by its address.
    const [host] = (await p.viewer.get('/api/v1/assets?type=PHYSICAL_HOST&size=1')).body.data as { id: string; displayName: string; ipAddresses: string[] }[];
    await page.keyboard.press('/');
    await page.keyboard.type(host?.ipAddresses[0] as string);
    await results(page).getByRole('option', { name: new RegExp(`^${host?.displayName} `) }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.url}/assets/${host?.id}`);

    // Escape closes the list, then clears the text; Enter with no hit chosen lists the matches.
    await page.keyboard.press('/');
    await page.keyboard.type('openssl');
    await results(page).waitFor();
    await page.keyboard.press('Escape');
    await results(page).waitFor({ state: 'hidden' });
    expect(await box(page).inputValue()).toBe('openssl');
    await page.keyboard.press('Escape');
    expect(await box(page).inputValue()).toBe('');
    await page.keyboard.press('/');
    await page.keyboard.type('vm-par');
    await results(page).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${service.url}/assets?q=vm-par`);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    // A group whole, in the asset list.
    await box(page).fill('openssl');
    await results(page).getByRole('option', { name: `All ${packages?.total} ${packages?.assetTypeLabel} matches in the asset list` }).click();
    await page.waitForURL(`${service.url}/assets?type=SOFTWARE_PACKAGE&q=openssl`);
    expect(errors).toEqual([]);
  });

  it('draws each exporter\'s traffic over the window, the top talkers, the conversations and the exporters with their rates and drops', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flows' }).click();
    await page.getByRole('heading', { name: 'Flows', level: 1 }).waitFor();
    await page.getByLabel('Window').selectOption('7d');
    await page.waitForURL(/window=7d/);
    const chart = page.getByRole('img', { name: /^bytes per/ });
    await chart.waitFor();
    const series = (await p.viewer.get(`/api/v1/flow/series?from=${encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString())}`)).body as { data: { exporter: string; total: { bytes: number; packets: number } }[] };
    expect(series.data.map((s) => s.exporter).sort()).toEqual(EXPORTERS.map(([a]) => a));
    expect((await chart.locator('polyline').evaluateAll((lines) => lines.map((l) => l.getAttribute('data-exporter')))).sort()).toEqual(EXPORTERS.map(([a]) => a));
    const legend = page.locator('.legend li');
    expect(await legend.count()).toBe(2);
    for (const s of series.data) await legend.filter({ hasText: s.exporter }).waitFor();

    const talkers = (await p.viewer.get(`/api/v1/flow/top-talkers?from=${encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString())}`)).body.data as { address: string | null }[];
    const talkerTable = page.getByRole('table', { name: /sent the most bytes/ });
    await talkerTable.waitFor();
    expect(await talkerTable.locator('tbody tr').count()).toBe(talkers.length);
    expect(await talkerTable.locator('tbody tr').first().textContent()).toContain(talkers[0]?.address);
    await page.getByRole('table', { name: /Pairs of addresses/ }).locator('tbody tr').first().waitFor();

    const exporters = (await p.viewer.get('/api/v1/flow/exporters')).body.data as { address: string; recordsStored: number }[];
    for (const e of exporters) {
      const row = page.getByRole('table', { name: /2 exporters/ }).getByRole('row', { name: new RegExp(`^${e.address.replace(/\./g, '\\.')} `) });
      await row.getByRole('cell', { name: e.recordsStored.toLocaleString('en-US'), exact: true }).waitFor();
      await row.getByRole('cell', { name: /^0 records, 0 datagrams$/ }).waitFor();
    }
    await expectAccessible(page);
    await screenshot(page, 'flows');

    await page.getByLabel('Measure').selectOption('packets');
    await page.getByRole('img', { name: /^packets per/ }).waitFor();
    for (const s of series.data) await legend.filter({ hasText: `${s.exporter} ${s.total.packets.toLocaleString('en-US')}` }).waitFor();
    expect(errors).toEqual([]);
  });

  it('names the IP protocol of each conversation (TCP, UDP, ICMP) where the API gives its number', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/flows?window=7d`);
    const table = page.getByRole('table', { name: /Pairs of addresses/ });
    await table.locator('tbody tr').first().waitFor();
    const to = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const window = `from=${encodeURIComponent(new Date(to.getTime() - 7 * 86_400_000).toISOString())}&to=${encodeURIComponent(to.toISOString())}&limit=10&direction=both`;
    const conversations = (await p.viewer.get(`/api/v1/flow/conversations?${window}`)).body.data as { protocol: number | null }[];
    const names: Record<number, string> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP', 58: 'ICMPv6' };
    const numbers = conversations.map((c) => c.protocol);
    // The fixtures' traffic: TCP, UDP, ICMP and ICMPv6.
    expect(numbers).toEqual(expect.arrayContaining([1, 6, 17, 58]));
    const column = (await table.locator('thead th').allTextContents()).indexOf('Protocol');
    const cells = await table.locator('tbody tr').evaluateAll((trs, at) => trs.map((tr) => tr.querySelectorAll('td')[at]?.textContent), column);
    expect(cells).toEqual(numbers.map((n) => (n === null ? '—' : names[n])));
    expect(await table.locator('tbody abbr', { hasText: 'TCP' }).first().getAttribute('title')).toBe('IP protocol 6');
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('opens the search\'s list clear of the header\'s name and roles, at a wide and a laptop width', async () => {
    for (const viewport of [{ width: 1440, height: 900 }, { width: 1280, height: 800 }]) {
      const { page, errors } = await openPage(browser, viewport);
      await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
      await box(page).fill('openssl');
      await results(page).getByRole('option').first().waitFor();
      const [list, who] = [await results(page).boundingBox(), await page.locator('header .who').boundingBox()];
      const apart = (a: NonNullable<typeof list>, b: NonNullable<typeof list>) => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      expect(apart(list as NonNullable<typeof list>, who as NonNullable<typeof who>)).toBe(true);
      // What the pointer finds at the roles' centre is the roles, not the list.
      expect(await page.locator('header .who .muted').evaluate((roles) => {
        const r = roles.getBoundingClientRect();
        return roles.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
      })).toBe(true);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it('shows the audit trail\'s targets by name with links, filtered by an action of the server\'s list, a time range and text', async () => {
    const target = (await p.adminSession.post('/api/v1/discovery/targets', { name: 'audited target', addresses: ['127.0.0.1'], methods: ['SWEEP'] })).body.data.id as string;
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/admin`);
    const trail = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Audit trail' }) }).last();
    const action = trail.getByRole('combobox', { name: /^Action/ });
    const actions = (await p.adminSession.get('/api/v1/audit-events/actions')).body.data as string[];
    await eventually(() => action.locator('option').allTextContents(), (shown) => shown.length === actions.length + 1, 'the actions listed');
    expect(await action.locator('option').allTextContents()).toEqual(['Any action', ...actions]);

    await action.selectOption('target.create');
    const rows = trail.locator('tbody tr');
    await trail.getByRole('table', { name: '1 event' }).waitFor();
    await rows.first().getByRole('link', { name: 'audited target' }).click();
    await page.waitForURL(`${service.url}/discovery?target=${target}`);

    await page.goBack();
    await trail.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await trail.getByLabel('Text', { exact: true }).fill('audited');
    await trail.getByRole('button', { name: 'Filter' }).click();
    const total = (await p.adminSession.get('/api/v1/audit-events?q=audited')).body.total as number;
    await trail.getByRole('table', { name: `${total} ${total === 1 ? 'event' : 'events'}` }).waitFor();
    await trail.getByRole('button', { name: 'Clear all' }).click();
    // A range that ends before any event was written.
    await trail.getByLabel('To', { exact: true }).fill('2020-01-01T00:00');
    await trail.getByRole('button', { name: 'Filter' }).click();
    await trail.getByText('Nothing to show.').waitFor();
    await expectAccessible(page);
    await trail.getByLabel('To', { exact: true }).fill('');
    await trail.getByLabel('From', { exact: true }).fill('2020-01-01T00:00');
    await trail.getByRole('button', { name: 'Filter' }).click();
    const all = (await p.adminSession.get('/api/v1/audit-events?size=1')).body.total as number;
    await trail.getByRole('table', { name: `${all} events` }).waitFor();
    expect(errors).toEqual([]);
  });

  it('shows where a credential is used: the targets that name it, each a link to its runs', async () => {
    const credential = (await p.discoveryAdminSession.post('/api/v1/credentials', { name: 'named community', kind: 'SNMP_V2C', matchPatterns: ['10.9.0.0/24'], settings: {}, secrets: { community: 'c0mmunity' } })).body.data.id as string;
    const target = (await p.discoveryAdminSession.post('/api/v1/discovery/targets', { name: 'snmp target', addresses: ['127.0.0.1'], methods: ['SNMP'], credentialIds: [credential] })).body.data.id as string;
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/credentials`);
    const row = page.getByRole('row', { name: /^named community/ });
    await row.getByText('Targets', { exact: true }).click();
    const link = row.getByRole('link', { name: 'snmp target' });
    await link.waitFor();
    await expectAccessible(page);
    await link.click();
    await page.waitForURL(`${service.url}/discovery?target=${target}`);
    expect(errors).toEqual([]);
  });

  it('tries a credential at one address and shows whether it worked, with the error code when it did not', async () => {
    const agent = await startSnmpAgent({ profile: 'host', community: 'tried-COMMUNITY' });
    try {
      for (const [name, community] of [['taken community', 'tried-COMMUNITY'], ['ignored community', 'not-the-COMMUNITY']]) {
        await p.discoveryAdminSession.post('/api/v1/credentials', { name, kind: 'SNMP_V2C', matchPatterns: ['10.9.0.0/24'], settings: {}, secrets: { community } });
      }
      const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
      await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
      await page.goto(`${service.url}/credentials`);
      for (const [name, outcome, shown] of [['taken community', 'SUCCEEDED', /^Worked SNMP at 127\.0\.0\.1:\d+$/], ['ignored community', 'FAILED', /^Failed SNMP at 127\.0\.0\.1:\d+ · SNMP_NO_ANSWER /]] as const) {
        const row = page.getByRole('row', { name: new RegExp(`^${name}`) });
        await row.getByText('Test', { exact: true }).click();
        await row.getByLabel('Address').fill('127.0.0.1');
        await row.getByLabel('Port').fill(String(agent.port));
        await row.getByRole('button', { name: `Test ${name}` }).click();
        const status = row.locator(`[role=status][data-outcome=${outcome}]`);
        await status.waitFor();
        expect(await status.textContent()).toMatch(shown);
      }
      await expectAccessible(page);
      expect(await page.content()).not.toContain('tried-COMMUNITY');
      expect(errors).toEqual([]);
    } finally {
      await agent.stop();
    }
  });
});
