// The dashboard in a real browser for the integration suites: a page on a route, settled, and
// checked for accessibility (axe-core) and page errors. Jest only (it asserts); benchmarks use
// browser.ts directly.
import { expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './browser.js';

/** Errors the page threw, collected by openDashboard. */
const pageErrors = new WeakMap<Page, string[]>();

/**
 * A fresh browser context on the dashboard's `route` (base: the server's origin); `theme` is stored
 * before the page loads (null: the dashboard's default). Errors the page throws are kept for
 * expectAccessible.
 */
export async function openDashboard(
  browser: Browser,
  base: string,
  route: string,
  options: { theme?: 'light' | 'dark' | null; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const theme = options.theme === undefined ? 'light' : options.theme;
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, acceptDownloads: true, colorScheme: 'light' });
  if (theme) await context.addInitScript((t) => localStorage.setItem('rehearsal-theme', t), theme);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  pageErrors.set(page, errors);
  // Chromium aborts a navigation with ERR_NETWORK_CHANGED when a network interface comes or goes
  // (the real node's lane creates and removes pod interfaces meanwhile): that is not the page's
  // doing, so the navigation is tried again, a few times.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await page.goto(`${base}/#/${route}`);
      return page;
    } catch (error) {
      if (attempt >= 3 || !String((error as Error).message).includes('ERR_NETWORK_CHANGED')) throw error;
    }
  }
}

/** The page has loaded and nothing on it is busy. */
export async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
}

/** No serious axe-core violation, and the page threw nothing. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(pageErrors.get(page) ?? []).toEqual([]);
}
