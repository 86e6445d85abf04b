/// <reference lib="dom" />
// The web UI end to end: Debian's Chromium against the real service on real stores with a demo
// estate. Each test keeps a screenshot (test-results/web/) and checks the page with axe-core.
import type { Browser } from 'playwright-core';
import { demoEstate } from '../../src/tools/demo-estate.js';
import type { ApiClient } from '../support/api-client.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, USER_PASSWORD, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';
import { cabledHypervisor } from './cabled-hypervisor.js';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

describe('the web UI', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;
  let key: ApiClient;
  let hypervisor: string;
  let switchId: string;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, aiEnabled: true, discoveryConnectTimeoutMs: 500, discoverySweepPorts: '9' });
    p = await createPrincipals(service.url);
    key = p.integrationKey;
    for (const bundle of demoEstate(40)) expect((await key.post('/api/v1/import', bundle)).status).toBe(200);
    expect((await key.post('/api/v1/import', { source: 'hostile', assets: [{ key: 'x', assetType: 'SERVER', displayName: HOSTILE, serialNumber: 'HOSTILE-1', customAttributes: { note: '<script>window.__xss=2</script>' } }] })).status).toBe(200);
    // A hypervisor that LLDP saw on its switch: its interface has a Connected to cell.
    const cabled = await cabledHypervisor(key);
    hypervisor = cabled.hypervisor.id;
    switchId = cabled.switchId;
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('signs in, searches and filters assets with the filters in the URL, follows the pages, and signs out', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${service.url}/assets`);
    await page.getByLabel('Password').waitFor();
    await expectAccessible(page);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.getByText(/assets$/).first().waitFor();
    await expectAccessible(page);

    await page.getByPlaceholder('Name, host name, FQDN…').fill('vm-par');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=vm-par/);
    await page.locator('summary', { hasText: 'Status' }).click();
    // These boxes show the URL, which changes once the router has navigated: click, then wait for it
    // (check() wants the box ticked at once and fails while the navigation is still on its way).
    await page.getByLabel('ACTIVE', { exact: true }).click();
    await page.waitForURL(/status=ACTIVE/);
    await page.getByLabel('ACTIVE', { exact: true }).and(page.locator(':checked')).waitFor();
    const rows = page.locator('.loaded[aria-busy=false] table tbody tr');
    await rows.first().waitFor();
    const names = await rows.locator('td:first-child').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.includes('vm-par'))).toBe(true);
    // The view is in the URL: a bookmark opens it again.
    const bookmark = page.url();
    const total = await page.locator('caption').textContent();
    await page.goto(bookmark);
    await expect(page.locator('caption').textContent()).resolves.toBe(total);

    // Pages follow the API's links (a cursor for the next one).
    await page.goto(`${service.url}/assets`);
    await page.locator('table tbody tr').first().waitFor();
    const first = await page.locator('table tbody tr td:first-child').first().textContent();
    await page.getByRole('button', { name: 'Next ›' }).click();
    await page.waitForURL(/cursor=/);
    await page.getByText(/^Page 2 of/).waitFor();
    expect(await page.locator('table tbody tr td:first-child').first().textContent()).not.toBe(first);
    // Sorting by a column.
    await page.getByRole('button', { name: 'Status' }).click();
    await page.waitForURL(/sort=status/);
    await screenshot(page, 'assets');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User name').waitFor();
    expect(errors).toEqual([]);
  });

  it('shows an asset with its fields, parent, custom attributes and each tab, the interfaces with what they are connected to', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets/${hypervisor}`);
    await page.getByRole('heading', { name: 'Custom attributes' }).waitFor();
    await page.getByText('Parent').waitFor();
    expect(await page.locator('dl.fields').textContent()).toContain('Hypervisor');
    for (const tab of ['Relationships', 'Installed software', 'Processes', 'Services']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.locator(`[role=tabpanel] table, [role=tabpanel] .muted`).first().waitFor();
    }
    await page.getByRole('tab', { name: 'Interfaces' }).click();
    const cell = page.locator('.connected-to').first();
    await cell.waitFor();
    expect(await cell.textContent()).toMatch(/sw-\w+-\d+ · Te1\/1\/\d+ \(LLDP, 1\.00\)/);
    await expectAccessible(page);
    await screenshot(page, 'asset-detail');
    // The neighbour is a link to its asset.
    await cell.getByRole('link').click();
    await page.waitForURL(new RegExp(`/assets/${switchId}`));
    expect(errors).toEqual([]);
  });

  it('shows device text as text, never as markup', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets?q=${encodeURIComponent('<img')}`);
    const link = page.getByRole('link', { name: HOSTILE });
    await link.waitFor();
    await link.click();
    await page.getByRole('heading', { name: HOSTILE }).waitFor();
    await page.getByText('<script>window.__xss=2</script>').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img[src=x]').count()).toBe(0);
  });

  it('opens the topology of a switch at depth 2 with the hosts cabled to it port to port, and re-centres on one', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/topology/${switchId}?depth=2`);
    await page.locator('.graph canvas').first().waitFor();
    // A switch has no relationships: its neighbourhood is its cables.
    await page.getByLabel(/Follow cables/).click();
    await page.waitForURL(/cables=1/);
    await page.getByText(/[1-9]\d* port-to-port links\./).waitFor();
    const drawn = await page.evaluate(() => {
      const t = (window as unknown as { __topology: { graph: { order: number; edges(): string[]; getEdgeAttribute(e: string, a: string): string } } }).__topology;
      return { nodes: t.graph.order, ports: t.graph.edges().map((e) => t.graph.getEdgeAttribute(e, 'label')).filter((l) => l.includes('↔')) };
    });
    expect(drawn.nodes).toBeGreaterThan(1);
    expect(drawn.ports.some((l) => /Te1\/1\/\d+ ↔ vmnic0 \(LLDP\)|vmnic0 ↔ Te1\/1\/\d+ \(LLDP\)/.test(l))).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'topology');
    // Double-click on the hypervisor re-centres the explorer on it.
    await page.waitForTimeout(500);
    const at = await page.evaluate((id) => {
      const t = (window as unknown as { __topology: { layout: { stop(): void }; renderer: { getNodeDisplayData(n: string): { x: number; y: number }; framedGraphToViewport(c: { x: number; y: number }): { x: number; y: number }; refresh(): void } } }).__topology;
      t.layout.stop();
      t.renderer.refresh();
      return t.renderer.framedGraphToViewport(t.renderer.getNodeDisplayData(id));
    }, hypervisor);
    const box = (await page.locator('.graph').boundingBox()) as { x: number; y: number };
    await page.mouse.dblclick(box.x + at.x, box.y + at.y);
    await page.waitForURL(new RegExp(`/topology/${hypervisor}`));
    await page.getByText(/port-to-port links\./).waitFor();
    expect(errors).toEqual([]);
  });

  it('runs Cypher in the console as an ANALYST: an example query as a table, a graph of nodes and relationships, the history, and a refusal that says why', async () => {
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, 'analyst', USER_PASSWORD);
    await page.goto(`${service.url}/assets`);
    await page.getByRole('link', { name: 'Cypher' }).click();
    await page.getByRole('heading', { name: 'Cypher', level: 1 }).waitFor();
    // The examples are docs/graph-model.md's; the first counts VMs per hypervisor.
    const examples = page.getByLabel('Example queries');
    expect(await examples.locator('option').count()).toBe(11);
    await examples.selectOption({ label: 'VMs per hypervisor, busiest first' });
    expect(await page.getByLabel('Query').inputValue()).toContain('[:HOSTS_VM]');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('status').filter({ hasText: /\d+ rows?/ }).waitFor();
    expect(await page.locator('thead th').allTextContents()).toEqual(['hypervisor', 'vms']);
    const first = await page.locator('tbody tr').first().locator('td').allTextContents();
    expect(first[0]).toMatch(/^esx-/);
    expect(Number(first[1])).toBeGreaterThan(0);
    await expectAccessible(page);

    // Nodes and relationships: drawn as a graph, with the table a tab away.
    await page.getByLabel('Query').fill('MATCH (h:Host {assetType: $type})-[r:HOSTS_VM]->(vm) RETURN h, r, vm LIMIT 20');
    await page.getByLabel(/Parameters/).fill('{"type": "HYPERVISOR"}');
    await page.getByLabel('Query').press('Control+Enter');
    await page.locator('.graph canvas').first().waitFor();
    const drawn = await page.evaluate(() => {
      const g = (window as unknown as { __cypherGraph: { graph: { order: number; size: number } } }).__cypherGraph.graph;
      return { nodes: g.order, edges: g.size };
    });
    expect(drawn.edges).toBe(20);
    expect(drawn.nodes).toBeGreaterThan(20);
    await expectAccessible(page);
    await screenshot(page, 'cypher');
    await page.getByRole('tab', { name: 'Table' }).click();
    expect(await page.locator('tbody tr').count()).toBe(20);
    expect(await page.locator('tbody tr').first().locator('td').nth(1).textContent()).toBe('[:HOSTS_VM]');

    // A write is refused with its reason, and the history keeps what ran, newest first.
    await page.getByLabel('Query').fill('MATCH (n) DETACH DELETE n');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('alert').getByText(/not run: it writes \(DetachDelete\)/).waitFor();
    await page.getByText(/^History \(3\)/).click();
    const history = await page.locator('.history button').allTextContents();
    expect(history[0]).toBe('MATCH (n) DETACH DELETE n');
    expect(history[2]).toContain('[:HOSTS_VM]');
    await page.locator('.history button').nth(1).click();
    expect(await page.getByLabel('Query').inputValue()).toContain('RETURN h, r, vm');
    // The history survives a reload (it is kept in this browser).
    await page.reload();
    await page.getByText(/^History \(3\)/).waitFor();
    // The refused write left the graph as it was.
    expect((await key.get('/api/v1/assets?type=HYPERVISOR&size=1')).body.total).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it('shows the Cypher console to no VIEWER', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'viewer', USER_PASSWORD);
    await page.goto(`${service.url}/assets`);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Cypher' }).count()).toBe(0);
  });

  it('keeps the secret of a credential write-only: saved, never shown, gone from the page once saved; a broad match pattern only once allowed, with the reason shown', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/credentials`);
    await page.getByRole('button', { name: 'New credential' }).click();
    await page.getByLabel('Name', { exact: true }).fill('loopback ssh');
    await page.getByLabel(/Match patterns/).fill('127.0.0.0/8');
    await page.getByLabel('username', { exact: true }).fill('nobody');
    const secret = 'UI-secret-Canary-4711';
    await page.getByLabel(/^password/).fill(secret);
    await page.getByRole('button', { name: 'Save' }).click();
    // A /8 is broader than a /16: refused, and the form says why and what to tick.
    await page.getByRole('alert').getByText(/127\.0\.0\.0\/8 covers 16777216 addresses, wider than a \/16.*a rogue host too; set allowBroadMatch: true/).waitFor();
    await page.getByLabel('Allow broad match patterns').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /loopback ssh.*SSH_PASSWORD.*password/ }).waitFor();
    expect(await page.content()).not.toContain(secret);
    // Edit: the secret field says it is set, and is empty.
    await page.getByRole('row', { name: /loopback ssh/ }).getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel(/^password/).inputValue()).toBe('');
    await page.getByRole('button', { name: 'Cancel' }).click();
    // Not even in the page's memory: a heap snapshot after a garbage collection holds no trace of it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.collectGarbage');
    let heap = '';
    cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => {
      heap += chunk;
    });
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    expect(heap.length).toBeGreaterThan(0);
    expect(heap).not.toContain(secret);
    await expectAccessible(page);
  });

  it('shows a failed run with its errors by host, method and stage, and its diagnosis, with a refresh for those allowed', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/discovery`);
    await page.getByRole('button', { name: 'New target' }).click();
    await page.getByLabel('Name', { exact: true }).fill('nothing there');
    // An address on loopback where no SSH answers: the run finishes with errors.
    await page.getByLabel(/Addresses/).fill('127.0.0.9');
    await page.getByLabel('SWEEP').uncheck();
    await page.getByLabel('SNMP').uncheck();
    // The chosen methods' ports and settings, as GET /discovery/methods declares them; closed again, they are not sent.
    await page.getByRole('button', { name: 'Ports and settings' }).click();
    await page.getByLabel('SSH port').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'target-form');
    await page.getByRole('button', { name: 'Ports and settings' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'nothing there' }).waitFor();
    await page.getByRole('row', { name: /nothing there/ }).getByRole('button', { name: 'Scan now' }).click();
    await page.waitForURL(/\/discovery\/runs\//);
    await page.locator('[data-status=COMPLETED_WITH_ERRORS], [data-status=FAILED]').waitFor({ timeout: 60_000 });
    await page.getByRole('cell', { name: '127.0.0.9' }).first().waitFor();
    await page.getByRole('heading', { name: 'Diagnosis' }).waitFor();
    await page.getByText(/^Status: OK/).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'What to do' }).waitFor();
    await page.getByRole('button', { name: 'Refresh the diagnosis' }).click();
    await page.getByText(/^Status: OK/).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'failed-run');
  });

  it('builds the credential form from the kinds the API declares: a list for each choice, a number for a port, values sent with their types', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/credentials`);
    await page.getByRole('button', { name: 'New credential' }).click();
    const kinds = (await p.discoveryAdminSession.get('/api/v1/credential-kinds')).body.data as { kind: string; settings: { properties: Record<string, { enum?: string[] }> } }[];
    expect(await page.getByLabel('Kind').locator('option').allTextContents()).toEqual(kinds.map((k) => k.kind));
    await page.getByLabel('Kind').selectOption('SNMP_V3');
    const levels = kinds.find((k) => k.kind === 'SNMP_V3')?.settings.properties.securityLevel?.enum;
    expect(await page.getByLabel('securityLevel').locator('option').allTextContents()).toEqual(['choose', ...(levels ?? [])]);
    await page.getByLabel('Name', { exact: true }).fill('switches v3');
    await page.getByLabel(/Match patterns/).fill('10.20.0.0/24');
    await page.getByLabel('username', { exact: true }).fill('inventory');
    await page.getByLabel('securityLevel').selectOption('authPriv');
    await page.getByLabel('authProtocol').selectOption('SHA256');
    await page.getByLabel('privProtocol').selectOption('AES');
    await page.getByLabel(/^authKey/).fill('ui-auth-key-1234');
    await page.getByLabel(/^privKey/).fill('ui-priv-key-1234');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /switches v3.*SNMP_V3.*authKey, privKey/ }).waitFor();
    // WINRM's port is a number: sent as one, not as text.
    await page.getByRole('button', { name: 'New credential' }).click();
    await page.getByLabel('Kind').selectOption('WINRM');
    await page.getByLabel('Name', { exact: true }).fill('windows');
    await page.getByLabel(/Match patterns/).fill('10.30.0.0/24');
    await page.getByLabel('username', { exact: true }).fill('inventory');
    await page.getByLabel('port', { exact: true }).fill('5986');
    await page.getByLabel('useTls').selectOption('yes');
    await page.getByLabel(/^password/).fill('ui-winrm-password');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /windows.*WINRM/ }).waitFor();
    const saved = (await p.discoveryAdminSession.get('/api/v1/credentials?size=100')).body.data as { name: string; settings: unknown }[];
    expect(saved.find((c) => c.name === 'switches v3')?.settings).toEqual({ username: 'inventory', securityLevel: 'authPriv', authProtocol: 'SHA256', privProtocol: 'AES' });
    expect(saved.find((c) => c.name === 'windows')?.settings).toEqual({ username: 'inventory', port: 5986, useTls: true });
    await expectAccessible(page);
  });

  it('creates an integration key shown once and revokes it, and a user token the same way on the profile', async () => {
    const { page } = await openPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/admin`);
    const keys = page.locator('section', { has: page.getByRole('heading', { name: 'Integration Keys' }) }).last();
    await keys.getByLabel('Name', { exact: true }).fill('ui-cmdb-sync');
    await keys.getByRole('button', { name: 'Create key' }).click();
    const secret = (await keys.locator('.secret-value').textContent()) as string;
    expect(secret).toMatch(/^svcm_/);
    await keys.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectAccessible(page);
    await screenshot(page, 'integration-key');
    await keys.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.secret-value').count()).toBe(0);
    // The key works until it is revoked.
    const withKey = () => fetch(`${service.url}/api/v1/assets?size=1`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    expect(await withKey()).toBe(200);
    await keys.getByRole('row', { name: /ui-cmdb-sync/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await keys.getByRole('row', { name: /ui-cmdb-sync.*REVOKED/ }).waitFor();
    expect(await withKey()).toBe(401);

    await page.goto(`${service.url}/profile`);
    await page.getByLabel('Name', { exact: true }).fill('ui-script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('.secret-value').textContent()) as string;
    expect(token).toMatch(/^svci_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /ui-script/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('row', { name: /ui-script.*REVOKED/ }).waitFor();
    expect((await fetch(`${service.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    await expectAccessible(page);
  });

  it('pages the integration keys and the credentials beyond their first hundred, by the lists\' own links', async () => {
    for (let i = 0; i < 101; i++) expect((await p.adminSession.post('/api/v1/integration-keys', { name: `paged-key-${String(i).padStart(3, '0')}` })).status).toBe(201);
    for (let i = 0; i < 101; i++) expect((await p.adminSession.post('/api/v1/credentials', { name: `paged-cred-${String(i).padStart(3, '0')}`, kind: 'SNMP_V2C', matchPatterns: ['10.99.0.0/24'], settings: {}, secrets: { community: 'paged' } })).status).toBe(201);
    const keysTotal = (await p.adminSession.get('/api/v1/integration-keys?size=1')).body.total as number;
    const credentialsTotal = (await p.adminSession.get('/api/v1/credentials?size=1')).body.total as number;
    const { page, errors } = await openPage(browser);
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    for (const [path, label, total] of [['/admin', 'Pages of Integration Keys', keysTotal], ['/credentials', 'Pages of credentials', credentialsTotal]] as const) {
      await page.goto(`${service.url}${path}`);
      const pager = page.getByRole('navigation', { name: label });
      await pager.getByText(`Page 1 of 2 · ${total.toLocaleString('en-US')} in all`).waitFor();
      const table = pager.locator('xpath=preceding-sibling::div[1]').getByRole('table');
      expect(await table.locator('tbody tr').count()).toBe(100);
      await pager.getByRole('button', { name: 'Next ›' }).click();
      // The pager and the table are drawn from the same page: once it says page 2, the rows are page 2's.
      await pager.getByText(`Page 2 of 2 · ${total.toLocaleString('en-US')} in all`).waitFor();
      expect(await table.locator('tbody tr').count()).toBe(total - 100);
      await expectAccessible(page);
    }
    expect(errors).toEqual([]);
  });

  it('decommissions and reactivates an asset after a confirmation, for those allowed', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/assets/${switchId}`);
    await page.getByRole('button', { name: 'Decommission' }).click();
    await expectAccessible(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Decommission' }).click();
    await page.locator('dl.fields').getByText('DECOMMISSIONED').waitFor();
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reactivate' }).click();
    await page.locator('dl.fields').getByText('ACTIVE', { exact: true }).waitFor();
  });

  it('shows a VIEWER no lifecycle, discovery or administration controls, and the API refuses them anyway', async () => {
    const { page } = await openPage(browser);
    await signIn(page, service.url, 'viewer', USER_PASSWORD);
    await page.goto(`${service.url}/assets/${hypervisor}`);
    await page.getByRole('heading', { name: 'Custom attributes' }).waitFor();
    expect(await page.getByRole('button', { name: 'Decommission' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Credentials' }).count()).toBe(0);
    await page.goto(`${service.url}/discovery`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.getByRole('button', { name: 'New target' }).count()).toBe(0);
    await page.goto(`${service.url}/admin`);
    await page.getByText(/You may not administer/).waitFor();
    expect(await page.locator('.exports').count()).toBe(0);
    await screenshot(page, 'viewer');
    // The page's own session, as the UI would send it: refused by the API.
    const refused = await page.evaluate(async (id) => {
      const me = (await (await fetch('api/v1/me')).json()) as { data: { csrfToken: string } };
      const post = (url: string) => fetch(url, { method: 'POST', headers: { 'x-csrf-token': me.data.csrfToken } }).then((r) => r.status);
      return [await post(`api/v1/assets/${id}/decommission`), await post('api/v1/integration-keys')];
    }, hypervisor);
    expect(refused).toEqual([403, 403]);
  });

  it('is usable on a narrow screen and with the keyboard alone', async () => {
    const { page } = await openPage(browser, { width: 390, height: 844 });
    await page.goto(`${service.url}/assets`);
    await page.getByLabel('User name').focus();
    await page.keyboard.type(ADMIN_USERNAME);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    await page.locator('table tbody tr').first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390 + 1);
    // The skip link leads to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await screenshot(page, 'narrow');
    for (const path of ['/schema', '/discovery', '/profile', '/credentials']) {
      await page.goto(`${service.url}${path}`);
      await page.locator('h1').waitFor();
      await expectAccessible(page);
    }
  });
});
