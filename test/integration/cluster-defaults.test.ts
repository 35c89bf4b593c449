// Issue 30 on the real control plane: the cluster-wide defaults in ConfigMap
// rehearsal-cluster-defaults (Rehearsal's namespace) are watched by the server, under its own
// ServiceAccount and the RBAC of deploy/base/rbac.yaml (get/list/watch on that one name). One
// server, never restarted, shows:
//  - a run gets the sandbox quota (pods; storage), the ttl and the RTO target of the ConfigMap;
//  - after the ConfigMap changes, the next run gets the new ones;
//  - a test's own quota, ttl and maxRTO win over the cluster's;
//  - the API's alert list follows alerts.maxBackupAge as it changes;
//  - a bad value is exported as rehearsal_cluster_defaults_invalid{key} and changes nothing.
// Each run fails its HTTP check on purpose (result partial), so its sandbox is kept until its ttl
// and its quotas can be read after the report, and the report records sandboxExpiresAt.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type V1ResourceQuota } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import type { Alert } from '../../server/domain/read-models/views.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { REHEARSAL_NAMESPACE, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';

jest.setTimeout(200_000);

const CONFIGMAP = 'rehearsal-cluster-defaults';
const SANDBOX_QUOTA = 'rehearsal-sandbox';
const STORAGE_QUOTA = 'rehearsal-sandbox-storage';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let core: CoreV1Api;
const sandboxes: string[] = [];

/** Creates or replaces the ConfigMap, as an administrator would with kubectl apply. */
async function setClusterDefaults(data: Record<string, string>): Promise<void> {
  const body = { metadata: { name: CONFIGMAP, namespace: REHEARSAL_NAMESPACE }, data };
  try {
    await core.replaceNamespacedConfigMap({ name: CONFIGMAP, namespace: REHEARSAL_NAMESPACE, body });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
    await core.createNamespacedConfigMap({ namespace: REHEARSAL_NAMESPACE, body });
  }
}

async function removeClusterDefaults(): Promise<void> {
  try {
    await core.deleteNamespacedConfigMap({ name: CONFIGMAP, namespace: REHEARSAL_NAMESPACE });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
  }
}

async function metricsText(): Promise<string> {
  return (await fetch(`http://127.0.0.1:${rehearsal.port()}/metrics`)).text();
}

/**
 * Waits until the server has taken in the ConfigMap: a bad-key canary put in beside the real
 * values shows on /metrics once the watch delivered this version (the canary's name changes with
 * each version, so an older delivery cannot satisfy the wait).
 */
async function applyAndWait(data: Record<string, string>, version: string): Promise<void> {
  const canary = `canary-${version}`;
  await setClusterDefaults({ ...data, [canary]: 'x' });
  await waitFor(async () => (await metricsText()).includes(`rehearsal_cluster_defaults_invalid{key="${canary}"} 1`), {
    timeoutMs: 30_000,
    description: `the server to see version ${version} of ${CONFIGMAP}`,
  });
}

async function quota(namespace: string, name: string): Promise<V1ResourceQuota> {
  return core.readNamespacedResourceQuota({ namespace, name });
}

async function runOf(name: string, count: number): Promise<RestoreReport> {
  await trigger(fixture, name);
  const reports = await waitForReports(fixture, name, count, 150_000);
  const report = reports[count - 1]!;
  sandboxes.push(...report.spec.sandboxNamespaces);
  return report;
}

function lifetimeSeconds(report: RestoreReport): number {
  return (Date.parse(report.spec.sandboxExpiresAt!) - Date.parse(report.spec.startedAt)) / 1000;
}

