// Issue 32 on the real control plane with the REAL Velero server: the pre-flight restorability
// check. When a backup completes, the engine reads the backup's manifests from Velero's bucket (a
// DownloadRequest for BackupContents, the tarball streamed) and checks them against the cluster as
// it is now — without restoring anything. A backup whose claim names a StorageClass that exists
// passes; after the class is deleted, the next backup fails with the class named, in
// status.preflight, the PreflightPassed condition, the API's test and alert list, and the
// rehearsal_preflight_passed metric — and no sandbox, Velero Restore or report was created for it.
// The server runs as Rehearsal's own ServiceAccount (deploy/base/rbac.yaml: nodes and
// storageclasses list, downloadrequests in Velero's namespace).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { Alert, TestResponse } from '../../server/domain/read-models/views.js';
import type { RestoreTest } from '../../server/domain/resources/resources.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  listReports,
  restoreTestBody,
  uniqueTestName,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal | undefined;
let storage: StorageV1Api;
const storageClass = uniqueName('preflight-class');

// Two real Velero backups and their pre-flights on a loaded 2-core machine.
jest.setTimeout(10 * 60_000);

async function backUpSource(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  // Velero records whole seconds: a new backup must not share its completion second with the last.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await createBackup(fixture.admin, { name, namespaces: [fixture.source], veleroNamespace: fixture.veleroNamespace, timeoutMs: 120_000 });
  return name;
}

async function createStorageClass(): Promise<void> {
  await storage.createStorageClass({
    body: {
      metadata: { name: storageClass },
      // A provisioner nobody runs, binding on first consumer: the claim stays Pending, which is
      // all a backup of its object needs.
      provisioner: 'preflight.example.com/none',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
  });
}

async function preflightOf(name: string, backup: string): Promise<RestoreTest> {
  return waitFor(
    async () => {
      const test = await getRestoreTest(fixture, name);
      return test.status?.preflight?.backupName === backup ? test : undefined;
    },
    { timeoutMs: 180_000, description: `the pre-flight of ${name} on backup ${backup}` },
  );
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${rehearsal!.port()}${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function veleroObjects(plural: string): Promise<unknown[]> {
  const list = (await fixture.custom.listNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: fixture.veleroNamespace, plural })) as {
    items: unknown[];
  };
  return list.items;
}

beforeAll(async () => {
  fixture = await createEngineFixture('preflight', 'real-velero');
  storage = fixture.admin.makeApiClient(StorageV1Api);
  await createStorageClass();
  await fixture.admin.makeApiClient(CoreV1Api).createNamespacedPersistentVolumeClaim({
    namespace: fixture.source,
    body: {
      metadata: { name: 'orders-data' },
      spec: { storageClassName: storageClass, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  const kubeconfigPath = await rehearsalKubeconfig('preflight.kubeconfig');
  rehearsal = await startInProcess({ kubeconfigPath, veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets });
}, 600_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await storage?.deleteStorageClass({ name: storageClass }).catch(() => undefined);
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('the pre-flight restorability check', () => {
  it('passes while the StorageClass exists, fails naming it once it is deleted, and restores nothing', async () => {
    const name = uniqueTestName('preflight');
    const good = await backUpSource('shop-preflight-a');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));

    const passed = await preflightOf(name, good);
    expect(passed.status?.preflight).toMatchObject({ backupName: good, result: 'passed' });
    expect(passed.status?.preflight?.problems?.filter((problem) => problem.severity === 'error') ?? []).toEqual([]);
    expect(passed.status?.conditions?.find((condition) => condition.type === 'PreflightPassed')).toMatchObject({ status: 'True', reason: 'Passed' });

    await storage.deleteStorageClass({ name: storageClass });
    const bad = await backUpSource('shop-preflight-b');
    const failed = await preflightOf(name, bad);
    const preflight = failed.status!.preflight!;
    expect(preflight.result).toBe('failed');
    expect(preflight.summary).toContain(`StorageClass ${storageClass} does not exist`);
    expect(preflight.problems).toContainEqual({
      check: 'storageClasses',
      severity: 'error',
      message: `StorageClass ${storageClass} does not exist (claims ${fixture.source}/orders-data)`,
    });
    const condition = failed.status?.conditions?.find((each) => each.type === 'PreflightPassed');
    expect(condition).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(condition?.message).toContain(storageClass);

    // The API: the test carries it, and the alert list names it before any run.
    const read = await api<TestResponse>(`/api/v1/tests/${name}?namespace=${fixture.testNamespace}`);
    expect(read.preflight).toMatchObject({ backupName: bad, result: 'failed' });
    const alerts = await api<Alert[]>('/api/v1/alerts?hours=1');
    const alert = alerts.find((each) => each.testName === name && each.kind === 'preflight');
    expect(alert?.message).toContain(`pre-flight of backup ${bad} failed: StorageClass ${storageClass} does not exist`);
    const metrics = await (await fetch(`http://127.0.0.1:${rehearsal!.port()}/metrics`)).text();
    expect(metrics).toContain(`rehearsal_preflight_passed{namespace="${fixture.testNamespace}",test="${name}"} 0`);

    // Nothing was restored for either check: no run, no report, no sandbox, no Velero Restore.
    expect(failed.status?.currentRun).toBeUndefined();
    expect(await listReports(fixture, name)).toEqual([]);
    const sandboxes = await fixture.admin.makeApiClient(CoreV1Api).listNamespace({ labelSelector: `rehearsal.dev/test=${name}` });
    expect(sandboxes.items.map((namespace) => namespace.metadata?.name)).toEqual([]);
    expect(await veleroObjects('restores')).toEqual([]);
    // The DownloadRequests it used are gone.
    expect(await veleroObjects('downloadrequests')).toEqual([]);
  });
});
