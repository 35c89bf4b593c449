/// <reference lib="dom" />
// The dashboard's Coverage page and a restored subset (issue 32) in a real browser (Debian's
// chromium-headless-shell driven by playwright-core) against the real server on the real control
// plane, with the engine fixture's shop backed up by the Velero simulator and no test restoring it:
//  - the page lists the shop as backed up and untested, as GET /api/v1/coverage says;
//  - "Generate tests" shows the draft GET /api/v1/test-drafts answers (its YAML, byte for byte), the
//    YAML downloads as <test>.yaml, and nothing is created until "Create test" is clicked, after
//    which the test is in `kubectl get rtest` and the page lists it for the shop;
//  - the API's problems are shown as such: a 503 backup-tool-unavailable, a 403 naming the missing
//    permission, and skipped namespaces with theirs (answers replaced in the browser: the real
//    server cannot be made to lose Velero halfway through a suite);
//  - a test restoring a subset says so on its detail page ("app=web; kinds: Deployment, Service").
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import { createRehearsalClient, type RehearsalApiClient } from '../../openapi/client.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { launchBrowser } from '../helpers/browser.js';
import { expectAccessible, openDashboard, settled } from '../helpers/dashboard-page.js';
import { createEngineFixture, createRestoreTest, restoreTestBody, type EngineFixture } from '../helpers/engine-fixture.js';
import { kubectl } from '../helpers/install-crds.js';
import { deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

jest.setTimeout(120_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let api: RehearsalApiClient;
let browser: Browser;
let base: string;
const SUBSET_TEST = 'shop-web-only';
const DRAFTS_PATH = /\/api\/v1\/test-drafts(\?|$)/;

function open(route: string): Promise<Page> {
  return openDashboard(browser, base, route, { theme: null });
}

function restoreTestsIn(namespace: string): string[] {
  return kubectl(testKubeconfigPath(), ['get', 'rtest', '-n', namespace, '-o', 'name']).split('\n').filter(Boolean);
}

beforeAll(async () => {
  // The shop, a Velero namespace served by the simulator, and a completed backup of the shop.
  fixture = await createEngineFixture('dash-coverage');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('dashboard-coverage.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_COVERAGE_REFRESH_SECONDS: '1' },
  });
  base = `http://127.0.0.1:${rehearsal.port()}`;
  api = createRehearsalClient({ baseUrl: base });
  await waitFor(async () => (await api.GET('/api/v1/coverage')).data?.namespaces.some((entry) => entry.namespace === fixture.source) ?? false, {
    timeoutMs: 30_000,
    intervalMs: 250,
    description: `${fixture.source} in the coverage`,
  });
  browser = await launchBrowser();
}, 200_000);

afterAll(async () => {
  await browser?.close();
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('the Coverage page in Chromium', () => {
  it('lists the backed-up shop as untested, drafts its test, downloads it, and creates it only on Create', async () => {
    const { data: coverage } = await api.GET('/api/v1/coverage');
    const shop = coverage!.namespaces.find((entry) => entry.namespace === fixture.source)!;
    expect(shop.tests).toEqual([]);

    const page = await open('coverage');
    await settled(page);
    expect(await page.textContent('[data-testid="coverage-backed-up"]')).toBe(String(coverage!.backedUp));
    const row = page.locator(`tr[data-namespace="${fixture.source}"]`);
    expect(await row.textContent()).toContain(shop.status);
    expect(await row.textContent()).toContain(shop.backedUpBy.join(', '));
    const box = page.getByRole('checkbox', { name: `Draft a test for ${fixture.source}` });
    expect(await box.isChecked()).toBe(true);
    await expectAccessible(page);

    await page.fill('#draft-namespace', fixture.testNamespace);
    await page.getByRole('button', { name: /^Generate tests/ }).click();
    await page.locator('[data-testid="draft"]').first().waitFor();
    const { data: drafted } = await api.GET('/api/v1/test-drafts', {
      params: { query: { yaml: true, namespace: fixture.testNamespace, sourceNamespace: [fixture.source] } },
    });
    const draft = drafted!.drafts[0]!;
    const name = draft.test.metadata.name;
    const card = page.locator('[data-testid="draft"]', { hasText: name });
    expect(await card.locator('[data-testid="draft-yaml"]').textContent()).toBe(draft.yaml);
    expect(await card.locator('[data-testid="draft-todo"]').count()).toBe(draft.todo.length > 0 ? 1 : 0);
    await expectAccessible(page);
    // Drafting wrote nothing.
    expect(restoreTestsIn(fixture.testNamespace)).not.toContain(`restoretest.rehearsal.dev/${name}`);

    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: `Download ${name}.yaml` }).click()]);
    expect(download.suggestedFilename()).toBe(`${name}.yaml`);
    const saved = readFileSync((await download.path())!, 'utf8');
    expect(parseYaml(saved)).toEqual(draft.test);

    await card.getByRole('button', { name: 'Create test' }).click();
    await card.getByRole('status').filter({ hasText: 'Created' }).waitFor();
    expect(restoreTestsIn(fixture.testNamespace)).toContain(`restoretest.rehearsal.dev/${name}`);
    // Once the server's cache has the test, the page lists it for the shop, with no box to draft it again.
    await waitFor(
      async () => (await api.GET('/api/v1/coverage')).data?.namespaces.find((entry) => entry.namespace === fixture.source)?.tests.length === 1,
      { timeoutMs: 20_000, intervalMs: 250, description: `${name} in the coverage` },
    );
    await page.reload();
    await settled(page);
    await page.locator(`tr[data-namespace="${fixture.source}"] a`, { hasText: `${fixture.testNamespace}/${name}` }).waitFor();
    expect(await box.count()).toBe(0);
    await page.context().close();
  });

  it("shows the API's problems: 503 backup tool unavailable, 403 with the missing permission, skipped namespaces", async () => {
    const page = await open('coverage');
    await settled(page);
    const problem = (status: number, type: string, detail: string, extra: object = {}) => ({
      status,
      contentType: 'application/problem+json',
      body: JSON.stringify({ type: `https://rehearsal.dev/problems/${type}`, title: type, status, detail, instance: '/api/v1/test-drafts', ...extra }),
    });
    const answers = [
      problem(503, 'backup-tool-unavailable', 'Velero is not installed: no velero.io API.'),
      problem(403, 'forbidden', 'User "tenant" cannot list schedules.velero.io.', {
        missingPermissions: [{ verb: 'list', group: 'velero.io', resource: 'schedules', namespace: fixture.veleroNamespace }],
      }),
      {
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          generatedAt: new Date().toISOString(),
          testNamespace: fixture.testNamespace,
          drafts: [],
          skipped: [
            {
              namespace: 'payments',
              reason: 'forbidden',
              message: 'User "tenant" cannot list deployments.apps in payments: nothing of it is drafted.',
              missingPermissions: [{ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'payments' }],
            },
          ],
        }),
      },
    ];
    let served = 0;
    await page.route(DRAFTS_PATH, (route) => route.fulfill(answers[Math.min(served++, answers.length - 1)]!));
    // The shop has a test by now, and the button needs a namespace without one: a replaced coverage lists one.
    await page.route(/\/api\/v1\/coverage(\?|$)/, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          generatedAt: new Date().toISOString(),
          backedUp: 1,
          tested: 0,
          untested: 1,
          namespaces: [{ namespace: 'payments', status: 'untested', backedUpBy: ['Schedule/nightly'], lastBackupAt: '', window: '24h0m0s', tests: [], lastPassedAt: '' }],
        }),
      }),
    );
    await page.reload();
    await settled(page);
    const generate = page.getByRole('button', { name: /^Generate tests/ });

    await generate.click();
    await page.locator('.panel.error').waitFor();
    expect(await page.textContent('.panel.error h2')).toBe('The backup tool is not available');
    expect(await page.textContent('.panel.error')).toContain('Velero is not installed');

    await generate.click();
    await page.locator('.panel.error h2', { hasText: 'Not allowed' }).waitFor();
    expect(await page.textContent('.panel.error')).toContain(`Missing: list schedules.velero.io in ${fixture.veleroNamespace}.`);

    await generate.click();
    await page.locator('[data-testid="drafts-skipped"]').waitFor();
    const skipped = await page.textContent('[data-testid="drafts-skipped"]');
    expect(skipped).toContain('payments');
    expect(skipped).toContain('Missing: list deployments.apps in payments.');
    expect(await page.locator('.panel.error').count()).toBe(0);
    await expectAccessible(page);
    await page.context().close();
  });
});

describe('a restored subset in Chromium', () => {
  it("shows the test's labelSelector and kinds on its detail page", async () => {
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, SUBSET_TEST, {
        backupSource: {
          backupName: fixture.backup,
          namespaces: [{ name: fixture.source }],
          providerNamespace: fixture.veleroNamespace,
          labelSelector: { matchLabels: { app: 'web' } },
          includedResources: [
            { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
            { version: 'v1', kind: 'Service', resource: 'services' },
          ],
        },
      }),
    );
    await waitFor(
      async () => (await api.GET('/api/v1/tests/{name}', { params: { path: { name: SUBSET_TEST }, query: { namespace: fixture.testNamespace } } })).response.ok,
      { timeoutMs: 10_000, intervalMs: 100, description: `${SUBSET_TEST} in the server's cache` },
    );
    const page = await open(`tests/${fixture.testNamespace}/${SUBSET_TEST}`);
    await settled(page);
    expect(await page.textContent('[data-testid="detail-subset"]')).toBe('app=web; kinds: Deployment, Service');
    await expectAccessible(page);
    await page.context().close();
  });
});
