/// <reference lib="dom" />
// The web UI for daily operations (issue 37): what broke a day's work there, each in Chromium
// against the real service with a demo estate, each page checked with axe-core.
import type { Browser } from 'playwright-core';
import { demoEstate } from '../../src/tools/demo-estate.js';
import { importEstate, LOOPED_ESTATE, type EstateIds } from '../support/estate.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, createUser, USER_PASSWORD, type Principals } from '../support/principals.js';
import { parseRfc4180 } from '../support/rfc4180.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, signIn } from './browser.js';

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
});
