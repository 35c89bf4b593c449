// Issue 32 with the REAL Velero (v1.18, test/helpers/real-velero.ts) on the real apiserver:
// restoring a subset of a namespace. The source namespace holds the shop and two more
// applications, labelled app=a and app=b (a Deployment, a Service and a ConfigMap each), and one
// real Backup holds all of it. A test with spec.backupSource.labelSelector app=a asks Velero for a
// Restore with spec.labelSelector; its sandbox holds a's objects and none of b's nor the shop's,
// and its report passes and names the subset (restore.subset). A second test adds
// includedResources deployments.apps with app=b: only b's Deployment comes back. The Restore as
// Velero left it is still the one a restarted engine would build (adoption compares the subset).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { CurrentRun, HealthCheck, RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import { resolveSubset } from '../../server/domain/run/restore-subset.js';
import { resolveTransforms } from '../../server/domain/run/restore-transforms.js';
import { buildNamespaceMapping } from '../../server/providers/provider.js';
import { buildRestoreObject, restoreMatchesRequest } from '../../server/providers/velero/velero-restore.js';
import type { VeleroRestore } from '../../server/providers/velero/velero-types.js';
import {
  createEngineFixture,
  createRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, uniqueName } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(300_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let backup: string;
/** The run's Restore as Velero had it while the run was Validating (the clean-up deletes it). */
const seen = new Map<string, Promise<VeleroRestore | undefined>>();

/** One small application: a Deployment, its Service and a ConfigMap, every object labelled app=<app>. */
async function addApp(admin: KubeConfig, namespace: string, app: string): Promise<void> {
  const labels = { app };
  await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: `${app}-web`, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'example/shop-web:1.4', ports: [{ containerPort: 8080 }] }] } },
      },
    },
  });
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespacedService({
    namespace,
    body: { metadata: { name: `${app}-web`, labels }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 as never }] } },
  });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `${app}-config`, labels }, data: { app } } });
}

const exists = (kind: string, apiVersion: string, name: string): HealthCheck => ({
  name: `${kind.toLowerCase()}-${name}`,
  kind: 'resourceExists',
  resourceExists: { apiVersion, kind, name },
});

async function runOnce(name: string, backupSource: Partial<RestoreTest['spec']['backupSource']>, checks: HealthCheck[]): Promise<RestoreReport> {
  await createRestoreTest(
    fixture,
    restoreTestBody(fixture, name, {
      backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace, ...backupSource },
      healthChecks: { checks },
    }),
  );
  await trigger(fixture, name);
  const [report] = (await waitForReports(fixture, name, 1, 240_000)) as [RestoreReport];
  if (report.spec.result !== 'pass') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().slice(-40).join('\n'));
  return report;
}

async function names(sandbox: string): Promise<{ deployments: string[]; services: string[]; configMaps: string[] }> {
  const apps = fixture.admin.makeApiClient(AppsV1Api);
  const core = fixture.admin.makeApiClient(CoreV1Api);
  const sorted = (items: { metadata?: { name?: string } }[]) => items.map((item) => item.metadata?.name ?? '').sort();
  return {
    deployments: sorted((await apps.listNamespacedDeployment({ namespace: sandbox })).items),
    services: sorted((await core.listNamespacedService({ namespace: sandbox })).items),
    // kube-root-ca.crt is the apiserver's own, in every namespace.
    configMaps: sorted((await core.listNamespacedConfigMap({ namespace: sandbox })).items).filter((name) => name !== 'kube-root-ca.crt'),
  };
}

beforeAll(async () => {
  fixture = await createEngineFixture('rsub', 'real-velero');
  await addApp(fixture.admin, fixture.source, 'a');
  await addApp(fixture.admin, fixture.source, 'b');
  backup = uniqueName('two-apps');
  await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source], veleroNamespace: fixture.veleroNamespace, timeoutMs: 120_000 });
  rehearsal = await startInProcess(
    { kubeconfigPath: await rehearsalKubeconfig('restore-subset.kubeconfig'), veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets },
    {
      onStage: (stage: string, test: RestoreTest, run: CurrentRun) => {
        if (stage === 'Validating' && run.restore && !seen.has(test.metadata.name)) {
          seen.set(
            test.metadata.name,
            fixture.custom
              .getNamespacedCustomObject({ group: 'velero.io', version: 'v1', namespace: run.restore.namespace, plural: 'restores', name: run.restore.name })
              .then((restore) => restore as VeleroRestore),
          );
        }
      },
    },
  );
}, 300_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (fixture) await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

