/// <reference lib="dom" />
// The web UI of history (issue 41) and of remote scanners (issue 38), in Chromium against the real
// service: an asset's History tab after an import, a rename and a decommissioning; the topology as
// of a time before the decommissioning and compared with it; the Scanners page creating a token
// (shown once), listing it and revoking it; a run page naming the scanner that ran a chunk. Each
// view checked with axe-core.
import type { Browser, Page } from 'playwright-core';
import { importEstate } from '../support/estate.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, USER_PASSWORD, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

/** Custom attributes enough for the history to take more than one page (the tab shows 50). */
const ATTRIBUTES = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`label_${String(i).padStart(2, '0')}`, `value-${i}`]));

/** Until the second changes: the test's times then fall in different seconds, as the time fields take them. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() % 1000)));

/** An instant as the page's datetime-local field takes it, in the browser's time zone, to the second. */
const localField = (page: Page, iso: string) =>
  page.evaluate((at) => {
    const d = new Date(at);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  }, iso);

type Drawn = { graph: { order: number; hasNode(id: string): boolean; getNodeAttributes(id: string): { label: string; color: string } } };

/** Waits until the drawn topology holds `order` assets. */
const drawnOrder = (page: Page, order: number) =>
  page.waitForFunction((n) => (window as unknown as { __topology?: Drawn }).__topology?.graph.order === n, order);

