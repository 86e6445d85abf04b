/// <reference lib="dom" />
// Pages of Debian's Chromium (src/tools/chromium.ts), axe-core run in them, and a screenshot
// kept per test under test-results/.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fromProjectRoot } from '../../src/platform/project-root.js';
export { launchChromium as launch } from '../../src/tools/chromium.js';

const SHOTS = fromProjectRoot('test-results', 'web');
const AXE = fromProjectRoot('node_modules', 'axe-core', 'axe.min.js');

/** A new page of a new context (its own cookies) at 1280x800, page errors collected. */
export async function openPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

export async function signIn(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}/assets`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
}

/** The serious and critical accessibility violations axe-core finds on the page as it is now. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a script: the page's Content-Security-Policy refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}

/** That axe-core finds no serious or critical violation on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
