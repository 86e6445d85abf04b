/// <reference lib="dom" />
// The Insights page in Debian's Chromium against the real service: the feeds the API lists, a
// feed's findings with links to their assets, a parameter applied through the URL; axe-core checks
// and a screenshot (test-results/web/insights.png).
import type { Browser } from 'playwright-core';
import { INSIGHT_FEEDS } from '../../src/features/insights/insight-feeds.js';
import { ADMIN_PASSWORD, createPrincipals, USER_PASSWORD, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

describe('the Insights page', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;
  let ids: Record<string, string>;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    const res = await p.integrationKey.post('/api/v1/import', {
      source: 'ui-insights',
      assets: [
        { key: 'h', assetType: 'PHYSICAL_HOST', displayName: 'host-a', hostname: 'host-a' },
        { key: 'vm', assetType: 'VM', displayName: 'lonely-vm' },
        { key: 'sw', assetType: 'SOFTWARE', displayName: 'lonely-app' },
      ],
    });
    expect(res.status).toBe(200);
    ids = Object.fromEntries(res.body.data.assets.map((a: { key: string; id: string }) => [a.key, a.id]));
    browser = await launch();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('lists the feeds, shows the orphan assets with links to them, and applies a feed parameter from the URL', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, 'viewer', USER_PASSWORD);
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    const feeds = page.getByRole('navigation', { name: 'Insight feeds' }).getByRole('link');
    await feeds.first().waitFor();
    expect(await feeds.allTextContents()).toEqual(INSIGHT_FEEDS.map((f) => f.title));

    await page.getByRole('link', { name: 'Orphan assets' }).click();
    await page.waitForURL(/feed=orphan-assets/);
    const rows = page.locator('.loaded[aria-busy=false] table tbody tr');
    await rows.first().waitFor();
    expect(await rows.locator('td:nth-child(2) a').allTextContents()).toEqual(['lonely-app', 'lonely-vm']);
    expect(await rows.first().locator('dl.evidence').textContent()).toContain('RUNS_ON');
    await expectAccessible(page);
    await screenshot(page, 'insights');

    // New assets: all three are new; a since after their import leaves none.
    await page.getByRole('link', { name: 'New assets' }).click();
    await page.waitForURL(/feed=new-assets/);
    await page.locator('.loaded[aria-busy=false] table caption', { hasText: '3 findings' }).waitFor();
    await page.getByLabel('since').fill('2999-01-01T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/since=2999/);
    await page.getByText('Nothing to show.').waitFor();
    await expectAccessible(page);

    // A row's asset link opens the asset.
    await page.getByRole('link', { name: 'Orphan assets' }).click();
    await page.locator('.loaded[aria-busy=false] table tbody tr').first().waitFor();
    await page.getByRole('link', { name: 'lonely-vm' }).click();
    await page.waitForURL(new RegExp(`/assets/${ids.vm}`));
    await page.getByRole('heading', { name: 'lonely-vm' }).waitFor();
    expect(errors).toEqual([]);
  });
});