describe('the web UI of history and remote scanners', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;
  let ids: Record<string, string>;
  /** A time after the rename and before the decommissioning. */
  let before: string;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    const bundle = (name: string) => ({
      source: 'cmdb',
      assets: [
        { key: 'esx', assetType: 'HYPERVISOR', displayName: 'esx-hist', serialNumber: 'UI-HIST-ESX' },
        { key: 'vm', assetType: 'VM', displayName: name, serialNumber: 'UI-HIST-VM', customAttributes: ATTRIBUTES },
      ],
      relationships: [{ type: 'HOSTS_VM', source: 'esx', target: 'vm' }],
    });
    ids = await importEstate(p.integrationKey, bundle('vm-hist'));
    await importEstate(p.integrationKey, bundle('vm-hist-renamed'));
    await nextSecond();
    before = new Date().toISOString();
    await nextSecond();
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("lists an asset's history on its History tab: the import, the rename, the decommissioning with its actor and the edge it retired, paged and filtered", async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets/${ids.vm}`);
    await page.getByRole('button', { name: 'Decommission' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Decommission' }).click();
    await page.locator('.status.decommissioned').waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    const panel = page.getByRole('tabpanel');
    const rows = panel.locator('tbody tr');
    await panel.getByText(/changes, newest first/).waitFor();
    // Newest first: the decommissioning (by the signed-in user), the edge it retired, then the rename.
    expect(await rows.nth(0).textContent()).toMatch(/^.*status.*status.*ACTIVE → DECOMMISSIONED.*admin \(user\)$/);
    expect(await rows.nth(1).textContent()).toMatch(/relationship retired.*HOSTS_VM.*esx-hist → this asset.*admin \(user\)/);
    expect(await rows.nth(1).getByRole('link', { name: 'esx-hist' }).getAttribute('href')).toBe(`/assets/${ids.esx}`);
    expect(await rows.nth(2).textContent()).toMatch(/fact.*displayName.*vm-hist → vm-hist-renamed.*import:cmdb/);
    expect(await rows.count()).toBe(50);
    expect(await panel.getByText(/^6\d changes, newest first$/).count()).toBe(1);
    await expectAccessible(page);

    // Older by the API's next link: the other 18 of the 68, none of the first page's; Newest goes back.
    const total = Number((await panel.locator('caption').textContent())?.replace(/\D/g, ''));
    const firstPage = await rows.allTextContents();
    const pager = panel.getByRole('navigation', { name: 'Pages of history' });
    expect(await pager.getByRole('button', { name: '‹ Newer' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Older ›' }).click();
    await pager.getByRole('button', { name: '‹ Newer' }).and(page.locator(':enabled')).waitFor();
    expect(await pager.getByRole('button', { name: 'Older ›' }).isDisabled()).toBe(true);
    const secondPage = await rows.allTextContents();
    expect(secondPage.length).toBe(total - 50);
    expect(secondPage.filter((r) => firstPage.includes(r))).toEqual([]);
    await pager.getByRole('button', { name: '« Newest' }).click();
    await panel.getByRole('row', { name: /ACTIVE → DECOMMISSIONED/ }).waitFor();

    // Filtered by fields: the name's two changes, the status's two and the edge's two.
    await panel.getByLabel('Fields').fill('displayName, status, HOSTS_VM');
    await panel.getByRole('button', { name: 'Filter' }).click();
    await panel.getByText('6 changes, newest first').waitFor();
    // The last three came with the first import, at one time: in any order.
    const filtered = (await rows.allTextContents()).map((r) => r.replace(/^.*?(fact|status|relationship)/, '$1'));
    expect(filtered.slice(0, 3)).toEqual([
      expect.stringMatching(/^status.*ACTIVE → DECOMMISSIONED/),
      expect.stringMatching(/^relationship retired.*HOSTS_VM/),
      expect.stringMatching(/^fact.*displayName.*vm-hist → vm-hist-renamed/),
    ]);
    expect(filtered.slice(3)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^status.*— → ACTIVE.*cmdb/),
      expect.stringMatching(/^fact.*displayName.*— → vm-hist.*import:cmdb$/),
      expect.stringMatching(/^relationship added.*HOSTS_VM.*esx-hist → this asset.*cmdb/),
    ]));
    expect(await panel.getByRole('navigation', { name: 'Pages of history' }).count()).toBe(0);
    await expectAccessible(page);
    // From a time between the rename and the decommissioning: the decommissioning only; to it: the rest.
    await panel.getByLabel('From').fill(await localField(page, before));
    await panel.getByRole('button', { name: 'Filter' }).click();
    await panel.getByText('2 changes, newest first').waitFor();
    expect(await rows.allTextContents()).toEqual([expect.stringMatching(/ACTIVE → DECOMMISSIONED/), expect.stringMatching(/relationship retired/)]);
    await panel.getByLabel('From').fill('');
    await panel.getByLabel('To').fill(await localField(page, before));
    await panel.getByRole('button', { name: 'Filter' }).click();
    await panel.getByText('4 changes, newest first').waitFor();
    expect(await rows.nth(0).textContent()).toMatch(/vm-hist → vm-hist-renamed/);
    await panel.getByRole('button', { name: 'Clear' }).click();
    await panel.getByText(/^6\d changes, newest first$/).waitFor();
    expect(await panel.getByLabel('Fields').inputValue()).toBe('');

    // The hypervisor saw the same edge come and go, the VM named as its other end.
    await page.goto(`${service.url}/assets/${ids.esx}`);
    await page.getByRole('tab', { name: 'History' }).click();
    const retired = panel.getByRole('row', { name: /relationship retired/ });
    expect(await retired.textContent()).toMatch(/HOSTS_VM.*this asset → vm-hist-renamed.*admin \(user\)/);
    expect(await retired.getByRole('link', { name: 'vm-hist-renamed' }).getAttribute('href')).toBe(`/assets/${ids.vm}`);
    await panel.getByRole('row', { name: /relationship added.*cmdb/ }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'asset-history');
    expect(errors).toEqual([]);
  });

  it('draws the neighbourhood as it was before the decommissioning, and compared with then marks the VM and its edge as disappeared', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/topology/${ids.esx}?depth=1&cables=1`);
    await drawnOrder(page, 1);
    const follow = page.getByLabel('Follow cables (port-to-port links)');
    expect(await follow.isChecked()).toBe(true);

    // As of before: the VM and its edge were there; cables are not followed in the past.
    await page.getByLabel('As of').fill(await localField(page, before));
    await drawnOrder(page, 2);
    expect(new URL(page.url()).searchParams.get('at')).toBe(new Date(Math.floor(Date.parse(before) / 1000) * 1000).toISOString());
    expect(await follow.isDisabled()).toBe(true);
    expect(await follow.isChecked()).toBe(false);
    const vm = () => page.evaluate((id) => (window as unknown as { __topology: Drawn }).__topology.graph.getNodeAttributes(id), ids.vm as string);
    expect((await vm()).label).toBe('vm-hist-renamed');
    await page.getByText(/esx-hist as of .*: 2 assets, 1 relationships/).waitFor();
    await expectAccessible(page);

    // Now again: the VM is gone; compared with before, it is drawn back, marked as disappeared.
    await page.getByRole('button', { name: 'Now' }).click();
    await drawnOrder(page, 1);
    expect(await follow.isDisabled()).toBe(false);
    await page.getByLabel('Compare with').fill(await localField(page, before));
    await drawnOrder(page, 2);
    expect(await vm()).toEqual(expect.objectContaining({ label: 'vm-hist-renamed (disappeared)', color: '#cf222e' }));
    const changes = page.getByRole('region', { name: 'What changed' });
    expect((await changes.locator('li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'disappeared vm-hist-renamed VM',
      'disappeared HOSTS_VM esx-hist → vm-hist-renamed',
    ]);
    expect(await page.getByRole('list', { name: 'Legend' }).getByText('disappeared').count()).toBe(1);
    expect(await follow.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Show the assets as a list' }).click();
    await page.getByRole('listitem').filter({ hasText: /vm-hist-renamed VM, disappeared/ }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'topology-compare');
    expect(errors).toEqual([]);
  });

  it('creates a remote scanner whose token is shown once, lists its contact and version, and revokes it after a confirmation', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scanners' }).click();
    await page.getByRole('heading', { name: 'Remote scanners', level: 1 }).waitFor();
    await page.getByText('No scanners yet.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('lyon-branch-1');
    await page.getByLabel(/^Group/).fill('lyon-branch');
    await page.getByRole('button', { name: 'Create scanner' }).click();
    const token = (await page.locator('.secret-value').textContent()) as string;
    expect(token).toMatch(/^svcs_[0-9A-Za-z]{38}$/);
    await page.getByRole('row', { name: /lyon-branch-1.*svcs_.*ACTIVE/ }).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.secret-value').count()).toBe(0);

    // The token works: its claim is the scanner's contact, with its version; the list shows them, never the token.
    const claim = () => fetch(`${service.url}/api/v1/scanner/chunks/claim`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ version: '9.9.9-ui', waitSeconds: 0 }),
    }).then((r) => r.status);
    expect(await claim()).toBe(204);
    await page.reload();
    const row = page.getByRole('row', { name: /lyon-branch-1/ });
    await row.getByText('9.9.9-ui').waitFor();
    expect(await row.locator('td').nth(4).textContent()).not.toBe('—');
    expect(await row.locator('td').nth(6).textContent()).toBe('0');
    expect(await page.content()).not.toContain(token);
    await expectAccessible(page);

    // A run of the scanner's group: the scanner takes its one chunk and ends it; the run page names
    // the scanner as the chunk's runner, linked to the Scanners page.
    const scanner = (path: string, body: unknown) => fetch(`${service.url}/api/v1/scanner/chunks/${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const target = (await p.discoveryAdminSession.post('/api/v1/discovery/targets', { name: 'lyon-office', addresses: ['192.0.2.60'], methods: ['SWEEP'], scannerGroup: 'lyon-branch' })).body.data;
    const run = (await p.discoveryAdminSession.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data;
    let claimed = await scanner('claim', { version: '9.9.9-ui', waitSeconds: 5 });
    while (claimed.status === 204) claimed = await scanner('claim', { version: '9.9.9-ui', waitSeconds: 5 });
    const chunk = (await claimed.json()).data;
    const silent = { address: '192.0.2.60', responding: false, openPorts: [], attempted: [], observations: [], errors: [] };
    expect((await scanner(`${chunk.id}/reports`, { attempt: chunk.attempt, results: [{ address: '192.0.2.60', result: silent }], end: { credentialsTried: [] } })).status).toBe(200);
    await page.goto(`${service.url}/discovery/runs/${run.id}`);
    await page.locator('[data-status="COMPLETED"]').waitFor();
    const chunkRow = page.getByRole('row', { name: /192\.0\.2\.60.*DONE.*1 of 1.*scanner lyon-branch-1/ });
    await chunkRow.waitFor();
    await expectAccessible(page);
    await screenshot(page, 'run-chunks');
    await chunkRow.getByRole('link', { name: 'lyon-branch-1' }).click();
    await page.getByRole('heading', { name: 'Remote scanners', level: 1 }).waitFor();
    expect(await row.locator('td').nth(6).textContent()).toBe('1');

    // Revoked after the confirmation: the row says so and the token is refused.
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await claim()).toBe(204);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expectAccessible(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('row', { name: /lyon-branch-1.*REVOKED.*revoked/ }).waitFor();
    expect(await claim()).toBe(401);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('shows the Scanners page to administrators only', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, 'viewer', USER_PASSWORD);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scanners' }).count()).toBe(0);
    await page.goto(`${service.url}/scanners`);
    await page.getByText(/You may not manage scanners/).waitFor();
    expect(errors).toEqual([]);
  });
});
