/// <reference lib="dom" />
// The web UI's relationships and pictures (issue 37): an asset's relationships after a decommission
// (reloaded, inactive edges shown as such, the parent still named), a switch's cables on its
// relationships tab, the topology's colours per asset type with their legend and a cable's ports
// under the pointer, the Cypher graph's legend and fit to view, and both graphs downloaded as PNG
// and SVG; in Chromium against the real service with a demo estate, each page checked with axe-core.
import { readFileSync } from 'node:fs';
import type { Browser, Download, Page } from 'playwright-core';
import { demoEstate } from '../../src/tools/demo-estate.js';
import type { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, createPrincipals, USER_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';
import { cabledHypervisor } from './cabled-hypervisor.js';

interface Drawn {
  order: number;
  size: number;
  /** Each node's colour and where it is in the viewport. */
  nodes: { id: string; color: string; x: number; y: number }[];
  /** Each edge's ends, by node id. */
  edges: { id: string; source: string; target: string }[];
  width: number;
  height: number;
}

/** The graph a GraphCanvas drew (window[name]), its layout stopped so that nothing moves any more. */
async function drawn(page: Page, name: string): Promise<Drawn> {
  return page.evaluate((exposed) => {
    type Point = { x: number; y: number };
    const g = (window as unknown as Record<string, {
      graph: { order: number; size: number; nodes(): string[]; edges(): string[]; source(e: string): string; target(e: string): string; getNodeAttribute(n: string, a: string): string };
      layout: { stop(): void };
      renderer: { getNodeDisplayData(n: string): Point; framedGraphToViewport(c: Point): Point; getDimensions(): { width: number; height: number }; refresh(): void };
    }>)[exposed];
    if (!g) throw new Error(`no graph ${exposed}`);
    g.layout.stop();
    g.renderer.refresh();
    const nodes = g.graph.nodes().map((id) => ({ id, color: g.graph.getNodeAttribute(id, 'color'), ...g.renderer.framedGraphToViewport(g.renderer.getNodeDisplayData(id)) }));
    const edges = g.graph.edges().map((id) => ({ id, source: g.graph.source(id), target: g.graph.target(id) }));
    return { order: g.graph.order, size: g.graph.size, nodes, edges, ...g.renderer.getDimensions() };
  }, name);
}

type Point = { x: number; y: number };

/** The drawn graph once it has come to rest: its layout stopped, two reads in a row place every node alike (a camera move may still be under way when it is first read). */
async function settled(page: Page, name: string): Promise<Drawn> {
  let last = await drawn(page, name);
  for (;;) {
    await page.waitForTimeout(200);
    const now = await drawn(page, name);
    if (now.nodes.every((n, i) => Math.hypot(n.x - (last.nodes[i]?.x ?? Infinity), n.y - (last.nodes[i]?.y ?? Infinity)) < 0.5)) return now;
    last = now;
  }
}

/** How far p is from the segment a-b, in pixels. */
function distanceToSegment(p: Point, a: Point, b: Point): number {
  const [dx, dy] = [b.x - a.x, b.y - a.y];
  const t = dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** The legend's entries as (label, background colour). */
async function legend(page: Page): Promise<Map<string, string>> {
  const entries = await page.getByRole('list', { name: 'Legend' }).locator('li').evaluateAll((items) => items.map((li) => [li.textContent?.trim() ?? '', getComputedStyle(li.querySelector('.swatch') as Element).backgroundColor] as [string, string]));
  return new Map(entries);
}

/** rgb(31, 119, 180) as #1f77b4. */
const hex = (rgb: string) => `#${(rgb.match(/\d+/g) ?? []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;

async function downloaded(page: Page, button: string): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]) as [Download, void];
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

/** A PNG's width and height, from its header. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('the web UI\'s relationships and graphs', () => {
  let service: TestService;
  let key: ApiClient;
  let browser: Browser;
  let hypervisor: { id: string; displayName: string };
  let switchId: string;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    const p = await createPrincipals(service.url);
    key = p.integrationKey;
    for (const bundle of demoEstate(40)) expect((await key.post('/api/v1/import', bundle)).status).toBe(200);
    ({ hypervisor, switchId } = await cabledHypervisor(key));
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const panel = (page: Page) => page.getByRole('tabpanel');

  it('reloads the relationships after a decommission, shows the inactive edges as inactive and still names the parent, and after a reactivation the same', async () => {
    const [vm] = (await key.get(`/api/v1/assets?type=VM&size=1`)).body.data as { id: string; displayName: string; parent: { id: string; displayName: string } }[];
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/assets/${vm?.id}`);
    const parentField = page.locator('dl.fields div').filter({ has: page.getByText('Parent', { exact: true }) }).locator('dd');
    const edge = panel(page).getByRole('row', { name: new RegExp(`^HOSTS_VM ${vm?.parent.displayName} this asset`) });
    await edge.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    expect(await parentField.textContent()).toBe(`${vm?.parent.displayName} (HOSTS_VM)`);

    await page.getByRole('button', { name: 'Decommission' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Decommission' }).click();
    await page.locator('dl.fields').getByText('DECOMMISSIONED').waitFor();
    // The same page, not reloaded: the edge is there, marked inactive, and counted.
    await edge.getByRole('cell', { name: 'inactive', exact: true }).waitFor();
    const all = (await key.get(`/api/v1/assets/${vm?.id}/relationships?activeOnly=false&size=1000`)).body.data as { active: boolean }[];
    expect(all.every((r) => !r.active)).toBe(true);
    await panel(page).getByRole('table', { name: `${all.length} relationships, ${all.length} inactive` }).waitFor();
    // The API names active parents alone; the page names the one the decommission made inactive.
    expect((await key.get(`/api/v1/assets/${vm?.id}`)).body.data.parent).toBeUndefined();
    // The parent is named from its own read of the inactive edges, which may answer after the table.
    await parentField.getByText(`${vm?.parent.displayName} (HOSTS_VM, inactive)`, { exact: true }).waitFor();
    expect(await parentField.getByRole('link').getAttribute('href')).toBe(`/assets/${vm?.parent.id}`);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reactivate' }).click();
    await edge.getByRole('cell', { name: 'yes', exact: true }).waitFor();
    await parentField.getByText(`${vm?.parent.displayName} (HOSTS_VM)`, { exact: true }).waitFor();
    expect(errors).toEqual([]);
  });

  it('lists a switch\'s cables on its relationships tab: each port with the asset and port at its other end, a link to that asset', async () => {
    const nics = (await key.get(`/api/v1/assets?type=INTERFACE&hostId=${switchId}&size=1000`)).body.data as { displayName: string; connectedTo?: { assetId: string; assetDisplayName: string; port: string; discoveredVia: string; confidence: number }[] }[];
    const cables = nics.flatMap((n) => (n.connectedTo ?? []).map((c) => `${n.displayName} ${c.assetDisplayName} ${c.port} ${c.discoveredVia}, ${c.confidence.toFixed(2)}`)).sort();
    expect(cables.some((c) => c.includes(`${hypervisor.displayName} vmnic0 LLDP`))).toBe(true);
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets/${switchId}`);
    const table = panel(page).getByRole('table', { name: `${cables.length} cables (port-to-port links)` });
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' ')));
    expect(rows.sort()).toEqual(cables);
    await expectAccessible(page);
    await screenshot(page, 'switch-relationships');
    await table.getByRole('link', { name: hypervisor.displayName }).first().click();
    await page.getByRole('heading', { name: hypervisor.displayName, level: 1 }).waitFor();
    expect(errors).toEqual([]);
  });

  it('pages an asset\'s relationships as the API pages them: a hypervisor with 130 VMs shows 100, then the other 30', async () => {
    const vms = Array.from({ length: 130 }, (_, i) => ({ key: `vm-${i}`, assetType: 'VM', displayName: `paged-vm-${String(i).padStart(3, '0')}` }));
    const bundle = { source: 'paging', assets: [{ key: 'esx', assetType: 'HYPERVISOR', displayName: 'esx-paged' }, ...vms], relationships: vms.map((vm) => ({ type: 'HOSTS_VM', source: 'esx', target: vm.key })) };
    expect((await key.post('/api/v1/import', bundle)).status).toBe(200);
    const esx = ((await key.get('/api/v1/assets?q=esx-paged')).body.data as { id: string }[])[0]?.id as string;
    const apiPage = async (page: number) => ((await key.get(`/api/v1/assets/${esx}/relationships?activeOnly=false&size=100&page=${page}`)).body.data as { targetDisplayName: string }[]).map((r) => r.targetDisplayName);
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/assets/${esx}`);
    const table = panel(page).getByRole('table', { name: '130 relationships' });
    const targets = () => table.locator('tbody tr td:nth-child(3)').allTextContents();
    await table.waitFor();
    expect(await targets()).toEqual(await apiPage(0));
    const pages = panel(page).getByRole('navigation', { name: 'Pages of relationships' });
    await pages.getByText('Page 1 of 2 · 130 in all').waitFor();
    await expectAccessible(page);
    await pages.getByRole('button', { name: 'Next ›' }).click();
    await pages.getByText('Page 2 of 2 · 130 in all').waitFor();
    expect(await targets()).toEqual(await apiPage(1));
    expect((await apiPage(1)).length).toBe(30);
    expect(errors).toEqual([]);
  });

  it('colours the topology by asset type with a legend of them, shows a cable\'s ports under the pointer, and downloads the drawn graph as PNG and SVG', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    await page.goto(`${service.url}/topology/${hypervisor.id}?depth=1&cables=1`);
    await page.locator('.graph canvas').first().waitFor();
    const topology = (await key.get(`/api/v1/topology/${hypervisor.id}/neighbors?depth=1&followInterfaceLinks=true`)).body.data as { nodes: { id: string; assetType: string }[] };
    const types = [...new Set(topology.nodes.map((n) => n.assetType))].sort();
    expect(types.length).toBeGreaterThan(2);
    const shown = await legend(page);
    expect([...shown.keys()]).toEqual([...types, 'port-to-port link']);
    // One colour per type, none shared, and each node in the colour of its type.
    expect(new Set(types.map((t) => shown.get(t))).size).toBe(types.length);
    const graph = await settled(page, '__topology');
    const typeOf = new Map(topology.nodes.map((n) => [n.id, n.assetType]));
    for (const node of graph.nodes) expect(node.color).toBe(hex(shown.get(typeOf.get(node.id) as string) as string));

    // The pointer on the cable from the hypervisor to its switch, where no node or other edge is near.
    const at = new Map(graph.nodes.map((n) => [n.id, n]));
    const [from, to] = [at.get(hypervisor.id), at.get(switchId)] as Drawn['nodes'];
    expect(from && to).toBeDefined();
    const clearance = (x: number, y: number) => Math.min(
      ...graph.nodes.map((n) => Math.hypot(n.x - x, n.y - y)),
      ...graph.edges.filter((e) => !new Set([e.source, e.target]).has(hypervisor.id) || !new Set([e.source, e.target]).has(switchId)).map((e) => distanceToSegment({ x, y }, at.get(e.source) as Point, at.get(e.target) as Point)),
    );
    const points = Array.from({ length: 13 }, (_, i) => 0.2 + i * 0.05).map((t) => ({ x: (from?.x ?? 0) + t * ((to?.x ?? 0) - (from?.x ?? 0)), y: (from?.y ?? 0) + t * ((to?.y ?? 0) - (from?.y ?? 0)) }));
    points.sort((a, b) => clearance(b.x, b.y) - clearance(a.x, a.y));
    expect(clearance((points[0] as Point).x, (points[0] as Point).y)).toBeGreaterThan(6);
    const box = (await page.locator('.graph').boundingBox()) as { x: number; y: number };
    const tip = page.getByRole('tooltip');
    // The clearest points first, until the pointer is found on the cable (a pixel or two either way misses a thin line).
    for (const point of points.slice(0, 5)) {
      await page.mouse.move(box.x + point.x, box.y + point.y, { steps: 2 });
      if (await tip.waitFor({ timeout: 2000 }).then(() => true, () => false)) break;
    }
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(new RegExp(`^(${hypervisor.displayName} vmnic0 ↔ \\S+ Te1/1/\\d+|\\S+ Te1/1/\\d+ ↔ ${hypervisor.displayName} vmnic0) \\(LLDP, 1\\.00\\)$`));
    await expectAccessible(page);
    await screenshot(page, 'topology-cable-hover');
    await page.mouse.move(box.x + 2, box.y + 2);
    await tip.waitFor({ state: 'hidden' });

    const svg = await downloaded(page, 'Download SVG');
    const name = (await key.get(`/api/v1/assets/${hypervisor.id}`)).body.data.displayName as string;
    expect(svg.name).toBe(`topology-${name}.svg`);
    const text = svg.bytes.toString('utf8');
    expect(text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
    expect(text.match(/<circle /g)?.length).toBe(graph.order);
    expect(text.match(/<line /g)?.length).toBe(graph.size);
    expect(text).toContain(`<title>${name}</title>`);
    const png = await downloaded(page, 'Download PNG');
    expect(png.name).toBe(`topology-${name}.png`);
    expect(png.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(pngSize(png.bytes)).toEqual({ width: graph.width, height: graph.height });
    expect(errors).toEqual([]);
  });

  it('colours each asset type alike in every graph, whatever else the graph holds: the topology, the Cypher graph, a graph of one type', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'analyst', USER_PASSWORD);
    await page.goto(`${service.url}/topology/${hypervisor.id}?depth=1&cables=1`);
    await page.locator('.graph canvas').first().waitFor();
    const topology = await legend(page);
    /** The legend of a query's graph, once it shows the types expected. */
    const cypher = async (query: string, types: string[]) => {
      await page.getByLabel('Query').fill(query);
      await page.getByRole('button', { name: 'Run' }).click();
      await page.locator('.graph canvas').first().waitFor();
      return eventually(() => legend(page), (shown) => [...shown.keys()].join() === types.join(), `a legend of ${types.join(', ')}`);
    };
    await page.goto(`${service.url}/cypher`);
    const both = await cypher('MATCH (h:Host {assetType: "HYPERVISOR"})-[r:HOSTS_VM]->(vm) RETURN h, r, vm LIMIT 30', ['HYPERVISOR', 'VM']);
    const vmsOnly = await cypher('MATCH (vm:Host {assetType: "VM"}) RETURN vm LIMIT 10', ['VM']);
    const switches = await cypher('MATCH (s {assetType: "NETWORK_DEVICE"}) RETURN s LIMIT 5', ['NETWORK_DEVICE']);
    // The same type, the same colour: in the topology beside other types, in the Cypher graph beside HYPERVISOR, and alone.
    expect(topology.get('HYPERVISOR')).toBe(both.get('HYPERVISOR'));
    expect(topology.get('NETWORK_DEVICE')).toBe(switches.get('NETWORK_DEVICE'));
    expect(both.get('VM')).toBe(vmsOnly.get('VM'));
    if (topology.has('VM')) expect(topology.get('VM')).toBe(vmsOnly.get('VM'));
    // And still one per type: the types the schema lists have as many colours.
    const types = ((await key.get('/api/v1/schema/asset-types')).body.data as { type: string }[]).map((t) => t.type);
    const shownTypes = new Map([...topology, ...both, ...vmsOnly, ...switches].filter(([label]) => types.includes(label)));
    expect(new Set(shownTypes.values()).size).toBe(shownTypes.size);
    await expectAccessible(page);
    expect(errors).toEqual([]);
  });

  it('gives the Cypher graph a legend of the types it shows, frames it whole again on Fit to view, and downloads it as PNG and SVG', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'analyst', USER_PASSWORD);
    await page.goto(`${service.url}/cypher`);
    await page.getByLabel('Query').fill('MATCH (h:Host {assetType: "HYPERVISOR"})-[r:HOSTS_VM]->(vm) RETURN h, r, vm LIMIT 30');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.graph canvas').first().waitFor();
    const shown = await legend(page);
    expect([...shown.keys()]).toEqual(['HYPERVISOR', 'VM']);
    expect(shown.get('HYPERVISOR')).not.toBe(shown.get('VM'));
    await settled(page, '__cypherGraph');
    const inView = (g: Drawn) => g.nodes.filter((n) => n.x >= 0 && n.x <= g.width && n.y >= 0 && n.y <= g.height).length;
    expect(inView(await drawn(page, '__cypherGraph'))).toBe((await drawn(page, '__cypherGraph')).order);
    // Zoomed in on a corner: most nodes out of view, until Fit to view.
    await page.evaluate(() => (window as unknown as { __cypherGraph: { renderer: { getCamera(): { setState(s: object): void } } } }).__cypherGraph.renderer.getCamera().setState({ x: 0.95, y: 0.95, ratio: 0.1 }));
    const zoomed = await drawn(page, '__cypherGraph');
    expect(inView(zoomed)).toBeLessThan(zoomed.order);
    await page.getByRole('button', { name: 'Fit to view' }).click();
    await eventually(async () => inView(await drawn(page, '__cypherGraph')), (n) => n === zoomed.order, 'every node in view');
    await expectAccessible(page);
    await screenshot(page, 'cypher-legend');

    const svg = await downloaded(page, 'Download SVG');
    expect(svg.name).toBe('cypher-graph.svg');
    expect(svg.bytes.toString('utf8').match(/<circle /g)?.length).toBe(zoomed.order);
    const png = await downloaded(page, 'Download PNG');
    expect(png.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(errors).toEqual([]);
  });
});
