/// <reference lib="dom" />
// The dashboard in a real browser (Debian's chromium-headless-shell driven by playwright-core)
// against the real server on the real control plane, with demo-like data: a passing test with
// two signed runs, a failing one, and an older test whose runs lie 40-45 days back. Each page is
// checked against the API's own answers, and axe-core finds no serious or critical violation.
// REHEARSAL_SCREENSHOTS=<dir> also saves every page, light and dark (docs/dashboard/ is made so).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Browser, Page } from 'playwright-core';
import { parse as parseYaml } from 'yaml';
import { createRehearsalClient, type RehearsalApiClient } from '../../openapi/client.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import { jwkOf, sign, vendorKey } from '../fixtures/evidence/licenses.js';
import { pageTexts } from '../fixtures/evidence/poppler.js';
import { makeReport, makeRestoreTest } from '../fixtures/evidence/reports.js';
import { makeServingCertificate, registerAggregatedApi, unregisterAggregatedApi } from '../helpers/aggregated-api.js';
import { launchBrowser } from '../helpers/browser.js';
import { expectAccessible, openDashboard, settled } from '../helpers/dashboard-page.js';
import { repoRoot } from '../helpers/cluster-info.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { kubectl } from '../helpers/install-crds.js';
import { readCsv } from '../helpers/csv.js';
import { closedLoopbackPort, deleteNamespaces, testKubeconfigPath, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig, serviceAccountTokenFor } from '../helpers/rehearsal-identity.js';
import { startInProcess, startProcess } from '../helpers/rehearsal-server.js';
import { SHOP_DB, shopChecks } from '../helpers/sample-app.js';
import { createBackup, SIMULATOR_POD_VOLUMES } from '../velero/simulator.js';

const LICENSE_SECRET = 'rehearsal-license';
const vendor = vendorKey('vendor-dashboard');
const SCREENSHOTS = process.env.REHEARSAL_SCREENSHOTS;

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let api: RehearsalApiClient;
let browser: Browser;
let base: string;
const sandboxes = new Set<string>();
const PASSING = 'shop-daily';
const FAILING = 'shop-broken';
const LEGACY = 'ledger-weekly';
// The passing test's backup holds the file-system data of one Pod volume: the simulator then plays
// Velero's node agent (a Completed PodVolumeRestore per restore), the Velero provider lists it, and
// the report's volume table shows it (issue 27). 25690112 bytes are 24.5 MiB.
const POD_VOLUME = { pod: 'db-0', volume: 'data', bytes: 25_690_112 };

async function runOnce(name: string, count: number): Promise<RestoreReport> {
  await trigger(fixture, name);
  const reports = await waitForReports(fixture, name, count, 90_000);
  const newest = reports[reports.length - 1]!;
  newest.spec.sandboxNamespaces.forEach((s) => sandboxes.add(s));
  return newest;
}

/** Reports of an older test, 45 to 40 days back (unsigned: the server did not write them). */
async function createLegacyHistory(): Promise<void> {
  const created = await createRestoreTest(fixture, {
    ...restoreTestBody(fixture, LEGACY, { schedule: { cron: '0 2 * * 1', timezone: 'UTC', suspend: true } }),
  });
  const template = makeRestoreTest(LEGACY, [fixture.source], { maxRTO: '10m', checks: shopChecks() });
  template.metadata.uid = created.metadata!.uid;
  const start = new Date(Date.now() - 45 * 86_400_000);
  for (let i = 0; i < 3; i += 1) {
    const report = makeReport(template, i * 2, start, { result: i === 2 ? 'partial' : 'pass', rtoSeconds: 120 + i * 30 });
    // The newest was capped by a failed check (decision 0004): the detail page names it from resultCap.
    if (i === 2) report.spec.resultCap = { check: 'orders-api', critical: false, result: 'partial' };
    report.metadata.namespace = fixture.testNamespace;
    report.spec.testRef.namespace = fixture.testNamespace;
    await fixture.custom.createNamespacedCustomObject({
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace: fixture.testNamespace,
      plural: 'restorereports',
      body: report,
    });
  }
}

async function installLicense(payload: Record<string, unknown> | undefined): Promise<void> {
  const admin = testKubeconfigPath();
  try {
    kubectl(admin, ['delete', 'secret', LICENSE_SECRET, '-n', REHEARSAL_NAMESPACE, '--ignore-not-found']);
  } catch {
    // not there
  }
  if (payload) {
    const token = await sign(vendor, { iat: Math.floor(Date.now() / 1000), ...payload });
    kubectl(admin, ['create', 'secret', 'generic', LICENSE_SECRET, '-n', REHEARSAL_NAMESPACE, `--from-literal=license=${token}`]);
  }
  const tier = (payload?.tier as string | undefined) ?? 'community';
  await waitFor(async () => (await api.GET('/api/v1/license')).data?.tier === tier, {
    timeoutMs: 20_000,
    intervalMs: 100,
    description: `license ${tier} in effect`,
  });
}

