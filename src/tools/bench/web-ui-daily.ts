// The web-ui section: a day's work in Chromium on the scale section's estate (100,000 assets and
// their sub-records; --quick and --data-dir as there), each figure beside the bare API calls the
// page makes for it, in the same run: the header's global search (the last keystroke to the
// grouped results shown), a saved view of 8 columns opened (its 50 rows shown), and the Flows page
// over the last 24 hours of rollups as 10,000 flows/s fill them (flows.ts's synthetic day).
import type { Page } from 'playwright-core';
import type { Container } from '../../container.js';
import { fillRollups, FLOWS_PER_SECOND } from './flows.js';
import { ensureEstate, type EstateSize } from './scale.js';
import { elapsedMs, int, loadAverage, machine, median, percentile, withDataDir, withService, withStores, writeSection } from './support.js';
import { navigateInApp, withSignedInPage } from './web-ui.js';

/** What the searches look for: names, a package, a service, a MAC prefix, a serial number, an address, software. */
const SEARCHES = ['vm-par-01', 'esx-ber', 'openssl', 'sshd', '00:50:56:00:1', 'SRV00001', '10.64.1', 'nginx'];
const SEARCH_ROUNDS = 4;
const VIEW_OPENS = 20;
const FLOWS_OPENS = 10;
/** The saved view: the VMs by name with 8 columns (custom attributes among them), 50 rows a page. */
const VIEW_COLUMNS = ['displayName', 'assetType', 'status', 'site', 'environment', 'ipAddresses', 'customAttributes.osName', 'customAttributes.memoryMb'];

interface Figure {
  name: string;
  page: number[];
  api: number[];
  calls: string;
}

/** The page's globals the measurements read (the service's build has no DOM types); a function sent to the page keeps no closure, so each casts globalThis itself. */
interface InPage {
  document: { querySelector(selector: string): { hidden?: boolean; textContent: string | null } | null; querySelectorAll(selector: string): { length: number } };
}

const stats = (samples: number[]) => `${median(samples).toFixed(0)} / ${percentile(samples, 0.95).toFixed(0)}`;

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await call();
  return elapsedMs(start);
}

/** A bare GET of the API with the page's own session (its cookie), from the benchmark's process; anything but 200 throws. */
async function bareGet(page: Page, path: string): Promise<void> {
  const res = await page.request.get(new URL(path, page.url()).href);
  if (res.status() !== 200) throw new Error(`GET ${path}: ${res.status()} ${await res.text()}`);
  await res.body();
}

/** The API paths (with their queries) the page asks for while `act` runs. */
async function callsDuring(page: Page, act: () => Promise<void>): Promise<string[]> {
  const calls: string[] = [];
  const seen = (r: { url(): string }) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/v1/')) calls.push(`${url.pathname}${url.search}`);
  };
  page.on('request', seen);
  try {
    await act();
  } finally {
    page.off('request', seen);
  }
  return calls;
}

/** Back to a page with no list and no search open, as the start of each open. */
async function toProfile(page: Page): Promise<void> {
  await navigateInApp(page, '/profile');
  await page.waitForFunction(() => (globalThis as unknown as InPage).document.querySelector('h1')?.textContent === 'Profile' && (globalThis as unknown as InPage).document.querySelector('[aria-busy=true]') === null);
}

/** The last keystroke of each search to its groups shown; beside it GET /search for the same text. */
async function searches(page: Page): Promise<Figure> {
  const box = page.getByRole('combobox', { name: 'Search the inventory' });
  const pageSamples: number[] = [];
  const apiSamples: number[] = [];
  await toProfile(page);
  for (let round = 0; round < SEARCH_ROUNDS + 1; round++) {
    for (const text of SEARCHES) {
      await box.fill('');
      await box.focus();
      await page.waitForFunction(() => (globalThis as unknown as InPage).document.querySelector('[role=listbox]')?.hidden === true);
      const answered = page.waitForResponse((r) => r.url().includes('/api/v1/search?') && new URL(r.url()).searchParams.get('q') === text, { timeout: 60_000 });
      await page.keyboard.type(text);
      const start = process.hrtime.bigint();
      await answered;
      await page.waitForFunction(() => (globalThis as unknown as InPage).document.querySelector('[role=listbox]')?.hidden === false && (globalThis as unknown as InPage).document.querySelectorAll('[role=listbox] [role=group], [role=listbox] [role=status]').length > 0);
      const took = elapsedMs(start);
      const bare = await timed(() => bareGet(page, `/api/v1/search?q=${encodeURIComponent(text)}`));
      // The first round warms the caches and the plans: it is not counted.
      if (round > 0) {
        pageSamples.push(took);
        apiSamples.push(bare);
      }
    }
  }
  await box.fill('');
  return { name: `Global search: the last keystroke to the grouped results shown (${SEARCHES.length} texts × ${SEARCH_ROUNDS})`, page: pageSamples, api: apiSamples, calls: 'GET /search?q=…' };
}

/**
 * A page opened by following a link (`path`) until `drawn` holds; beside it the calls the page made
 * on the first open, bare: `first` before the others (the page needs its answer to ask them), the
 * others side by side, as the page makes them.
 */
