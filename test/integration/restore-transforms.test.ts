// Issue 28 on the real apiserver with the simulated backup tools (test/velero, test/kasten,
// test/trilio: NOT the vendors' tools; the real Velero is in restore-transforms-real-velero.test.ts):
//  - sandboxes are never looser than their source: a source that enforces restricted gets a
//    restricted sandbox, an unlabelled or privileged one the floor (baseline); a privileged
//    Deployment that its privileged source admitted restores, its ReplicaSet's Pods are refused by
//    the apiserver's PodSecurity admission (the real kube-controller-manager's FailedCreate), and
//    the run's pods check fails naming the profile; the report says which level each sandbox had;
//  - Kasten's and Trilio's restores carry the transforms in their own terms, and (as their
//    simulators play them from the vendors' documentation) the sandbox gets a suspended CronJob,
//    ClusterIP Services, and no Ingress or NetworkPolicy; the report lists each transform for
//    every object it matched ("*"), as those tools do not say which objects they changed.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, BatchV1Api, CoreV1Api, NetworkingV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
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
import { addSideEffects, SIDE_EFFECTS } from '../helpers/side-effects-app.js';
import { KastenSimulator } from '../kasten/simulator.js';
import { TrilioSimulator } from '../trilio/simulator.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(240_000);

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let kasten: KastenSimulator;
let trilio: TrilioSimulator;
let strict: string;
const dataNamespace = uniqueName('rtx-tool-data');
const ENFORCE = 'pod-security.kubernetes.io/enforce';
/** A check that fails, so the run does not pass and its sandboxes stay for inspection. */
const keepSandbox = { name: 'keep-sandbox', kind: 'resourceExists' as const, resourceExists: { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-in-the-backup' } };

beforeAll(async () => {
  fixture = await createEngineFixture('rtx');
  const core = fixture.admin.makeApiClient(CoreV1Api);
  // The shop's namespace admits privileged Pods; a privileged Deployment runs there.
  await core.patchNamespace(
    { name: fixture.source, body: { metadata: { labels: { [ENFORCE]: 'privileged' } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await fixture.admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: fixture.source,
    body: {
      metadata: { name: 'agent' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'agent', image: 'example/node-agent:2', securityContext: { privileged: true } }] },
        },
      },
    },
  });
  await addSideEffects(fixture.admin, fixture.source);
  // A second source that enforces restricted.
  strict = uniqueName('rtx-strict');
  await core.createNamespace({ body: { metadata: { name: strict, labels: { [ENFORCE]: 'restricted' } } } });
  await core.createNamespacedConfigMap({ namespace: strict, body: { metadata: { name: 'limits' }, data: { max: '3' } } });
  const options = { dataNamespace, pollIntervalMs: 150, stepDelayMs: 150 };
  kasten = new KastenSimulator(fixture.admin, options);
  trilio = new TrilioSimulator(fixture.admin, options);
  await Promise.all([kasten.start(), trilio.start()]);
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('restore-transforms.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 180_000);

afterAll(async () => {
  await rehearsal?.stop();
  await Promise.all([kasten?.stop(), trilio?.stop()]);
  await fixture?.stop();
  if (fixture) await deleteNamespaces(fixture.admin, [fixture.source, strict, fixture.testNamespace, fixture.veleroNamespace, dataNamespace]);
});

async function runOnce(name: string, spec: Parameters<typeof restoreTestBody>[2]): Promise<RestoreReport> {
  await createRestoreTest(fixture, restoreTestBody(fixture, name, spec));
  await trigger(fixture, name);
  const [report] = await waitForReports(fixture, name, 1, 200_000);
  return report!;
}

describe('sandboxes are never looser than their source (Pod Security)', () => {
  let report: RestoreReport;

  beforeAll(async () => {
    const backup = uniqueName('two-sources');
    await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source, strict], veleroNamespace: fixture.veleroNamespace });
    report = await runOnce(uniqueTestName('rtx-psa'), {
      backupSource: { backupName: backup, namespaces: [{ name: fixture.source }, { name: strict }], providerNamespace: fixture.veleroNamespace },
    });
  }, 240_000);

  it('each sandbox enforces the stricter of its source and the floor, labelled from its creation', async () => {
    expect(report.spec.podSecurity).toEqual({
      floor: 'baseline',
      namespaces: [
        { source: fixture.source, sourceLevel: 'privileged', level: 'baseline' },
        { source: strict, sourceLevel: 'restricted', level: 'restricted' },
      ],
    });
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const levels = await Promise.all(report.spec.sandboxNamespaces.map(async (name) => (await core.readNamespace({ name })).metadata?.labels?.[ENFORCE]));
    expect(levels).toEqual(['baseline', 'restricted']);
  });

  it('a privileged Deployment its source admitted gets no Pod, and the pods check names the profile', async () => {
    const podsCheck = report.spec.checks.find((check) => check.name === `default/pods-ready/${fixture.source}`)!;
    console.log(`[observe] ${podsCheck.name}: ${podsCheck.status}: ${podsCheck.message}`);
    expect(podsCheck.status).toBe('fail');
    expect(podsCheck.message).toMatch(/Pod Security "baseline" refused the Pods of ReplicaSet\/agent-[a-z0-9]+ \(violates PodSecurity "baseline:latest": privileged/);
    expect(report.spec.result).not.toBe('pass');
    const sandbox = report.spec.sandboxNamespaces[0]!;
    const pods = await fixture.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: sandbox, labelSelector: 'app=agent' });
    expect(pods.items).toEqual([]);
    // In its source, the same Deployment runs.
    const inSource = await fixture.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: fixture.source, labelSelector: 'app=agent' });
    expect(inSource.items.length).toBe(1);
  });

  it('the simulated Velero applied the transforms too (resource modifiers, excluded resources)', async () => {
    const sandbox = report.spec.sandboxNamespaces[0]!;
    expect((await fixture.admin.makeApiClient(BatchV1Api).readNamespacedCronJob({ namespace: sandbox, name: SIDE_EFFECTS.cronJob })).spec?.suspend).toBe(true);
    expect((await fixture.admin.makeApiClient(CoreV1Api).readNamespacedService({ namespace: sandbox, name: SIDE_EFFECTS.loadBalancer })).spec?.type).toBe('ClusterIP');
    expect((await fixture.admin.makeApiClient(NetworkingV1Api).listNamespacedIngress({ namespace: sandbox })).items).toEqual([]);
    const kinds = report.spec.transforms!.applied.map((entry) => `${entry.transform} ${entry.kind} ${entry.name}`);
    expect(kinds).toEqual(expect.arrayContaining([`exclude-host-routes Ingress ${SIDE_EFFECTS.ingress}`, `suspend-cronjobs CronJob ${SIDE_EFFECTS.cronJob}`]));
  });
});