/** A fresh browser context on `route`; `theme` is stored before the page loads (none: the default). */
function open(route: string, theme: 'light' | 'dark' | null = 'light', viewport = { width: 1280, height: 900 }): Promise<Page> {
  return openDashboard(browser, base, route, { theme, viewport });
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** `kubectl restoretest dashboard --no-browser` with a kubeconfig: its URL, and stop (SIGINT) → exit code. */
async function startDashboardProxy(kubeconfig: string): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const plugin = spawn(
    process.execPath,
    ['--import', 'tsx', 'cmd/kubectl-restoretest/main.ts', 'dashboard', '--kubeconfig', kubeconfig, '--no-browser'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = async (): Promise<number | null> => {
    if (plugin.exitCode !== null) return plugin.exitCode;
    const exited = new Promise<number | null>((resolve) => plugin.once('exit', resolve));
    plugin.kill('SIGINT');
    return exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      plugin.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /Dashboard: (\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      plugin.once('exit', (code) => reject(new Error(`the plugin exited with ${code}: ${out}`)));
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

beforeAll(async () => {
  fixture = await createEngineFixture('dash');
  const brokenBackup = `${fixture.backup}-broken`;
  const volumesBackup = `${fixture.backup}-volumes`;
  await createBackup(fixture.admin, {
    name: volumesBackup,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    annotations: { [SIMULATOR_POD_VOLUMES]: `${fixture.source}/${POD_VOLUME.pod}/${POD_VOLUME.volume}=${POD_VOLUME.bytes}` },
  });
  await createBackup(fixture.admin, {
    name: brokenBackup,
    namespaces: [fixture.source],
    veleroNamespace: fixture.veleroNamespace,
    annotations: { 'simulator.rehearsal.dev/restore-outcome': 'Failed' },
  });
  const keyDir = mkdtempSync(path.join(tmpdir(), 'rh-dashboard-'));
  const keyFile = path.join(keyDir, 'vendor.jwk.json');
  writeFileSync(keyFile, JSON.stringify(await jwkOf(vendor)));
  // The same server also serves the aggregated API (kubectl restoretest dashboard goes through it).
  const certificate = makeServingCertificate(path.join(keyDir, 'pki'));
  const aggregationPort = await closedLoopbackPort();
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('dashboard.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: {
      REHEARSAL_LICENSE_PUBLIC_KEYS: keyFile,
      REHEARSAL_AGGREGATION_PORT: String(aggregationPort),
      REHEARSAL_TLS_CERT_FILE: certificate.certFile,
      REHEARSAL_TLS_KEY_FILE: certificate.keyFile,
    },
  });
  kubectl(testKubeconfigPath(), ['apply', '-f', path.join(repoRoot, 'deploy/base/user-roles.yaml')]);
  await registerAggregatedApi(testKubeconfigPath(), aggregationPort, certificate.caPem);
  base = `http://127.0.0.1:${rehearsal.port()}`;
  api = createRehearsalClient({ baseUrl: base });
  await createRestoreTest(
    fixture,
    restoreTestBody(fixture, PASSING, {
      backupSource: { backupName: volumesBackup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      healthChecks: {
        checks: [
          ...shopChecks(),
          // The newest order's time: the measured RPO the test page shows (issue 27).
          {
            name: 'orders-freshness',
            kind: 'sqlQuery',
            timeout: '20s',
            sqlQuery: { engine: 'postgres', service: 'db', port: 5432, database: SHOP_DB.name, credentialsSecret: { name: 'db-credentials' }, query: 'SELECT max(placed_at) FROM orders', freshness: true },
          },
        ],
      },
      sandbox: { ttl: '30s' },
      sla: { maxRTO: '10m', maxRPO: '24h', alertOnExceed: true },
    }),
  );
  await createRestoreTest(
    fixture,
    restoreTestBody(fixture, FAILING, {
      backupSource: { backupName: brokenBackup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      sandbox: { ttl: '30s' },
    }),
  );
  await createLegacyHistory();
  await Promise.all([runOnce(PASSING, 1).then(() => runOnce(PASSING, 2)), runOnce(FAILING, 1)]);
  await installLicense(undefined);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  unregisterAggregatedApi(testKubeconfigPath());
  await browser?.close();
  await installLicense(undefined).catch(() => undefined);
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ...sandboxes]);
});

describe('the dashboard in Chromium', () => {
  it('Overview shows the API summary, the failing test and the trend range switches', async () => {
    const { data: summary } = await api.GET('/api/v1/summary');
    for (const theme of ['light', 'dark'] as const) {
      const page = await open('overview', theme);
      await settled(page);
      expect(await page.textContent('[data-testid="summary-average-score"]')).toBe(String(summary!.averageScore));
      expect(await page.textContent('[data-testid="summary-total-tests"]')).toBe(String(summary!.totalTests));
      expect(await page.textContent('[data-testid="failing-tests"]')).toContain(FAILING);
      await expectAccessible(page);
      await page.context().close();
    }
    const page = await open('overview');
    await settled(page);
    const bars = async () => page.locator('figure.chart svg rect.bar').count();
    expect(await bars()).toBe(30);
    await page.getByRole('button', { name: '90 days' }).click();
    await page.waitForFunction(() => document.querySelectorAll('figure.chart svg rect.bar').length === 90);
    await page.context().close();
  });

  it('Tests lists every test, searches, and a test created through the form is in kubectl get rtest', async () => {
    const page = await open('tests');
    await settled(page);
    const { data: tests } = await api.GET('/api/v1/tests');
    expect(await page.textContent('[data-testid="tests-count"]')).toBe(`${tests!.length} of ${tests!.length} tests`);
    await page.fill('input[type="search"]', 'broken');
    expect(await page.textContent('[data-testid="tests-count"]')).toBe(`1 of ${tests!.length} tests`);
    await expectAccessible(page);
    await page.fill('input[type="search"]', '');

    await page.getByRole('link', { name: 'New test' }).click();
    await page.fill('#field-name', 'made-in-browser');
    await page.fill('#field-namespace', fixture.testNamespace);
    await page.fill('#field-sourceNamespaces', fixture.source);
    await page.fill('#field-cron', '0 4 * * *');
    await page.fill('#field-maxRTO', '15m');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/tests\/.+\/made-in-browser$/);
    const listed = kubectl(testKubeconfigPath(), ['get', 'rtest', '-n', fixture.testNamespace, '-o', 'name']);
    expect(listed.split('\n')).toContain('restoretest.rehearsal.dev/made-in-browser');
    await page.context().close();
  });

  it('editing one field in the form keeps every other field (kubectl get rtest -o yaml)', async () => {
    const name = 'edited-in-browser';
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: fixture.backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        schedule: { cron: '0 3 * * *', timezone: 'Europe/Berlin', suspend: true },
        sandbox: { namespacePrefix: 'edit', ttl: '2h', networkIsolation: 'none' },
        healthCheckPolicy: 'shop-policy',
        sla: { maxRTO: '12m', maxRPO: '24h', alertOnExceed: true },
        historyLimit: 25,
      }),
    );
    const specOf = () =>
      (parseYaml(kubectl(testKubeconfigPath(), ['get', 'rtest', name, '-n', fixture.testNamespace, '-o', 'yaml'])) as { spec: Record<string, unknown> }).spec;
    const before = specOf();
    await waitFor(async () => (await api.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace: fixture.testNamespace } } })).response.ok, {
      timeoutMs: 10_000,
      intervalMs: 100,
      description: `${name} in the server's cache`,
    });
    const page = await open(`edit-test/${fixture.testNamespace}/${name}`);
    await settled(page);
    expect(await page.inputValue('#field-timezone')).toBe('Europe/Berlin');
    expect(await page.inputValue('#field-historyLimit')).toBe('25');
    expect(await page.isChecked('#field-alertOnExceed')).toBe(true);
    expect(await page.inputValue('#field-maxRPO')).toBe('24h');
    await page.fill('#field-cron', '30 4 * * *');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`#/tests/.+/${name}$`));
    const after = specOf();
    expect(after).toEqual({ ...before, schedule: { ...(before.schedule as object), cron: '30 4 * * *' } });
    await page.context().close();
  });

  it('editing a randomWithin test in the form keeps its window (issue 32)', async () => {
    const name = 'sampled-in-browser';
    const select = { strategy: 'randomWithin', within: '720h' } as const;
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: 'latest', select, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
      }),
    );
    await waitFor(async () => (await api.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace: fixture.testNamespace } } })).response.ok, {
      timeoutMs: 10_000,
      intervalMs: 100,
      description: `${name} in the server's cache`,
    });
    const page = await open(`edit-test/${fixture.testNamespace}/${name}`);
    await settled(page);
    expect(await page.inputValue('#field-backupSelect')).toBe('720h');
    await page.fill('#field-cron', '30 4 * * *');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`#/tests/.+/${name}$`));
    const spec = (parseYaml(kubectl(testKubeconfigPath(), ['get', 'rtest', name, '-n', fixture.testNamespace, '-o', 'yaml'])) as {
      spec: { backupSource: { select?: unknown } };
    }).spec;
    expect(spec.backupSource.select).toEqual(select);
    await page.context().close();
  });

  it("shows the server's field errors next to their fields", async () => {
    const page = await open('new-test');
    await page.fill('#field-name', 'bad-cron');
    await page.fill('#field-namespace', fixture.testNamespace);
    await page.fill('#field-sourceNamespaces', fixture.source);
    await page.fill('#field-cron', 'every night');
    await page.fill('#field-ttl', '90 minutes');
    await page.getByRole('button', { name: 'Create' }).click();
    const cronError = page.locator('#cron-error');
    await cronError.waitFor();
    // The messages are the server's: the same request through the client gives the same text.
    const { error } = await api.POST('/api/v1/tests', {
      body: { name: 'bad-cron', namespace: fixture.testNamespace, provider: 'velero', sourceNamespaces: [fixture.source], cron: 'every night', ttl: '90 minutes' },
    });
    const byField = Object.fromEntries(error!.errors!.map((e) => [e.field, e.message]));
    expect(await cronError.textContent()).toBe(byField.cron);
    expect(await page.textContent('#ttl-error')).toBe(byField.ttl);
    expect(await page.getAttribute('#field-cron', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#field-cron', 'aria-describedby')).toContain('cron-error');
    await expectAccessible(page);
    await page.context().close();
  });

  it('Test detail shows the latest report, verifies its evidence, and Run now ends with the result', async () => {
    const { data: reports } = await api.GET('/api/v1/reports', { params: { query: { test: PASSING, namespace: fixture.testNamespace } } });
    const latest = reports![0]!;
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(`tests/${fixture.testNamespace}/${PASSING}`, theme);
      await settled(page);
      expect(await page.textContent('[data-testid="latest-score"]')).toBe(String(latest.spec.score));
      await page.locator('[data-testid="evidence-verdict"] .ok').waitFor();
      expect(await page.textContent('[data-testid="evidence-verdict"]')).toContain(`Signature verified (key ${latest.spec.evidence!.keyId})`);
      for (const level of latest.spec.levels) {
        expect(await page.locator('table.levels').textContent()).toContain(level.tested ? `${level.points} / ${level.maxPoints}` : 'not tested');
      }
      // The measured RPO from the freshness check, against the test's maxRPO.
      expect(latest.spec.rpo).toMatchObject({ check: 'orders-freshness', target: '24h', withinSLA: true });
      expect(await page.textContent('[data-testid="rpo"] h3')).toBe(`RPO ${latest.spec.rpo!.measured}`);
      expect(await page.textContent('[data-testid="rpo"]')).toContain('24h');
      // The volume whose data the restore brought back, as the real provider read it from the
      // restore's PodVolumeRestore: the Pod in this run's sandbox, and the same row on the page.
      const [volume, ...otherVolumes] = latest.spec.volumes ?? [];
      expect(otherVolumes).toEqual([]);
      expect(volume).toEqual({
        namespace: expect.any(String),
        pod: POD_VOLUME.pod,
        volume: POD_VOLUME.volume,
        method: 'file-system',
        phase: 'Completed',
        dataRestored: true,
        bytes: POD_VOLUME.bytes,
        durationSeconds: expect.any(Number),
      });
      expect(latest.spec.sandboxNamespaces).toContain(volume!.namespace);
      const rows = page.locator('[data-testid="volumes"] tbody tr');
      expect(await rows.count()).toBe(1);
      expect((await rows.first().locator('td').allTextContents()).map((cell) => cell.trim())).toEqual([
        `${volume!.namespace}/${POD_VOLUME.pod}`,
        POD_VOLUME.volume,
        'file-system',
        'Completed',
        '24.5 MiB',
        `${volume!.durationSeconds}s`,
      ]);
      expect(await page.locator('[data-testid="volumes"] tbody tr td .badge.ok').textContent()).toBe('Completed');
      await expectAccessible(page);
      await page.context().close();
    }

    const page = await open(`tests/${fixture.testNamespace}/${PASSING}`);
    await settled(page);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.locator('[data-testid="trigger-progress"] .progress').waitFor();
    expect(await page.textContent('[data-testid="trigger-progress"]')).toMatch(/Running|requested/);
    const result = page.locator('[data-testid="trigger-result"]');
    await result.waitFor({ timeout: 120_000 });
    const { data: after } = await api.GET('/api/v1/tests/{name}', { params: { path: { name: PASSING }, query: { namespace: fixture.testNamespace } } });
    expect(await result.textContent()).toBe(`${after!.lastResult} · score ${after!.lastScore}`);
    const { data: reportsAfter } = await api.GET('/api/v1/reports', { params: { query: { test: PASSING, namespace: fixture.testNamespace } } });
    expect(reportsAfter!.length).toBe(reports!.length + 1);
    reportsAfter![0]!.spec.sandboxNamespaces.forEach((s) => sandboxes.add(s));
    await page.context().close();
  });

  it('Test detail of runs that did not pass: the capping check, the sandbox expiry and the diagnosis from the API', async () => {
    const page = await open(`tests/${fixture.testNamespace}/${LEGACY}`);
    await settled(page);
    expect(await page.textContent('[data-testid="result-cap"]')).toContain('Result capped at partial by the check orders-api');
    await page.context().close();

    const { data: reports } = await api.GET('/api/v1/reports', { params: { query: { test: FAILING, namespace: fixture.testNamespace } } });
    const latest = reports![0]!;
    expect(latest.spec.result).toBe('fail');
    expect(latest.spec.sandboxNamespaces.length).toBeGreaterThan(0);
    // The engine wrote it: the run's start + the test's ttl (30s).
    expect(Date.parse(latest.spec.sandboxExpiresAt!)).toBe(Date.parse(latest.spec.startedAt) + 30_000);
    const failing = await open(`tests/${fixture.testNamespace}/${FAILING}`, 'dark');
    await settled(failing);
    const expires = new Date(latest.spec.sandboxExpiresAt!).toISOString().replace('T', ' ').slice(0, 16);
    expect(await failing.textContent('[data-testid="sandbox-kept"]')).toContain(`Kept for inspection until ${expires} UTC`);
    expect(await failing.locator('[data-testid="result-cap"]').count()).toBe(0);
    const diagnosis = await api.GET('/api/v1/tests/{name}/diagnosis', { params: { path: { name: FAILING }, query: { namespace: fixture.testNamespace, run: latest.spec.runId } } });
    const panel = (await failing.textContent('[data-testid="diagnosis"]'))!;
    if (diagnosis.response.ok) {
      expect(panel).toContain(`from ${diagnosis.data!.sandboxes.join(', ')}`);
      for (const hint of diagnosis.data!.hints) expect(panel).toContain(hint.title);
    } else {
      expect(diagnosis.response.status).toBe(404);
      expect(panel).toContain(`No diagnosis was stored for run ${latest.spec.runId}`);
    }
    await expectAccessible(failing);
    await failing.context().close();
  });

  it('Reports pages and filters through the API (limit, continue, result, test) and exports the page shown', async () => {
    const shownNames = () => page.locator('[data-testid="reports-table"] tbody tr td.mono').allTextContents();
    const { data: reports } = await api.GET('/api/v1/reports', { params: { query: { days: 7, limit: 50 } } });
    expect(reports!.length).toBeGreaterThan(2);
    let page = await open('reports');
    await settled(page);
    expect(await page.textContent('[data-testid="reports-count"]')).toBe(`Reports 1–${reports!.length}`);
    expect(await shownNames()).toEqual(reports!.map((r) => r.metadata.name));
    await page.getByRole('button', { name: 'fail', exact: true }).click();
    const { data: failed } = await api.GET('/api/v1/reports', { params: { query: { days: 7, limit: 50, result: 'fail' } } });
    await page.waitForFunction((n) => document.querySelector('[data-testid="reports-count"]')?.textContent === `Reports 1–${n}`, failed!.length);
    expect(await shownNames()).toEqual(failed!.map((r) => r.metadata.name));
    await page.getByRole('button', { name: 'all', exact: true }).click();
    await page.fill('input[list="report-tests"]', `${fixture.testNamespace}/${PASSING}`);
    const { data: ofPassing } = await api.GET('/api/v1/reports', { params: { query: { days: 7, limit: 50, test: PASSING, namespace: fixture.testNamespace } } });
    await page.waitForFunction((n) => document.querySelector('[data-testid="reports-count"]')?.textContent === `Reports 1–${n}`, ofPassing!.length);
    expect(await shownNames()).toEqual(ofPassing!.map((r) => r.metadata.name));
    await expectAccessible(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export this page as JSON' }).click()]);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rh-export-')), 'reports.json');
    await download.saveAs(file);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as { metadata: { name: string } }[];
    expect(exported.map((r) => r.metadata.name)).toEqual(ofPassing!.map((r) => r.metadata.name));
    await page.context().close();

    // Two per page: the first two, then the page the API's Link names, then back.
    const first = await api.GET('/api/v1/reports', { params: { query: { days: 7, limit: 2 } } });
    const second = (await (await fetch(`${base}${/^<([^>]+)>; rel="next"$/.exec(first.response.headers.get('link')!)![1]}`)).json()) as RestoreReport[];
    page = await open('reports?limit=2');
    await settled(page);
    expect(await shownNames()).toEqual(first.data!.map((r) => r.metadata.name));
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="reports-count"]')?.textContent?.startsWith('Reports 3–'));
    expect(await shownNames()).toEqual(second.map((r) => r.metadata.name));
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="reports-count"]')?.textContent?.startsWith('Reports 1–2'));
    expect(await shownNames()).toEqual(first.data!.map((r) => r.metadata.name));
    await page.context().close();
  });

  it('Alerts and Upcoming show the API values', async () => {
    const { data: alerts } = await api.GET('/api/v1/alerts', { params: { query: { hours: 168 } } });
    let page = await open('alerts', 'dark');
    await settled(page);
    expect(await page.locator('[data-testid="alerts"] tr').count()).toBe(alerts!.length);
    expect(await page.textContent('[data-testid="alerts"]')).toContain(FAILING);
    await expectAccessible(page);
    await page.context().close();

    const { data: upcoming } = await api.GET('/api/v1/upcoming');
    page = await open('upcoming');
    await settled(page);
    expect(await page.locator('[data-testid="upcoming"] tr').count()).toBe(upcoming!.length);
    await expectAccessible(page);
    await page.context().close();
  });

  it('Compliance: community is told the tier it needs (402); pro shows the page; the period changes the numbers', async () => {
    let page = await open('compliance');
    await page.locator('[data-testid="compliance-gate"]').waitFor();
    expect(await page.textContent('[role="alert"]')).toContain('Not included in your license');
    expect(await page.textContent('[data-testid="compliance-gate"]')).toContain('Team (pro)');
    await expectAccessible(page);
    await screenshot(page, 'compliance-community-light');
    await page.context().close();

    await installLicense({ tier: 'pro', features: ['compliancePage'] });
    page = await open('compliance');
    await settled(page);
    const { data: ninety } = await api.GET('/api/compliance', { params: { query: { period: 90 } } });
    const { data: thirty } = await api.GET('/api/compliance', { params: { query: { period: 30 } } });
    const soc2 = (o: typeof ninety) => o!.frameworks.find((f) => f.framework === 'soc2')!;
    expect(soc2(ninety).totalTests).toBeGreaterThan(soc2(thirty).totalTests); // the legacy runs are 40-45 days old
    const runsCell = () => page.locator('[data-testid="auditor-summary"] tbody tr').first().locator('td').first().textContent();
    expect(await runsCell()).toBe(String(soc2(ninety).totalTests));
    expect(await page.locator('[data-testid="auditor-summary"] tbody tr').count()).toBe(5);
    expect(await page.getByRole('link', { name: 'Download PDF' }).count()).toBe(0); // pro has no pdfExport
    await page.getByRole('button', { name: '30 days' }).click();
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="auditor-summary"] tbody tr td')?.textContent === n,
      String(soc2(thirty).totalTests),
    );
    await expectAccessible(page);
    await page.context().close();
  });

  it('Compliance with enterprise: the PDF button downloads a signed PDF naming the framework', async () => {
    await installLicense({ tier: 'enterprise', features: ['compliancePage', 'pdfExport', 'pdfReports'] });
    const page = await open('compliance');
    await settled(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PDF' }).first().click()]);
    expect(download.suggestedFilename()).toBe('rehearsal-compliance-soc2-90d.pdf');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rh-pdf-')), 'soc2.pdf');
    await download.saveAs(file);
    expect(pageTexts(file)[0]).toContain('SOC 2');
    await page.context().close();

    const settings = await open('settings', 'dark');
    await settled(settings);
    expect(await settings.textContent('[data-testid="license-tier"]')).toBe('enterprise');
    await expectAccessible(settings);
    await settings.context().close();
  });

  it('switches to dark mode and back, and remembers the choice', async () => {
    const page = await open('settings', null);
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).not.toBe(light);
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.context().close();
  });

  it('is usable at phone width: the menu opens the navigation', async () => {
    const page = await open('overview', 'light', { width: 390, height: 844 });
    await settled(page);
    expect(await page.locator('#nav').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL(/#\/reports$/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'reports-phone-light');
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on any page, light or dark', async () => {
    const pages: [string, string][] = [
      ['overview', 'overview'],
      ['tests', 'tests'],
      ['new-test', 'test-form'],
      [`tests/${fixture.testNamespace}/${PASSING}`, 'test-detail'],
      [`tests/${fixture.testNamespace}/${FAILING}`, 'test-detail-failed'],
      ['coverage', 'coverage'], // the shop, backed up and restored by this suite's tests
      ['reports', 'reports'],
      ['alerts', 'alerts'],
      ['upcoming', 'upcoming'],
      ['compliance', 'compliance'], // enterprise by now: the whole page, with the PDF buttons
      ['settings', 'settings'],
    ];
    for (const [route, name] of pages) {
      for (const theme of ['light', 'dark'] as const) {
        const page = await open(route, theme);
        await settled(page);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        await expectAccessible(page);
        await screenshot(page, `${name}-${theme}`);
        await page.context().close();
      }
    }
  }, 600_000); // 22 pages with axe-core: minutes on a loaded 2-core machine

  it('kubectl restoretest dashboard serves it through kube-apiserver with the kubeconfig user, until Ctrl-C', async () => {
    const proxy = await startDashboardProxy(testKubeconfigPath());
    try {
      const { url } = proxy;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/apis\/api\.rehearsal\.dev\/v1\/dashboard\/$/);
      const context = await browser.newContext();
      const page = await context.newPage();
      const paths: string[] = [];
      page.on('request', (request) => paths.push(new URL(request.url()).pathname));
      await page.goto(`${url}#/overview`);
      await settled(page);
      const { data: summary } = await api.GET('/api/v1/summary');
      expect(await page.textContent('[data-testid="summary-total-tests"]')).toBe(String(summary!.totalTests));
      await page.goto(`${url}#/compliance`);
      await page.locator('[data-testid="auditor-summary"]').waitFor(); // GET /api/compliance as .../v1/compliance/overview
      // Everything, page and API, went through the aggregated API.
      expect(paths.length).toBeGreaterThan(5);
      for (const requested of paths) expect(requested.startsWith('/apis/api.rehearsal.dev/v1/')).toBe(true);
      expect(paths).toContain('/apis/api.rehearsal.dev/v1/summary');
      await context.close();
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
  });

  it('a tenant with the viewer role in one namespace sees its tests there, and a clear 403 for another namespace', async () => {
    const admin = testKubeconfigPath();
    const namespace = fixture.testNamespace;
    const account = 'dashboard-tenant';
    await fixture.admin.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace, body: { metadata: { name: account } } });
    const token = await serviceAccountTokenFor(fixture.admin, namespace, account);
    const cluster = fixture.admin.getCurrentCluster()!;
    const kubeconfig = path.join(mkdtempSync(path.join(tmpdir(), 'rh-tenant-')), 'tenant.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
        users: [{ name: 'tenant', user: { token } }],
        contexts: [{ name: 'tenant', context: { cluster: 'test', user: 'tenant' } }],
        'current-context': 'tenant',
      }),
      { mode: 0o600 },
    );
    // The aggregated API's entrance is cluster-scoped (its paths carry no namespace, see
    // deploy/base/user-roles.yaml) and grants no data; the data is rehearsal-viewer, in one namespace.
    const entrance = `${namespace}-tenant-entrance`;
    kubectl(admin, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: entrance },
      rules: [{ apiGroups: ['api.rehearsal.dev'], resources: ['tests', 'reports', 'license', 'evidence', 'dashboard'], verbs: ['get', 'list'] }],
    }));
    kubectl(admin, ['create', 'clusterrolebinding', entrance, '--clusterrole', entrance, '--serviceaccount', `${namespace}:${account}`]);
    kubectl(admin, ['create', 'rolebinding', 'tenant-viewer', '-n', namespace, '--clusterrole', 'rehearsal-viewer', '--serviceaccount', `${namespace}:${account}`]);
    // This suite's server accepts everyone (REHEARSAL_AUTH_MODE=none, for the pages on port 8080):
    // the aggregated API moves to a second server, API only, that checks every caller.
    const pki = makeServingCertificate(mkdtempSync(path.join(tmpdir(), 'rh-tenant-pki-')));
    const aggregationPort = await closedLoopbackPort();
    const checking = await startProcess({
      kubeconfigPath: await rehearsalKubeconfig('dashboard-tenant.kubeconfig'),
      veleroNamespace: fixture.veleroNamespace,
      port: await closedLoopbackPort(),
      logFile: path.join(tmpdir(), `rh-dashboard-tenant-${process.pid}.log`),
      extra: {
        REHEARSAL_AUTH_MODE: 'kubernetes',
        REHEARSAL_CONTROLLER: 'false',
        REHEARSAL_AGGREGATION_PORT: String(aggregationPort),
        REHEARSAL_TLS_CERT_FILE: pki.certFile,
        REHEARSAL_TLS_KEY_FILE: pki.keyFile,
      },
    });
    await registerAggregatedApi(admin, aggregationPort, pki.caPem);
    const proxy = await startDashboardProxy(kubeconfig);
    try {
      const { data: reports } = await api.GET('/api/v1/reports', { params: { query: { test: PASSING, namespace } } });
      const context = await browser.newContext();
      const page = await context.newPage();
      await waitFor(
        async () => {
          await page.goto(`${proxy.url}#/tests/${namespace}/${PASSING}`);
          await settled(page);
          return (await page.locator('[data-testid="latest-score"]').count()) > 0;
        },
        { timeoutMs: 20_000, intervalMs: 500, description: 'the tenant bindings to take effect' },
      );
      expect(await page.textContent('[data-testid="latest-score"]')).toBe(String(reports![0]!.spec.score));
      await page.goto(`${proxy.url}#/tests/${REHEARSAL_NAMESPACE}/${PASSING}`);
      await page.locator('.panel.error').waitFor();
      expect(await page.textContent('.panel.error h2')).toBe('Not allowed');
      expect(await page.textContent('.panel.error')).toContain(`Missing: get restoretests.rehearsal.dev in ${REHEARSAL_NAMESPACE}.`);
      await context.close();
    } finally {
      await proxy.stop();
      await checking.stop();
      kubectl(admin, ['delete', 'clusterrolebinding', entrance, '--ignore-not-found']);
      kubectl(admin, ['delete', 'clusterrole', entrance, '--ignore-not-found']);
    }
  }, 400_000); // a second server process starts cold (over 60 s on a loaded 2-core machine)

  it('says what is wrong for an unknown test (404) instead of a blank page', async () => {
    const page = await open(`tests/${fixture.testNamespace}/no-such-test`);
    await page.locator('.panel.error').waitFor();
    expect(await page.textContent('.panel.error h2')).toBe('Not found');
    await page.context().close();
  });
});

