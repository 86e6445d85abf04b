// The web UI's figures, in Debian's Chromium against the service and its estate: the gzipped size
// of the JavaScript a first visit loads, how long the asset list takes to answer a change of
// filter, and how a topology of about 2,000 assets lays out and pans (frame times while dragging).
// What runs in the page sees it through the narrow shape below: the service's build has no DOM
// types, and must not (a server module using the DOM would then compile).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import type { Container } from '../../container.js';
import { fromProjectRoot } from '../../platform/project-root.js';
import { launchChromium } from '../chromium.js';
import { BENCH_ACTOR, elapsedMs, median, percentile } from './support.js';

const DIST = fromProjectRoot('web', 'dist');

/** The little of the page's globals the measurements use (functions sent to the page keep no closure: each casts globalThis itself). */
interface InPage {
  history: { pushState(state: object, unused: string, url: string): void };
  dispatchEvent(event: unknown): void;
  PopStateEvent: new (type: string) => unknown;
  document: { querySelector(selector: string): unknown };
  requestAnimationFrame(callback: (now: number) => void): void;
  __topology: { graph: { order: number; size: number }; layout: { isRunning(): boolean } };
  __frames: number[];
}
export const FILTER_CHANGES = 20;
const TOPOLOGY_NODES = 2000;

export interface WebUiFigures {
  initialJsGzipKb: number;
  lazyJsGzipKb: number;
  filterChange: { median: number; p95: number };
  topology: { nodes: number; edges: number; firstDrawMs: number; layoutMs: number; panFps: number; panP95FrameMs: number };
}

/** The gzipped size (KiB) of the scripts index.html loads, and of those it leaves for later. */
function scriptSizes(): { initial: number; lazy: number } {
  const index = readFileSync(`${DIST}/index.html`, 'utf8');
  const loaded = new Set([...index.matchAll(/(?:src|href)="\.\/(static\/[^"]+\.js)"/g)].map((m) => m[1] as string));
  let initial = 0;
  let lazy = 0;
  for (const file of readdirSync(`${DIST}/static`).filter((f) => f.endsWith('.js'))) {
    const size = gzipSync(readFileSync(`${DIST}/static/${file}`)).length / 1024;
    if (loaded.has(`static/${file}`)) initial += size;
    else lazy += size;
  }
  return { initial, lazy };
}

/** Time (ms) from a change of filter in the URL, as a click makes it, to the table showing the new rows. */
async function filterChanges(page: Page, base: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < FILTER_CHANGES; i++) {
    const url = i % 2 ? `${base}/assets?type=VM&site=paris` : `${base}/assets?type=PHYSICAL_HOST&status=ACTIVE`;
    const start = process.hrtime.bigint();
    await navigateInApp(page, url);
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as InPage;
      return document.querySelector('.loaded[aria-busy=true]') === null && document.querySelector('.loaded table tbody tr') !== null;
    });
    samples.push(elapsedMs(start));
  }
  return samples;
}

/** The topology page at depth 5 and up to 2,000 assets: first drawing, layout, then frame times while dragging the view. */
async function topology(page: Page, base: string, root: string): Promise<WebUiFigures['topology']> {
  const open = process.hrtime.bigint();
  await page.goto(`${base}/topology/${root}?depth=5&limit=${TOPOLOGY_NODES}`);
  await page.locator('.graph canvas').first().waitFor({ timeout: 60_000 });
  const firstDrawMs = elapsedMs(open);
  const drawn = await page.evaluate(() => {
    const { graph } = (globalThis as unknown as InPage).__topology;
    return { nodes: graph.order, edges: graph.size };
  });
  const layoutStart = process.hrtime.bigint();
  await page.waitForFunction(() => !(globalThis as unknown as InPage).__topology.layout.isRunning(), undefined, { timeout: 60_000 });
  const layoutMs = elapsedMs(layoutStart);
  const box = (await page.locator('.graph').boundingBox()) as { x: number; y: number; width: number; height: number };
  // Each frame's time since the one before, from here on.
  await page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    w.__frames = [];
    let last = performance.now();
    const tick = (now: number) => {
      w.__frames.push(now - last);
      last = now;
      w.requestAnimationFrame(tick);
    };
    w.requestAnimationFrame(tick);
  });
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  for (let step = 0; step < 120; step++) await page.mouse.move(cx + 200 * Math.sin(step / 10), cy + 100 * Math.cos(step / 10));
  await page.mouse.up();
  // The first two frames straddle the set-up, not the panning.
  const frames = (await page.evaluate(() => (globalThis as unknown as InPage).__frames)).slice(2);
  return { ...drawn, firstDrawMs, layoutMs, panFps: 1000 / median(frames), panP95FrameMs: percentile(frames, 0.95) };
}

/** Chromium signed in to the service at `base` as a new administrator, on the asset list; closed after `run`. */
export async function withSignedInPage<T>(container: Container, base: string, run: (page: Page, userId: string) => Promise<T>): Promise<T> {
  const password = randomBytes(18).toString('base64url');
  const user = await container.users.create(BENCH_ACTOR, { username: `bench-ui-${randomBytes(4).toString('hex')}`, password, roles: ['ADMINISTRATOR'] });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/assets`);
    await page.getByLabel('User name').fill(user.username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.loaded[aria-busy=false] table tbody tr').first().waitFor({ timeout: 60_000 });
    return await run(page, user.id);
  } finally {
    await browser.close();
  }
}

/** Navigates the signed-in app to `path` as a click on a link does (no page load), from the Node side. */
export async function navigateInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((u) => (globalThis as unknown as InPage).history.pushState({}, '', u), path);
  await page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    w.dispatchEvent(new w.PopStateEvent('popstate'));
  });
}

export async function measureWebUi(container: Container, base: string, topologyRoot: string): Promise<WebUiFigures> {
  return withSignedInPage(container, base, async (page) => {
    const samples = await filterChanges(page, base);
    const graph = await topology(page, base, topologyRoot);
    const sizes = scriptSizes();
    return { initialJsGzipKb: sizes.initial, lazyJsGzipKb: sizes.lazy, filterChange: { median: median(samples), p95: percentile(samples, 0.95) }, topology: graph };
  });
}