describe.each([
  ['Kasten', 'kasten' as const, () => kasten],
  ['Trilio', 'trilio' as const, () => trilio],
])('%s restores with the transforms in its own terms (simulator)', (_label, provider, simulator) => {
  let report: RestoreReport;
  let sandbox: string;

  beforeAll(async () => {
    const backup = await simulator().takeBackup(fixture.source, uniqueName(`${provider}-side-effects`));
    report = await runOnce(uniqueTestName(`rtx-${provider}`), {
      provider,
      backupSource: { backupName: backup, namespaces: [{ name: fixture.source }] },
      healthChecks: { checks: [keepSandbox] },
    });
    sandbox = report.spec.sandboxNamespaces[0]!;
  }, 240_000);

  it('the restore completed; the CronJob is suspended, the Services are ClusterIP, no Ingress or NetworkPolicy', async () => {
    expect(report.spec.restore?.errors).toBe(0);
    expect(report.spec.failure).toBeUndefined();
    const batch = fixture.admin.makeApiClient(BatchV1Api);
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const networking = fixture.admin.makeApiClient(NetworkingV1Api);
    expect((await batch.readNamespacedCronJob({ namespace: sandbox, name: SIDE_EFFECTS.cronJob })).spec?.suspend).toBe(true);
    const lb = await core.readNamespacedService({ namespace: sandbox, name: SIDE_EFFECTS.loadBalancer });
    expect([lb.spec?.type, lb.spec?.externalIPs, lb.spec?.loadBalancerClass]).toEqual(['ClusterIP', undefined, undefined]);
    expect((await core.readNamespacedService({ namespace: sandbox, name: SIDE_EFFECTS.nodePort })).spec?.type).toBe('ClusterIP');
    expect((await networking.listNamespacedIngress({ namespace: sandbox })).items).toEqual([]);
    const policies = (await networking.listNamespacedNetworkPolicy({ namespace: sandbox })).items.map((policy) => policy.metadata?.name);
    expect(policies).not.toContain(SIDE_EFFECTS.networkPolicy);
    // external-dns annotations: Kasten removes them; plain JSON Patch (Trilio) cannot (docs/restore-transforms.md).
    expect(Boolean(lb.metadata?.annotations?.['external-dns.alpha.kubernetes.io/hostname'])).toBe(provider === 'trilio');
  });

  it('the report lists each transform once, for every object it matched ("*")', () => {
    const applied = report.spec.transforms!.applied;
    expect(applied.every((entry) => entry.name === '*')).toBe(true);
    expect(applied.map((entry) => entry.transform)).toEqual(
      expect.arrayContaining(['suspend-cronjobs', 'services-cluster-ip', 'exclude-host-routes', 'exclude-network-policies', 'hold-jobs']),
    );
    expect(report.spec.podSecurity?.namespaces).toEqual([{ source: fixture.source, sourceLevel: 'privileged', level: 'baseline' }]);
  });
});