async function opens(page: Page, name: string, path: string, opensCount: number, drawn: () => boolean, first?: (call: string) => boolean): Promise<Figure> {
  const pageSamples: number[] = [];
  const apiSamples: number[] = [];
  let calls: string[] = [];
  for (let i = 0; i < opensCount + 1; i++) {
    await toProfile(page);
    let took = 0;
    const made = await callsDuring(page, async () => {
      const start = process.hrtime.bigint();
      await navigateInApp(page, path);
      await page.waitForFunction(drawn, undefined, { timeout: 120_000 });
      took = elapsedMs(start);
    });
    if (i === 0) calls = [...new Set(made)];
    const before = first ? calls.filter(first) : [];
    const rest = calls.filter((c) => !before.includes(c));
    const bare = await timed(async () => {
      for (const call of before) await bareGet(page, call);
      await Promise.all(rest.map((call) => bareGet(page, call)));
    });
    if (i > 0) {
      pageSamples.push(took);
      apiSamples.push(bare);
    }
  }
  const shown = (c: string) => c.replace(/^\/api\/v1/, '').replace(/(from|to)=[^&]+/g, '$1=…').replace(/\/views\/[0-9a-f-]{36}/, '/views/{id}');
  const firstCalls = first ? calls.filter(first) : [];
  const described = [...firstCalls.map(shown), ...(firstCalls.length ? ['then'] : []), calls.filter((c) => !firstCalls.includes(c)).map(shown).join(', ')].join(' ');
  return { name: `${name} (${opensCount} opens)`, page: pageSamples, api: apiSamples, calls: described.replaceAll('|', '\\|') };
}

async function savedView(page: Page, container: Container, userId: string): Promise<Figure> {
  const view = await container.views.create(userId, { name: `bench ${Date.now()}`, list: 'ASSETS', filters: { type: 'VM' }, columns: VIEW_COLUMNS, sort: 'displayName,asc' });
  return opens(page, 'A saved view of 8 columns (the VMs by name) opened by its link, to its 50 rows shown', `/assets?view=${view.id}`, VIEW_OPENS, () => {
    const { document } = (globalThis as unknown as InPage);
    return document.querySelector('[aria-busy=true]') === null && document.querySelectorAll('.loaded table thead th').length === 8 && document.querySelectorAll('.loaded table tbody tr').length === 50;
  }, (call) => call.startsWith('/api/v1/views/'));
}

async function flowsPage(page: Page): Promise<Figure> {
  return opens(page, 'The Flows page over the last 24 hours, to its chart and tables shown', '/flows?window=24h', FLOWS_OPENS, () => {
    const { document } = (globalThis as unknown as InPage);
    return document.querySelector('[aria-busy=true]') === null && document.querySelector('.chart svg') !== null && document.querySelectorAll('.loaded table').length >= 2;
  });
}

export async function webUiDailyBench({ size, dataDir: keep }: { size: EstateSize; dataDir?: string }): Promise<void> {
  await withDataDir(async (dataDir) => {
    const facts = await ensureEstate(dataDir, size);
    await withStores(dataDir, (container) => fillRollups(container, Date.now()));
    const loads = [loadAverage()];
    // A loaded machine's first reads of a cold graph can outlast the default store time-out.
    const figures = await withService(dataDir, { roles: 'api', storeTimeoutMs: 60_000 }, (service) =>
      withSignedInPage(service.container, service.url as string, async (page, userId) => {
        const figures: Figure[] = [];
        for (const measure of [() => searches(page), () => savedView(page, service.container, userId), () => flowsPage(page)]) {
          const figure = await measure();
          console.log(`${figure.name}: ${stats(figure.page)} ms in the page, ${stats(figure.api)} ms the calls alone`);
          figures.push(figure);
        }
        return figures;
      }),
    );
    loads.push(loadAverage());
    const rows = facts.rows.software + facts.rows.processes + facts.rows.services;
    writeSection('web-ui', `## The web UI for daily work, in Chromium${size.label}

${machine()} · ${int(facts.assets)} assets, ${int(facts.relationships)} relationships, ${int(rows)} sub-record rows (the scale section's estate) · flow rollups of 24 hours at ${int(FLOWS_PER_SECOND)} flows/s (the flows section's) · 1-minute load average ${loads.join(' → ')}

Headless Chromium (1280×800) signed in as an administrator, against the whole service in the benchmark's process (the API role, local stores). A page figure runs from the user's act (the last keystroke delivered; a link followed, as the app navigates without loading the page again) to what it asked for drawn. Beside it, in the same run and alternating with it, the API calls the page made for it, bare: the same requests with the page's session, from the benchmark's process, those the page needs first before the others, the others side by side as the page sends them. The first round of each is left out (warm-up). Median / p95 in ms.

| Figure | In the page | The API calls alone | Calls |
|---|---|---|---|
${figures.map((f) => `| ${f.name} | ${stats(f.page)} | ${stats(f.api)} | ${f.calls} |`).join('\n')}

The search box waits for a pause of 150 ms in the typing before it asks (global-search.tsx): that pause is in the page's figure.
`);
  }, keep);
}