// Issue 30: the dashboard reads like a tool people like. Schedules in English beside the cron,
// reports as CSV, a test's YAML, and the command palette, each checked against the API.
describe('the dashboard, issue 30: schedules in English, CSV, YAML view, command palette', () => {
  const WEEKDAYS = 'weekday-paris';
  const ON_BACKUPS = 'every-third-backup';

  afterAll(() => {
    kubectl(testKubeconfigPath(), ['delete', 'rtest', '-n', fixture.testNamespace, WEEKDAYS, ON_BACKUPS, '--ignore-not-found']);
  });

  it('shows each schedule in English beside its cron, on the tests list and the test page', async () => {
    // Suspended: they never run, so no other case of this file sees a report of theirs.
    await createRestoreTest(fixture, restoreTestBody(fixture, WEEKDAYS, { schedule: { cron: '15 6 * * 1-5', timezone: 'Europe/Paris', suspend: true } }));
    await createRestoreTest(fixture, restoreTestBody(fixture, ON_BACKUPS, { schedule: { timezone: 'UTC', suspend: true, onBackup: { everyNth: 3 } } }));
    const read = (name: string) =>
      waitFor(async () => (await api.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace: fixture.testNamespace } } })).data, {
        timeoutMs: 30_000,
        description: `${name} in the API`,
      });
    expect(await read(WEEKDAYS)).toMatchObject({ schedule: '15 6 * * 1-5', timezone: 'Europe/Paris' });
    expect(await read(ON_BACKUPS)).toMatchObject({ schedule: '', onBackup: true, everyNthBackup: 3 });

    const page = await open('tests');
    await settled(page);
    const scheduleOf = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) }).locator('[data-testid="schedule"]');
    await page.fill('input[type="search"]', WEEKDAYS);
    expect((await scheduleOf(WEEKDAYS).textContent())?.trim()).toBe('15 6 * * 1-5 weekdays at 06:15 Europe/Paris');
    await page.fill('input[type="search"]', ON_BACKUPS);
    expect((await scheduleOf(ON_BACKUPS).textContent())?.trim()).toBe('every 3rd backup');
    // The fixture's default cron of every other test: "yearly on the 1st of January at 00:00 UTC".
    await page.fill('input[type="search"]', FAILING);
    expect((await scheduleOf(FAILING).textContent())?.trim()).toBe('0 0 1 1 * yearly on the 1st of January at 00:00 UTC');
    await expectAccessible(page);
    await page.context().close();

    const detail = await open(`tests/${fixture.testNamespace}/${WEEKDAYS}`);
    await settled(detail);
    expect((await detail.textContent('[data-testid="detail-schedule"]'))?.trim()).toBe('15 6 * * 1-5 weekdays at 06:15 Europe/Paris');
    await expectAccessible(detail);
    await detail.context().close();
  });

  it('Reports: "Download CSV" writes the reports listed, with the filter applied, as RFC 4180 CSV', async () => {
    const page = await open('reports');
    await settled(page);
    await page.fill('input[list="report-tests"]', `${fixture.testNamespace}/${FAILING}`);
    const { data: listed } = await api.GET('/api/v1/reports', { params: { query: { days: 7, limit: 50, test: FAILING, namespace: fixture.testNamespace } } });
    expect(listed!.length).toBeGreaterThan(0);
    await page.waitForFunction((n) => document.querySelector('[data-testid="reports-count"]')?.textContent === `Reports 1–${n}`, listed!.length);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`rehearsal-reports-7d-${FAILING}-page1.csv`);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rh-csv-')), 'reports.csv');
    await download.saveAs(file);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true); // spreadsheets then read it as UTF-8
    const [header, ...rows] = readCsv(text.slice(1));
    expect(header).toEqual([
      'completedAt', 'namespace', 'test', 'result', 'score', 'trigger', 'backup', 'provider', 'backupAge',
      'rto', 'rtoTarget', 'rtoWithinSLA', 'rpo', 'rpoWithinSLA', 'checks', 'failedChecks', 'failure', 'report', 'runId',
    ]);
    const column = (name: string) => rows.map((row) => row[header!.indexOf(name)]);
    expect(column('report')).toEqual(listed!.map((r) => r.metadata.name));
    expect(column('test')).toEqual(listed!.map(() => FAILING));
    expect(column('result')).toEqual(listed!.map((r) => r.spec.result));
    expect(column('score')).toEqual(listed!.map((r) => String(r.spec.score)));
    expect(column('backup')).toEqual(listed!.map((r) => r.spec.backup.name));
    expect(column('checks')).toEqual(listed!.map((r) => r.spec.checkSummary));
    expect(column('failure')).toEqual(listed!.map((r) => (r.spec.failure ? `${r.spec.failure.reason}: ${r.spec.failure.message}` : '')));
    for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    await page.context().close();
  });

  it('Test detail: the YAML view is the API answer, and downloads and copies as shown', async () => {
    const { data: test } = await api.GET('/api/v1/tests/{name}', { params: { path: { name: LEGACY }, query: { namespace: fixture.testNamespace } } });
    const page = await open(`tests/${fixture.testNamespace}/${LEGACY}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await settled(page);
    expect(await page.locator('[data-testid="test-yaml-text"]').isVisible()).toBe(false); // collapsed until asked for
    await page.locator('[data-testid="test-yaml"] summary').click();
    const shown = (await page.locator('[data-testid="test-yaml-text"]').textContent())!;
    expect(shown.split('\n')[0]).toBe(`# ${fixture.testNamespace}/${LEGACY} as GET /api/v1/tests/${LEGACY}?namespace=${fixture.testNamespace} answers it`);
    // status.preflight may be refreshed by a backup completing meanwhile: the rest must be equal.
    const withoutPreflight = (value: unknown) => ({ ...(value as Record<string, unknown>), preflight: undefined });
    expect(withoutPreflight(parseYaml(shown))).toEqual(withoutPreflight(test));
    await expectAccessible(page);

    const fileName = `${fixture.testNamespace}-${LEGACY}.yaml`;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download ${fileName}` }).click()]);
    expect(download.suggestedFilename()).toBe(fileName);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rh-test-yaml-')), fileName);
    await download.saveAs(file);
    expect(readFileSync(file, 'utf8')).toBe(shown);

    await page.getByRole('button', { name: 'Copy YAML' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await page.context().close();
  });

  it('command palette: Ctrl+K and "/" open it, it finds tests by name, namespace and source, Enter opens, Esc closes', async () => {
    const { data: tests } = await api.GET('/api/v1/tests');
    const page = await open('overview');
    await settled(page);
    const palette = page.getByRole('dialog', { name: 'Go to a test or page' });
    const optionTexts = () => palette.getByRole('option').allTextContents();
    /** Presses the shortcut; the palette is open, its search box focused and the tests listed. */
    const openWith = async (key: string): Promise<void> => {
      await page.keyboard.press(key);
      await palette.waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'combobox');
      await page.waitForFunction(() => document.querySelector('[data-testid="palette-status"]')?.textContent !== 'Loading tests…');
    };

    await openWith('Control+k');
    expect(await palette.getAttribute('aria-modal')).toBe('true');
    expect(await palette.evaluate((element) => element.tagName === 'DIALOG' && (element as HTMLDialogElement).open)).toBe(true);
    await page.keyboard.type(FAILING);
    const found = await optionTexts();
    expect(found[0]).toContain(FAILING);
    expect(found[0]).toContain(fixture.testNamespace);
    expect(await palette.getByRole('option').first().getAttribute('aria-selected')).toBe('true');
    await expectAccessible(page); // with the dialog open
    // The focus trap: Tab and Shift+Tab stay inside the dialog.
    for (const key of ['Tab', 'Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      expect(await page.evaluate(() => document.activeElement?.closest('dialog.palette') !== null)).toBe(true);
    }
    await palette.getByRole('combobox').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/tests/${fixture.testNamespace}/${FAILING}$`));
    expect(await palette.count()).toBe(0);

    // "/" outside a field; a search by source namespace lists every test that restores it.
    await settled(page);
    await page.locator('h1').click();
    await openWith('/');
    await page.keyboard.type(fixture.source);
    const restoring = tests!.filter((t) =>
      `${t.name} ${t.namespace} ${t.namespace}/${t.name} ${t.sourceNamespaces.join(' ')}`.toLowerCase().includes(fixture.source.toLowerCase()),
    );
    await page.waitForFunction((n) => document.querySelectorAll('dialog.palette [role="option"]').length === n, Math.min(restoring.length, 50));
    for (const text of await optionTexts()) expect(text).toContain(fixture.source);
    await page.keyboard.press('ArrowDown');
    expect(await palette.getByRole('option').nth(restoring.length > 1 ? 1 : 0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    expect(page.url()).toMatch(new RegExp(`#/tests/${fixture.testNamespace}/${FAILING}$`));

    // Pages too; and "/" typed in a field is text, not the shortcut.
    await openWith('Control+k');
    await page.keyboard.type('reports');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/reports$/);
    await settled(page);
    await page.fill('input[list="report-tests"]', '');
    await page.locator('input[list="report-tests"]').pressSequentially('a/b');
    expect(await page.inputValue('input[list="report-tests"]')).toBe('a/b');
    expect(await palette.count()).toBe(0);
    await page.context().close();
  });
});
