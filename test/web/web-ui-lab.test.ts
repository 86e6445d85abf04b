/// <reference lib="dom" />
// The web UI with a real peer: a target for a lab host (a network namespace running Debian's sshd,
// src/tools/lab) created in the browser, scanned, and its run watched to its end with its progress.
import type { Browser } from 'playwright-core';
import { LAB_START_TIMEOUT_MS, SCAN_PASSWORD, SCAN_USER, startTestNetwork, SUBNET, type TestNetwork } from '../../src/tools/lab/lab-network.js';
import { describeInLab } from '../support/discovery-scans.js';
import { ADMIN_PASSWORD, createPrincipals, USER_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

const describePeers = await describeInLab("The web UI's scan of a lab host");

describePeers('the web UI scanning a lab host', () => {
  let network: TestNetwork;
  let service: TestService;
  let browser: Browser;
  beforeAll(async () => {
    network = await startTestNetwork();
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, discoverySweepPorts: '22', discoveryConnectTimeoutMs: 1000 });
    const p = await createPrincipals(service.url);
    const created = await p.discoveryAdminSession.post('/api/v1/credentials', {
      name: 'lab password', kind: 'SSH_PASSWORD', matchPatterns: [`${SUBNET}.0/24`], settings: { username: SCAN_USER }, secrets: { password: SCAN_PASSWORD },
    });
    expect(created.status).toBe(201);
    browser = await launch();
  }, LAB_START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await network?.stop();
  });

  it('creates a target for a lab host, scans it, and shows the run live until it finishes, with the host it found', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/discovery`);
    await page.getByRole('button', { name: 'New target' }).click();
    await page.getByLabel('Name', { exact: true }).fill('lab h1');
    await page.getByLabel(/Addresses/).fill(network.hosts.h1.address);
    // Every inventory method of api.yaml is offered; a new target starts with SWEEP, SSH and SNMP.
    for (const method of ['SWEEP', 'SSH', 'SNMP']) expect(await page.getByLabel(method, { exact: true }).isChecked()).toBe(true);
    for (const method of ['VCENTER', 'LIBVIRT', 'CONTAINERS']) expect(await page.getByLabel(method, { exact: true }).isChecked()).toBe(false);
    await page.getByLabel('SNMP').uncheck();
    await page.getByLabel(/Schedule/).fill('0 0 3 * * *');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /lab h1.*0 0 3 \* \* \*/ }).getByRole('button', { name: 'Scan now' }).click();
    await page.waitForURL(/\/discovery\/runs\//);
    // Live: the progress bar is there from the start, and the status moves on by itself.
    await page.locator('.run-status progress').waitFor();
    await page.locator('[data-status=COMPLETED]').waitFor({ timeout: 120_000 });
    expect(await page.locator('.run-status progress').getAttribute('value')).toBe('1');
    expect(await page.locator('.run-status').textContent()).toContain('1/1');
    // The hosts table's row (the chunks table names the address too).
    const host = page.getByRole('table', { name: "The run's hosts: 1" }).getByRole('row', { name: new RegExp(network.hosts.h1.address.replace(/\./g, '\\.')) });
    await host.waitFor();
    expect(await host.textContent()).toContain('SUCCESS');
    // The asset by its name, marked as created by this run; no alert for a run without errors.
    expect(await host.getByRole('link').textContent()).toBe('h1');
    expect(await host.textContent()).toContain('(created by this run)');
    await page.getByText('No alert was raised for this run.').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'lab-run');
    // The host it found is an asset with its packages.
    await host.getByRole('link').click();
    await page.getByRole('heading', { name: 'h1', level: 1 }).waitFor();
    await page.getByRole('tab', { name: 'Installed software' }).click();
    await page.locator('[role=tabpanel] table tbody tr').first().waitFor();
    expect(errors).toEqual([]);
  });
});