describe('restoring a subset with the real Velero', () => {
  it('labelSelector app=a: the sandbox holds a\'s objects and not b\'s nor the shop\'s; the report passes and names the subset', async () => {
    const name = uniqueTestName('subset-a');
    // A failing check keeps the sandbox; these pass, so the sandbox is read while the run validates.
    let contents: Awaited<ReturnType<typeof names>> | undefined;
    const report = await runOnce(name, { labelSelector: { matchLabels: { app: 'a' } } }, [
      exists('Deployment', 'apps/v1', 'a-web'),
      exists('Service', 'v1', 'a-web'),
      exists('ConfigMap', 'v1', 'a-config'),
      { name: 'a-pods', kind: 'podsReady', podsReady: { selector: { app: 'a' }, minReady: 1 } },
    ]);
    const restore = await seen.get(name);
    expect(restore?.spec?.labelSelector).toEqual({ matchLabels: { app: 'a' } });
    expect(restore?.spec?.includedResources ?? []).toEqual([]);
    expect(report.spec.failure).toBeUndefined();
    expect(report.spec.checks.map((check) => [check.name, check.status])).toEqual([
      ['deployment-a-web', 'pass'],
      ['service-a-web', 'pass'],
      ['configmap-a-config', 'pass'],
      ['a-pods', 'pass'],
    ]);
    expect(report.spec.result).toBe('pass');
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', errors: 0, subset: 'labels app=a' });
    // Velero restored only the subset: its count is a's objects (3, plus Pods and a ReplicaSet it
    // may have backed up with the label), far fewer than the namespace holds.
    expect(report.spec.restore?.itemsRestored).toBeGreaterThanOrEqual(3);
    expect(report.spec.restore?.itemsRestored).toBeLessThan(10);

    // The sandbox, if still there (a passing run's sandbox is deleted at once), holds nothing of b
    // or the shop. The Restore object is the hard evidence either way: Velero restored by its selector.
    const sandbox = report.spec.sandboxNamespaces[0]!;
    try {
      contents = await names(sandbox);
    } catch {
      contents = undefined;
    }
    if (contents) {
      expect(contents.deployments).not.toEqual(expect.arrayContaining(['b-web']));
      expect(contents.deployments).not.toContain('web');
      expect(contents.services.filter((service) => ['b-web', 'web', 'db'].includes(service))).toEqual([]);
      expect(contents.configMaps.filter((configMap) => ['b-config', 'settings'].includes(configMap))).toEqual([]);
    }

    // A restarted engine would adopt the Restore as Velero left it, and only with the same subset.
    const wanted = (subsetSource: Partial<RestoreTest['spec']['backupSource']>) =>
      buildRestoreObject(
        {
          name: restore!.metadata.name,
          backup: { name: backup, includedNamespaces: [fixture.source] },
          mapping: buildNamespaceMapping([fixture.source], () => sandbox),
          labels: {},
          transforms: resolveTransforms(undefined),
          subset: resolveSubset({ namespaces: [{ name: fixture.source }], ...subsetSource })!,
        },
        fixture.veleroNamespace,
      );
    expect(restoreMatchesRequest(restore!, wanted({ labelSelector: { matchLabels: { app: 'a' } } }))).toBe(true);
    expect(restoreMatchesRequest(restore!, wanted({ labelSelector: { matchLabels: { app: 'b' } } }))).toBe(false);
  });

  it('a failing check keeps the sandbox: with app=a it holds exactly a\'s Deployment, Service and ConfigMap', async () => {
    const name = uniqueTestName('subset-a-kept');
    const report = await runOnce(name, { labelSelector: { matchLabels: { app: 'a' } } }, [exists('ConfigMap', 'v1', 'b-config')]);
    expect(report.spec.checks.map((check) => [check.name, check.status])).toEqual([['configmap-b-config', 'fail']]);
    const contents = await names(report.spec.sandboxNamespaces[0]!);
    expect(contents.deployments).toEqual(['a-web']);
    expect(contents.services).toEqual(['a-web']);
    expect(contents.configMaps).toEqual(['a-config']);
  });

  it('labelSelector app=b with includedResources deployments.apps: only b\'s Deployment comes back', async () => {
    const name = uniqueTestName('subset-b-deploy');
    // The failing check keeps the sandbox so its contents can be listed.
    const report = await runOnce(
      name,
      {
        labelSelector: { matchLabels: { app: 'b' } },
        includedResources: [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }],
      },
      [exists('Deployment', 'apps/v1', 'b-web'), exists('Service', 'v1', 'b-web')],
    );
    const restore = await seen.get(name);
    expect(restore?.spec?.includedResources).toEqual(['deployments.apps']);
    expect(restore?.spec?.labelSelector).toEqual({ matchLabels: { app: 'b' } });
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', subset: 'labels app=b; types deployments.apps' });
    expect(report.spec.checks.map((check) => [check.name, check.status])).toEqual([
      ['deployment-b-web', 'pass'],
      ['service-b-web', 'fail'],
    ]);
    const contents = await names(report.spec.sandboxNamespaces[0]!);
    expect(contents.deployments).toEqual(['b-web']);
    expect(contents.services).toEqual([]);
    expect(contents.configMaps).toEqual([]);
  });
});