async function alertsOfLastHour(): Promise<Alert[]> {
  const response = await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/alerts?hours=1`);
  expect(response.status).toBe(200);
  return (await response.json()) as Alert[];
}

beforeAll(async () => {
  fixture = await createEngineFixture('defaults');
  core = fixture.admin.makeApiClient(CoreV1Api);
  const kubeconfigPath = await rehearsalKubeconfig('cluster-defaults.kubeconfig');
  await removeClusterDefaults();
  rehearsal = await startInProcess({
    kubeconfigPath,
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
    extra: { REHEARSAL_DIAGNOSTICS_LOGS: 'false' },
  });
}, 150_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (core) await removeClusterDefaults();
  // Partial runs keep their sandboxes until their ttl; this suite's server is gone, so they go here.
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ...sandboxes]);
});

describe('cluster-wide defaults, changed while the server runs', () => {
  // A failing, non-critical HTTP check: partial, sandbox kept (decision 0004, 0012).
  const checks = shopChecks({ httpPath: '/broken' });
  const plain = uniqueTestName('plain');
  const own = uniqueTestName('own');
  let first: RestoreReport;
  let second: RestoreReport;
  let ownReport: RestoreReport;

  beforeAll(async () => {
    await applyAndWait({ 'sandboxQuota.pods': '40', 'sandboxQuota.storage': '3Gi', sandboxTtl: '2h', rtoTarget: '45m' }, 'v1');
    await createRestoreTest(fixture, restoreTestBody(fixture, plain, { healthChecks: { checks } }));
    first = await runOf(plain, 1);

    await applyAndWait(
      { 'sandboxQuota.pods': '25', 'sandboxQuota.storage': '2Gi', sandboxTtl: '3h', rtoTarget: '40m', 'alerts.maxBackupAge': '1s' },
      'v2',
    );
    // The backup must be older than 1s when the next run starts, for the backup-age alert below.
    const backupDone = Date.parse(first.spec.backup.completedAt!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, backupDone + 3000 - Date.now())));
    second = await runOf(plain, 2);
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, own, {
        healthChecks: { checks },
        sandbox: { ttl: '30m', resourceQuota: { hard: { pods: '7' } } },
        sla: { maxRTO: '20m', alertOnExceed: false },
      }),
    );
    ownReport = await runOf(own, 1);
  }, 480_000);

  it("gives a test without its own values the ConfigMap's quota, ttl and RTO target", async () => {
    expect(first.spec.result).toBe('partial');
    const sandbox = first.spec.sandboxNamespaces[0]!;
    expect((await quota(sandbox, SANDBOX_QUOTA)).spec?.hard).toEqual({ pods: '40' });
    expect((await quota(sandbox, STORAGE_QUOTA)).spec?.hard).toMatchObject({ 'requests.storage': '3Gi' });
    expect(lifetimeSeconds(first)).toBe(2 * 3600);
    expect(first.spec.rto.target).toBe('45m');
  });

  it('gives the next run the changed values, without a restart', async () => {
    expect(second.spec.runId).not.toBe(first.spec.runId);
    const sandbox = second.spec.sandboxNamespaces[0]!;
    expect((await quota(sandbox, SANDBOX_QUOTA)).spec?.hard).toEqual({ pods: '25' });
    expect((await quota(sandbox, STORAGE_QUOTA)).spec?.hard).toMatchObject({ 'requests.storage': '2Gi' });
    expect(lifetimeSeconds(second)).toBe(3 * 3600);
    expect(second.spec.rto.target).toBe('40m');
    // The first run's sandbox keeps what it was created with.
    expect((await quota(first.spec.sandboxNamespaces[0]!, SANDBOX_QUOTA)).spec?.hard).toEqual({ pods: '40' });
  });

  it("lets a test's own quota, ttl and maxRTO win", async () => {
    const sandbox = ownReport.spec.sandboxNamespaces[0]!;
    expect((await quota(sandbox, SANDBOX_QUOTA)).spec?.hard).toEqual({ pods: '7' });
    expect(lifetimeSeconds(ownReport)).toBe(30 * 60);
    expect(ownReport.spec.rto.target).toBe('20m');
    // Storage is a bound a test can only tighten: the cluster's stays.
    expect((await quota(sandbox, STORAGE_QUOTA)).spec?.hard).toMatchObject({ 'requests.storage': '2Gi' });
  });

  it('the API alert list follows alerts.maxBackupAge as the ConfigMap changes', async () => {
    const ofSecond = (alerts: Alert[]) => alerts.find((alert) => alert.message.startsWith(`run ${second.spec.runId}:`));
    // Under v2 (1s) the second run restored a backup older than the threshold.
    const alerted = await waitFor(async () => ofSecond(await alertsOfLastHour()), { timeoutMs: 10_000, description: 'the backup-age alert' });
    expect(alerted.message).toMatch(/restored a backup \S+ old, older than 1s/);

    await applyAndWait({ 'sandboxQuota.pods': '25', 'alerts.maxBackupAge': '48h' }, 'v3');
    // A partial run with no other condition: no alert at all once the threshold is 48h.
    expect(ofSecond(await alertsOfLastHour())).toBeUndefined();
  });

  it('exports a bad value by key until it is fixed (that the last good value applies meanwhile is unit-tested)', async () => {
    await applyAndWait({ 'sandboxQuota.pods': 'many', 'alerts.maxBackupAge': '48h' }, 'v4');
    expect(await metricsText()).toContain('rehearsal_cluster_defaults_invalid{key="sandboxQuota.pods"} 1');
    await applyAndWait({ 'sandboxQuota.pods': '25', 'alerts.maxBackupAge': '48h' }, 'v5');
    expect(await metricsText()).not.toContain('rehearsal_cluster_defaults_invalid{key="sandboxQuota.pods"}');
  });
});
