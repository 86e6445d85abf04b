/// <reference lib="dom" />
// The web UI for daily operations (issue 37): what broke a day's work there, each in Chromium
// against the real service with a demo estate, each page checked with axe-core.
import type { Browser, Page } from 'playwright-core';
import { demoEstate } from '../../src/tools/demo-estate.js';
import { importEstate, LOOPED_ESTATE, type EstateIds } from '../support/estate.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, createUser, USER_PASSWORD, type Principals } from '../support/principals.js';
import { parseRfc4180 } from '../support/rfc4180.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

describe('the web UI for daily operations', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;
  let ring: EstateIds;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    for (const bundle of demoEstate(50)) expect((await p.integrationKey.post('/api/v1/import', bundle)).status).toBe(200);
    ring = await importEstate(p.integrationKey, LOOPED_ESTATE);
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('draws a topology whose walk loops back to its root at depth 5, and a page that fails says so in its place, the navigation kept', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/topology/${ring.a}?depth=5`);
    await page.locator('.graph canvas').first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { __topology: { graph: { order: number } } }).__topology.graph.order)).toBe(5);
    await expectAccessible(page);
    // A page that throws while it draws (here a topology that lists its root twice, as the service once did).
    await page.route('**/api/v1/topology/**', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { root: unknown; nodes: unknown[] } };
      body.data.nodes.push(body.data.root);
      await route.fulfill({ response, json: body });
    });
    await page.reload();
    await page.getByRole('alert').getByText(/This page failed to show/).waitFor();
    await expectAccessible(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assets' }).click();
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    expect(errors).toEqual([]);
  });

  it('exports the rows the list shows: the search text and every other filter of the list go into the export', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    for (const filter of ['q=ber', 'q=par', 'q=vm-&status=ACTIVE&environment=production', 'type=SOFTWARE_PACKAGE&q=openssl', 'type=SOFTWARE_PACKAGE&q=par&site=paris', 'type=RUNNING_PROCESS&q=sshd&site=berlin']) {
      await page.goto(`${service.url}/assets?${filter}`);
      const shown = Number((await page.locator('.loaded[aria-busy=false] caption').textContent())?.replace(/\D/g, ''));
      const csv = (await page.getByRole('link', { name: 'CSV' }).getAttribute('href')) as string;
      const exported = await page.evaluate(async (href) => (await fetch(href)).text(), csv);
      expect({ filter, rows: parseRfc4180(exported).length - 1 }).toEqual({ filter, rows: shown });
      expect(shown).toBeGreaterThan(0);
    }
    // Graph and synthesized types together: no one export holds them, and the page says which do.
    await page.goto(`${service.url}/assets?type=VM,SOFTWARE_PACKAGE`);
    await page.locator('.exports').getByText(/one type of packages/).waitFor();
    expect(await page.getByRole('link', { name: 'CSV' }).count()).toBe(0);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('keeps a shared link through the sign-in, and follows no next that leads off this site', async () => {
    /** A new browser context (signed out) opened at `path`, signed in on the page it is sent to. */
    const signInFrom = async (path: string) => {
      const { page, errors } = await openPage(browser);
      await page.goto(`${service.url}${path}`);
      await page.getByLabel('User name').fill(ADMIN_USERNAME);
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      return { page, errors };
    };
    const shared = `/topology/${ring.a}?depth=3&cables=1`;
    const { page, errors } = await signInFrom(shared);
    await page.getByRole('heading', { name: 'Topology', level: 1 }).waitFor();
    expect(page.url()).toBe(`${service.url}${shared}`);
    expect(errors).toEqual([]);
    for (const next of ['https://evil.invalid/assets', '//evil.invalid/assets', '/\\evil.invalid/assets', '/\t/evil.invalid/assets']) {
      const elsewhere = await signInFrom(`/login?next=${encodeURIComponent(next)}`);
      await elsewhere.page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
      expect(elsewhere.page.url()).toBe(`${service.url}/assets`);
      expect(elsewhere.errors).toEqual([]);
    }
  });

  it('manages discovery targets: refusals name the form\'s fields, disable and enable, a queued run cancelled, run and target linked, delete after a confirmation', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/discovery`);
    await page.getByRole('button', { name: 'New target' }).click();
    await page.getByLabel('Name', { exact: true }).fill('ops target');
    await page.getByLabel(/Addresses/).fill('127.0.0.9\nbad!address');
    await page.getByLabel(/Schedule/).fill('every day');
    await page.getByRole('button', { name: 'Save' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText(/^Addresses, item 2/).waitFor();
    await refusal.getByText(/^Schedule/).waitFor();
    expect(await refusal.textContent()).not.toMatch(/body\./);
    await expectAccessible(page);
    await page.getByLabel(/Addresses/).fill('127.0.0.9');
    await page.getByLabel(/Schedule/).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row', { name: /^ops target Runs of ops target/ });
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('cell', { name: 'disabled', exact: true }).waitFor();
    expect(await row.getByRole('button', { name: 'Scan now' }).isDisabled()).toBe(true);
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('cell', { name: 'enabled', exact: true }).waitFor();
    await expectAccessible(page);

    // A queued run (no worker is told of it, so it waits) is cancelled from its page.
    const target = ((await p.discoveryAdminSession.get('/api/v1/discovery/targets?size=200')).body.data as { id: string; name: string }[]).find((t) => t.name === 'ops target');
    const queued = await service.running.container.runs.create(target?.id as string, 'ops target', 'MANUAL');
    await page.goto(`${service.url}/discovery/runs/${queued?.id}`);
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await expectAccessible(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel the run' }).click();
    await page.locator('[data-status=CANCELLED]').waitFor();
    // The run leads to its target's runs, and they back to it.
    await page.getByRole('link', { name: 'ops target and its runs' }).click();
    await page.getByRole('heading', { name: 'Runs of ops target' }).waitFor();
    await page.getByRole('row', { name: /CANCELLED/ }).getByRole('link', { name: 'ops target' }).click();
    await page.waitForURL(new RegExp(`/discovery/runs/${queued?.id}`));

    await page.goto(`${service.url}/discovery`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await expectAccessible(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await p.discoveryAdminSession.get(`/api/v1/discovery/runs/${queued?.id}`)).body.data).toMatchObject({ status: 'CANCELLED', targetId: null });
    expect(errors).toEqual([]);
  });

  it('changes a user\'s roles and disables a user only after a confirmation', async () => {
    const id = await createUser(p.adminSession, 'ops-user', ['VIEWER']);
    const user = async () => (await p.adminSession.get(`/api/v1/users/${id}`)).body.data as { roles: string[]; disabled: boolean };
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/admin`);
    const row = page.getByRole('row', { name: /^ops-user/ });
    const dialog = page.getByRole('dialog');
    await row.getByLabel('ANALYST').click();
    await dialog.getByText('Give ops-user the role ANALYST?').waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.getByLabel('ANALYST').isChecked()).toBe(false);
    expect((await user()).roles).toEqual(['VIEWER']);
    await row.getByLabel('ANALYST').click();
    await dialog.getByRole('button', { name: 'Give the role' }).click();
    await row.getByLabel('ANALYST').and(page.locator(':checked')).waitFor();
    expect((await user()).roles.sort()).toEqual(['ANALYST', 'VIEWER']);

    await row.getByRole('button', { name: 'Disable' }).click();
    await dialog.getByText(/^Disable ops-user\?/).waitFor();
    expect((await user()).disabled).toBe(false);
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    expect((await user()).disabled).toBe(true);
    expect(errors).toEqual([]);
  });

  it('titles every page, an asset\'s page with its name; the fields of an asset keep their words whole; a package\'s version is labelled Version', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    const titled = (title: string) => page.waitForFunction((t) => document.title === t, `${title} · Asset inventory`);
    await page.goto(`${service.url}/assets`);
    await titled('Sign in');
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await titled('Assets');
    const pages: [string, string][] = [
      ['/discovery', 'Discovery'], ['/insights', 'Insights'], ['/credentials', 'Credentials'], ['/schema', 'Schema'], ['/cypher', 'Cypher'],
      ['/admin', 'Administration'], ['/profile', 'Profile'], [`/topology/${ring.a}`, 'Topology of ring-a'], ['/no-such-page', 'No such page'],
    ];
    for (const [path, title] of pages) {
      await page.goto(`${service.url}${path}`);
      await titled(title);
    }

    const first = async (type: string) => (await p.integrationKey.get(`/api/v1/assets?type=${type}&size=1`)).body.data[0] as { id: string; displayName: string; model: string };
    for (const type of ['PHYSICAL_HOST', 'VIRTUALIZATION_MANAGER']) {
      const asset = await first(type);
      await page.goto(`${service.url}/assets/${asset.id}`);
      await titled(asset.displayName);
      await page.locator('dl.fields').getByText(`(${type})`).first().waitFor();
      // A word split over two lines has a box on each.
      const split = await page.evaluate(() => {
        const found: string[] = [];
        for (const dd of document.querySelectorAll('dl.fields dd')) {
          const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, word.index);
              range.setEnd(node, word.index + word[0].length);
              if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) found.push(word[0]);
            }
          }
        }
        return found;
      });
      expect(split).toEqual([]);
      await expectAccessible(page);
    }

    const pkg = await first('SOFTWARE_PACKAGE');
    await page.goto(`${service.url}/assets/${pkg.id}`);
    const fields = page.locator('dl.fields');
    await fields.getByText('Version', { exact: true }).waitFor();
    expect(await fields.locator('div', { has: page.getByText('Version', { exact: true }) }).locator('dd').textContent()).toBe(pkg.model);
    expect(await fields.getByText('Model', { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });
  /** The header of the assets table as shown (a sorted column with its arrow), once the list has loaded. */
  const headers = async (page: Page) => {
    const table = page.locator('.loaded[aria-busy=false] table');
    await table.waitFor();
    return table.locator('thead th').allTextContents();
  };
  /** The cells of the column headed `label` (its sort arrow aside), row by row. */
  const column = async (page: Page, label: string) => {
    const shown = (await headers(page)).map((h) => h.replace(/ [▲▼]$/, ''));
    const at = shown.indexOf(label);
    if (at < 0) throw new Error(`no column ${label} among ${shown.join(', ')}`);
    return page.locator('.loaded[aria-busy=false] table tbody tr').locator(`td:nth-child(${at + 1})`).allTextContents();
  };
  /** The rows the API gives for the same query as the page (its first page of 50). */
  const apiRows = async (client: ApiClient, search: string) => (await client.get(`/api/v1/assets?${search}&size=50`)).body as { total: number; data: { id: string; displayName: string; model: string | null; customAttributes: string }[] };
  /** The check boxes of one dropdown of the filters (Type, Site, Columns, ...), opened. */
  const dropdown = async (page: Page, label: string) => {
    const details = page.locator('details.multi', { has: page.locator('summary', { hasText: new RegExp(`^${label}( \\(\\d+\\))?$`) }) });
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
    return details;
  };

  it('names Category and Type by what they hold, alike in the list, its filters and an asset\'s page', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets?type=VM`);
    expect(new Set(await column(page, 'Type'))).toEqual(new Set(['Virtual Machine']));
    expect(new Set(await column(page, 'Category'))).toEqual(new Set(['Host']));
    // The Type filter lists types by the labels of the Type column, the Category filter categories.
    await (await dropdown(page, 'Type')).getByLabel('Virtual Machine', { exact: true }).and(page.locator(':checked')).waitFor();
    await (await dropdown(page, 'Category')).getByLabel('Host', { exact: true }).waitFor();
    await expectAccessible(page);
    // A VM of the demo estate (the looped one's have no custom attributes).
    const vm = (await apiRows(p.integrationKey, 'type=VM')).data.find((r) => 'memoryMb' in JSON.parse(r.customAttributes));
    await page.goto(`${service.url}/assets/${vm?.id}`);
    const field = (label: string) => page.locator('dl.fields div', { has: page.getByText(label, { exact: true }) }).locator('dd');
    expect([await field('Category').textContent(), await field('Type').textContent()]).toEqual(['Host (HOST)', 'Virtual Machine (VM)']);
    expect(await page.locator('dl.fields dt', { hasText: /^Subtype$/ }).count()).toBe(0);
    // Its custom attributes by the names of the list's columns, memory with its unit.
    const memoryMb = (JSON.parse(vm?.customAttributes ?? '{}') as { memoryMb: number }).memoryMb;
    expect(await page.getByRole('row', { name: /^Memory \(memoryMb\)/ }).getByRole('cell').allTextContents()).toEqual(['Memory (memoryMb)', `${memoryMb / 1024} GiB`]);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('lists packages with their version in a Version column, the host beside it', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets?type=SOFTWARE_PACKAGE&q=openssl`);
    const expected = await apiRows(p.integrationKey, 'type=SOFTWARE_PACKAGE&q=openssl');
    expect(expected.data.length).toBeGreaterThan(1);
    expect(await column(page, 'Version')).toEqual(expected.data.map((r) => r.model ?? '—'));
    expect((await column(page, 'Parent')).every((host) => host !== '—')).toBe(true);
    expect(await headers(page)).not.toContain('Model');
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('chooses the columns from the fields of the types shown, OS, CPUs, memory (with its unit) and serial first-class for hosts, and keeps the choice in the URL', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets?type=VM`);
    expect(await headers(page)).toEqual(expect.arrayContaining(['OS', 'CPUs', 'Memory', 'Serial number']));
    const vms = await apiRows(p.integrationKey, 'type=VM');
    const attributes = vms.data.map((r) => JSON.parse(r.customAttributes) as { memoryMb?: number; osName?: string });
    expect(attributes.filter((a) => a.memoryMb).length).toBeGreaterThan(10);
    expect(await column(page, 'Memory')).toEqual(attributes.map((a) => (a.memoryMb ? `${a.memoryMb / 1024} GiB` : '—')));
    expect(await column(page, 'OS')).toEqual(attributes.map((a) => a.osName ?? '—'));

    // A field of the type (its power state) added, the addresses taken away.
    const chooser = await dropdown(page, 'Columns');
    const header = (label: string) => page.locator('.loaded[aria-busy=false] thead th', { hasText: new RegExp(`^${label}$`) });
    await chooser.getByLabel('Power state', { exact: true }).click();
    await page.waitForURL(/columns=[^&]*customAttributes\.powerState/);
    await header('Power state').waitFor();
    await chooser.getByLabel('Addresses', { exact: true }).click();
    await page.waitForURL((url) => !(url.searchParams.get('columns') ?? '').includes('ipAddresses'));
    await header('Addresses').waitFor({ state: 'detached' });
    await expectAccessible(page);
    // The URL keeps the choice: the page opened from it shows the same columns.
    const shown = await headers(page);
    await page.goto(page.url());
    expect(await headers(page)).toEqual(shown);
    await dropdown(page, 'Columns');
    await screenshot(page, 'assets-columns');
    // The columns of another type are its own: a datastore has a capacity, with its unit.
    await page.goto(`${service.url}/assets?type=DATASTORE`);
    await (await dropdown(page, 'Columns')).getByLabel('Capacity', { exact: true }).click();
    await header('Capacity').waitFor();
    expect(new Set(await column(page, 'Capacity'))).toEqual(new Set(['4,096 GB']));
    await page.getByRole('button', { name: 'Default columns' }).click();
    await page.waitForURL((url) => !url.searchParams.has('columns'));
    await header('Capacity').waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });

  it('picks site and environment from the values the assets hold, applies a typed one on Enter, shows each filter as a chip that removes it, and clears them all', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets`);
    const sites = (await p.viewer.get('/api/v1/assets/values?field=site')).body.data as { value: string; count: number }[];
    const paris = sites.find((s) => s.value === 'paris');
    expect(paris?.count).toBeGreaterThan(0);
    const siteList = await dropdown(page, 'Site');
    await siteList.getByLabel(`paris (${paris?.count})`).waitFor();
    expect(await siteList.locator('label').allTextContents()).toEqual(sites.map((s) => `${s.value} (${s.count})`).sort());
    await siteList.getByLabel(`paris (${paris?.count})`).click();
    await page.waitForURL(/site=paris/);
    await page.locator('.loaded[aria-busy=false] caption', { hasText: new RegExp(`^${paris?.count} assets$`) }).waitFor();
    const environments = await dropdown(page, 'Environment');
    await environments.getByLabel('Another environment').fill('staging');
    await environments.getByLabel('Another environment').press('Enter');
    await page.waitForURL(/environment=staging/);
    await page.getByPlaceholder('Name, host name, FQDN…').fill('vm-');
    await page.getByPlaceholder('Name, host name, FQDN…').press('Enter');
    await page.waitForURL(/q=vm-/);
    const chips = page.getByRole('list', { name: 'Filters applied' });
    await chips.getByRole('button', { name: 'Remove the filter Search: vm-' }).waitFor();
    expect(await chips.getByRole('button').allTextContents()).toEqual(['Remove the filter Search: vm- ×', 'Remove the filter Site: paris ×', 'Remove the filter Environment: staging ×', 'Clear all filters']);
    const total = (await apiRows(p.viewer, 'q=vm-&site=paris&environment=staging')).total;
    await page.locator('.loaded[aria-busy=false] caption', { hasText: new RegExp(`^${total} assets$`) }).or(page.getByText('Nothing to show.')).waitFor();
    await expectAccessible(page);
    await chips.getByRole('button', { name: 'Remove the filter Site: paris' }).click();
    await page.waitForURL((url) => !url.searchParams.has('site') && url.searchParams.get('environment') === 'staging');
    await chips.getByRole('button', { name: 'Clear all filters' }).click();
    await page.waitForURL((url) => ['q', 'site', 'environment'].every((f) => !url.searchParams.has(f)));
    await chips.waitFor({ state: 'detached' });
    await page.waitForFunction(() => (document.querySelector('input[type=search]') as HTMLInputElement).value === '');
    expect(errors).toEqual([]);
  });

  it('saves the list as a view, opens it from the list of views and from its link (for anyone signed in), and deletes it for its owner alone', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'viewer', USER_PASSWORD);
    const shaped = 'type=VM&site=paris&sort=displayName%2Cdesc&columns=displayName%2CassetType%2CcustomAttributes.memoryMb';
    await page.goto(`${service.url}/assets?${shaped}`);
    const shown = await headers(page);
    expect(shown).toEqual(['Name ▼', 'Type', 'Memory']);
    await page.getByLabel('View name').fill('Paris VMs by name');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.waitForURL(/view=/);
    const id = new URL(page.url()).searchParams.get('view') as string;
    expect((await p.viewer.get(`/api/v1/views/${id}`)).body.data).toMatchObject({
      name: 'Paris VMs by name', list: 'ASSETS', filters: { type: 'VM', site: 'paris' }, columns: ['displayName', 'assetType', 'customAttributes.memoryMb'], sort: 'displayName,desc',
    });
    await page.getByLabel('Saved view', { exact: true }).locator('option', { hasText: 'Paris VMs by name' }).waitFor({ state: 'attached' });
    await expectAccessible(page);

    // Another user opens it by its link: the filters, columns and sort are the view's.
    const other = await openPage(browser, { width: 1440, height: 900 });
    await signIn(other.page, service.url, 'analyst', USER_PASSWORD);
    await other.page.locator('.loaded[aria-busy=false] table').waitFor();
    // The list is read once, with the view's filters: not first without them while the view is applied.
    const lists: string[] = [];
    other.page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/v1/assets') lists.push(url.search);
    });
    await other.page.goto(`${service.url}/assets?view=${id}`);
    await other.page.waitForURL(/type=VM/);
    expect(await headers(other.page)).toEqual(shown);
    expect(lists).toEqual(['?type=VM&site=paris&sort=displayName%2Cdesc&size=50']);
    const search = new URL(other.page.url()).searchParams;
    expect([search.get('site'), search.get('sort'), search.get('view')]).toEqual(['paris', 'displayName,desc', id]);
    const names = (await apiRows(p.analyst, 'type=VM&site=paris&sort=displayName,desc')).data.map((r) => r.displayName);
    expect(await column(other.page, 'Name')).toEqual(names);
    await other.page.getByText('Showing Paris VMs by name by viewer').waitFor();
    expect(await other.page.getByRole('button', { name: 'Delete view' }).count()).toBe(0);
    await expectAccessible(other.page);
    // A change of the list leaves the view.
    await (await dropdown(other.page, 'Status')).getByLabel('ACTIVE', { exact: true }).click();
    await other.page.waitForURL((url) => !url.searchParams.has('view') && url.searchParams.get('type') === 'VM');
    expect(other.errors).toEqual([]);

    // Its owner picks it from the list of views, and deletes it after a confirmation.
    await page.goto(`${service.url}/assets`);
    await page.getByLabel('Saved view', { exact: true }).selectOption({ label: 'Paris VMs by name' });
    await page.waitForURL(/site=paris/);
    expect(await headers(page)).toEqual(shown);
    await page.getByRole('button', { name: 'Delete view' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete view' }).click();
    await page.waitForURL((url) => !url.searchParams.has('view'));
    expect((await p.viewer.get(`/api/v1/views/${id}`)).status).toBe(404);
    await page.getByLabel('Saved view', { exact: true }).locator('option', { hasText: 'Paris VMs by name' }).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });
});
