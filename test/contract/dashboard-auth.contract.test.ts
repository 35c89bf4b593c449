// The dashboard on port 8080 with REHEARSAL_AUTH_MODE=kubernetes, in Chromium: the API's 401 brings
// up the token prompt, a rejected token is said to be rejected, an accepted one loads the page; the
// token stays in the tab's sessionStorage and never appears in a URL; a 403 names the missing
// permission. The reviewer is a stand-in for TokenReview and SubjectAccessReview.
/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Request as BrowserRequest } from 'playwright-core';
import type { AccessReviewer, ReviewedUser } from '../../server/api/auth/access-review.js';
import type { PermissionDescriptor } from '../../server/api/problem.js';
import { launchBrowser, seriousViolations } from '../helpers/browser.js';
import { restoreTest } from './support/fake-cluster.js';
import { startTestServer, type TestServer } from './support/server.js';

class ViewerOnly implements AccessReviewer {
  async reviewToken(token: string): Promise<ReviewedUser | null> {
    return token === 'viewer-token' ? { username: 'bob', groups: ['system:authenticated'] } : null;
  }

  async reviewAccess(_user: ReviewedUser, permission: PermissionDescriptor): Promise<{ allowed: boolean }> {
    return { allowed: permission.verb === 'get' || permission.verb === 'list' };
  }
}

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ authMode: 'kubernetes', reviewer: new ViewerOnly() });
  server.cluster.seedTest(restoreTest({ name: 'payments' }));
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the dashboard with REHEARSAL_AUTH_MODE=kubernetes', () => {
  it('asks for a token on 401, keeps it in sessionStorage only, and shows a 403 with the missing permission', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: BrowserRequest[] = [];
    page.on('request', (request) => requests.push(request));
    await page.goto(`${server.baseUrl}/#/tests`);

    const prompt = page.getByLabel('Bearer token');
    await prompt.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await prompt.fill('stolen-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The token was not accepted.').waitFor();

    await page.getByLabel('Bearer token').fill('viewer-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'payments', exact: true }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('rehearsal-token'))).toBe('viewer-token');
    expect(await page.evaluate(() => localStorage.getItem('rehearsal-token'))).toBeNull();

    await page.getByRole('button', { name: 'Delete payments' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    const denied = page.getByRole('dialog').getByRole('alert');
    await denied.waitFor();
    expect(await denied.textContent()).toMatch(/^Not allowed: .*Missing: delete restoretests\.rehearsal\.dev/);

    const apiCalls = requests.filter((r) => new URL(r.url()).pathname.startsWith('/api/'));
    expect(apiCalls.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.url()).not.toContain('token');
    expect(apiCalls.at(-1)!.headers().authorization).toBe('Bearer viewer-token');
    await context.close();
  });
});
