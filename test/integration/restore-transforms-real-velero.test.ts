// Issue 28 with the REAL Velero (v1.18, test/helpers/real-velero.ts) on the real apiserver: the
// default restore transforms as Velero applies them. A source namespace holds the shop and objects
// that would act on the world if restored as backed up (test/helpers/side-effects-app.ts). The
// run's Restore carries excludedResources and names its resource-modifier ConfigMap, which the
// engine created first (owned by the sandbox, deleted with the Restore); in the sandbox the
// LoadBalancer Service is ClusterIP without node ports, external IPs or external-dns annotations,
// the CronJob is suspended, the Job, the Ingress and the NetworkPolicy are not there (only
// Rehearsal's own policies), the restored Pod of a Job is held by its scheduling gate; the report
// lists each of them; the restored claim of production's statically bound volume names no volume
// (Velero keeps spec.volumeName; without unbind-claims, shown last, the copy points at production's
// volume), and production's volume and claim are untouched; the sandbox carried its Pod Security labels from its creation, before the
// Restore existed (audit log); and neither Rehearsal nor Velero wrote anywhere else.
// These are API-level facts: no kubelet is needed (the CronJob never running for minutes, egress
// refused despite the source's allow-all policy, are the real node's to show).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { BatchV1Api, CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { CurrentRun, RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
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
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { addProductionVolume, readProductionVolume, removeProductionVolume, type ProductionVolume } from '../helpers/production-volume.js';
import { addSideEffects, SIDE_EFFECTS } from '../helpers/side-effects-app.js';
import { buildRestoreObject, restoreMatchesRequest } from '../../server/providers/velero/velero-restore.js';
import { buildNamespaceMapping } from '../../server/providers/provider.js';
import { resolveTransforms } from '../../server/domain/run/restore-transforms.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(300_000);

interface Seen {
  restore?: { spec?: Record<string, unknown>; metadata: { name: string } };
  configMap?: { metadata?: { ownerReferences?: unknown[]; labels?: Record<string, string> }; data?: Record<string, string> };
}

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let backup: string;
let nodePort: number;
let production: ProductionVolume;
let productionBefore: Awaited<ReturnType<typeof readProductionVolume>>;
const suiteStarted = new Date();
/** What the run's Restore and ConfigMap looked like while it was Validating (they go with its clean-up). */
const seen = new Map<string, Promise<Seen>>();

async function readWhileRunning(run: CurrentRun): Promise<Seen> {
  if (!run.restore) return {};
  const restore = (await fixture.custom.getNamespacedCustomObject({
    group: 'velero.io',
    version: 'v1',
    namespace: run.restore.namespace,
    plural: 'restores',
    name: run.restore.name,
  })) as Seen['restore'];
  const configMap = (await fixture.admin
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ namespace: run.restore.namespace, name: `${run.restore.name}-transforms` })) as Seen['configMap'];
  return { restore, configMap };
}

beforeAll(async () => {
  fixture = await createEngineFixture('rtxv', 'real-velero');
  ({ nodePort } = await addSideEffects(fixture.admin, fixture.source));
  production = await addProductionVolume(fixture.admin, fixture.source);
  productionBefore = await readProductionVolume(fixture.admin, fixture.source, production);
  backup = uniqueName('side-effects');
  await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source], veleroNamespace: fixture.veleroNamespace, timeoutMs: 120_000 });
  rehearsal = await startInProcess(
    { kubeconfigPath: await rehearsalKubeconfig('transforms-real-velero.kubeconfig'), veleroNamespace: fixture.veleroNamespace, probeTargets: fixture.endpoints.targets },
    {
      onStage: (stage: string, test: RestoreTest, run: CurrentRun) => {
        if (stage === 'Validating' && !seen.has(test.metadata.name)) seen.set(test.metadata.name, readWhileRunning(run));
      },
    },
  );
}, 300_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  if (fixture) await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
  if (fixture) await removeProductionVolume(fixture.admin, production);
});

describe('the default restore transforms with the real Velero', () => {
  let report: RestoreReport;
  let sandbox: string;
  const name = uniqueTestName('rtx-velero');

  beforeAll(async () => {
    // A check that fails keeps the sandbox for inspection (a passing run's sandbox goes at once).
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        healthChecks: {
          checks: [{ name: 'keep-sandbox', kind: 'resourceExists', resourceExists: { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-in-the-backup' } }],
        },
      }),
    );
    await trigger(fixture, name);
    [report] = (await waitForReports(fixture, name, 1, 240_000)) as [RestoreReport];
    sandbox = report.spec.sandboxNamespaces[0]!;
    if (report.spec.restore?.phase !== 'Completed') console.log(JSON.stringify(report.spec, null, 1), fixture.veleroLog().join('\n'));
  }, 300_000);

  it('asked Velero for the exclusions and its run\'s resource modifiers, in a ConfigMap owned by the sandbox', async () => {
    const { restore, configMap } = await seen.get(name)!;
    expect(restore?.spec).toMatchObject({
      includeClusterResources: false,
      resourceModifier: { kind: 'ConfigMap', name: `${restore!.metadata.name}-transforms` },
    });
    expect(restore?.spec?.excludedResources).toEqual(
      expect.arrayContaining(['jobs.batch', 'ingresses.networking.k8s.io', 'networkpolicies.networking.k8s.io', 'certificates.cert-manager.io']),
    );
    expect(configMap?.metadata?.labels?.['rehearsal.dev/run']).toBe(report.spec.runId);
    expect(configMap?.metadata?.ownerReferences).toEqual([expect.objectContaining({ apiVersion: 'v1', kind: 'Namespace', name: sandbox })]);
    const document = JSON.parse(Object.values(configMap?.data ?? {})[0]!) as { version: string; resourceModifierRules: unknown[] };
    expect(document.version).toBe('v1');
    // The Restore as Velero left it after validating it (it adds its non-restorable resources to
    // excludedResources) is still the one a repeated step would build, so a restarted engine adopts it.
    const wanted = buildRestoreObject(
      {
        name: restore!.metadata.name,
        backup: { name: backup, includedNamespaces: [fixture.source] },
        mapping: buildNamespaceMapping([fixture.source], () => sandbox),
        labels: {},
        transforms: resolveTransforms(undefined),
      },
      fixture.veleroNamespace,
    );
    expect((restore!.spec!.excludedResources as string[]).length).toBeGreaterThan(wanted.spec!.excludedResources!.length);
    expect(restoreMatchesRequest(restore as never, wanted)).toBe(true);
    // The run's clean-up deleted the Restore and its ConfigMap.
    await expect(
      fixture.admin.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: fixture.veleroNamespace, name: `${restore!.metadata.name}-transforms` }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('Velero applied them without an error: the restore Completed', () => {
    expect(report.spec.restore).toMatchObject({ phase: 'Completed', errors: 0 });
    expect(report.spec.failure).toBeUndefined();
    expect(report.spec.checks.map((check) => [check.name, check.status])).toEqual([['keep-sandbox', 'fail']]);
  });

  it('the LoadBalancer and NodePort Services are ClusterIP, with nothing that reaches outside the cluster', async () => {
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const lb = await core.readNamespacedService({ namespace: sandbox, name: SIDE_EFFECTS.loadBalancer });
    expect(lb.spec?.type).toBe('ClusterIP');
    expect([lb.spec?.loadBalancerClass, lb.spec?.externalIPs, lb.spec?.externalTrafficPolicy, lb.spec?.healthCheckNodePort]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(lb.spec?.ports?.map((port) => port.nodePort)).toEqual([undefined]);
    expect(lb.metadata?.annotations?.['external-dns.alpha.kubernetes.io/hostname']).toBeUndefined();
    expect(lb.metadata?.annotations?.['external-dns.alpha.kubernetes.io/ttl']).toBeUndefined();
    expect(lb.metadata?.annotations?.['example.com/kept']).toBe('yes');
    expect(lb.metadata?.annotations?.['transforms.rehearsal.dev/services-cluster-ip']).toMatch(/^type LoadBalancer made ClusterIP/);
    const source = await core.readNamespacedService({ namespace: fixture.source, name: SIDE_EFFECTS.loadBalancer });
    expect(source.spec?.ports?.[0]?.nodePort).toBe(nodePort); // production keeps its node port
    const np = await core.readNamespacedService({ namespace: sandbox, name: SIDE_EFFECTS.nodePort });
    expect([np.spec?.type, np.spec?.ports?.map((port) => port.nodePort)]).toEqual(['ClusterIP', [undefined, undefined]]);
  });

  it('the CronJob is suspended; the Job, the Ingress and the NetworkPolicy were not restored; the Pod of a Job is held', async () => {
    const batch = fixture.admin.makeApiClient(BatchV1Api);
    const networking = fixture.admin.makeApiClient(NetworkingV1Api);
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const cronJob = await batch.readNamespacedCronJob({ namespace: sandbox, name: SIDE_EFFECTS.cronJob });
    expect(cronJob.spec?.suspend).toBe(true);
    expect((await batch.readNamespacedCronJob({ namespace: fixture.source, name: SIDE_EFFECTS.cronJob })).spec?.suspend).not.toBe(true);
    expect((await batch.listNamespacedJob({ namespace: sandbox })).items).toEqual([]);
    expect((await networking.listNamespacedIngress({ namespace: sandbox })).items).toEqual([]);
    const policies = (await networking.listNamespacedNetworkPolicy({ namespace: sandbox })).items.map((policy) => policy.metadata?.name);
    expect(policies).not.toContain(SIDE_EFFECTS.networkPolicy);
    expect(policies.length).toBeGreaterThan(0); // Rehearsal's own (networkIsolation strict)
    const pod = await core.readNamespacedPod({ namespace: sandbox, name: SIDE_EFFECTS.jobPod });
    expect(pod.spec?.schedulingGates).toEqual([{ name: 'rehearsal.dev/job-not-rerun' }]);
    expect(pod.spec?.nodeName).toBeUndefined();
  });

  it('the restored claim names no volume: it never binds production\'s, which stays bound to production\'s claim', async () => {
    const core = fixture.admin.makeApiClient(CoreV1Api);
    // Velero kept spec.volumeName (it does not restore the PersistentVolume); unbind-claims dropped it.
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: sandbox, name: production.claim });
    expect(productionBefore.claim.spec?.volumeName).toBe(production.volume);
    expect(claim.spec?.volumeName).toBeUndefined();
    expect(claim.metadata?.annotations?.['pv.kubernetes.io/bind-completed']).toBeUndefined();
    expect(claim.metadata?.annotations?.['transforms.rehearsal.dev/unbind-claims']).toMatch(/spec\.volumeName/);
    // Nothing matches a claim of storageClassName "" here: the PV controller leaves it Pending and
    // says why (the run's checks see a claim that is not bound, not production's data).
    expect(claim.status?.phase).toBe('Pending');
    const after = await readProductionVolume(fixture.admin, fixture.source, production);
    expect(after.volume.status?.phase).toBe('Bound');
    expect(after.volume.spec?.claimRef).toMatchObject({ namespace: fixture.source, name: production.claim, uid: productionBefore.claim.metadata?.uid });
    expect(after.volume.metadata?.resourceVersion).toBe(productionBefore.volume.metadata?.resourceVersion);
    expect(after.claim.metadata?.resourceVersion).toBe(productionBefore.claim.metadata?.resourceVersion);
    // No PersistentVolume was created for the sandbox.
    const volumes = (await core.listPersistentVolume()).items.filter((volume) => volume.spec?.claimRef?.namespace === sandbox);
    expect(volumes).toEqual([]);
  });

  it('the report lists what each transform did, object by object, and the Pod Security level', () => {
    const applied = report.spec.transforms!.applied.map((entry) => `${entry.transform} ${entry.kind} ${entry.name}: ${entry.change}`);
    console.log(`[observe] transforms in the report:\n  ${applied.join('\n  ')}`);
    expect(applied).toEqual(
      expect.arrayContaining([
        `exclude-host-routes Ingress ${SIDE_EFFECTS.ingress}: not restored`,
        `exclude-network-policies NetworkPolicy ${SIDE_EFFECTS.networkPolicy}: not restored`,
        `hold-jobs Job ${SIDE_EFFECTS.job}: not restored`,
        `suspend-cronjobs CronJob ${SIDE_EFFECTS.cronJob}: spec.suspend set to true`,
        expect.stringMatching(new RegExp(`^services-cluster-ip Service ${SIDE_EFFECTS.loadBalancer}: type LoadBalancer made ClusterIP`)),
        expect.stringMatching(new RegExp(`^services-cluster-ip Service ${SIDE_EFFECTS.nodePort}: type NodePort made ClusterIP`)),
        expect.stringMatching(new RegExp(`^hold-jobs Pod ${SIDE_EFFECTS.jobPod}: held by scheduling gate`)),
        expect.stringMatching(new RegExp(`^unbind-claims PersistentVolumeClaim ${production.claim}: spec\\.volumeName`)),
      ]),
    );
    expect(report.spec.transforms!.applied.every((entry) => entry.namespace === fixture.source || entry.namespace === '*')).toBe(true);
    // Excluded on purpose, so not counted against completeness.
    expect(report.spec.completeness.map((entry) => entry.kind)).not.toContain('Ingress');
    expect(report.spec.completeness.map((entry) => entry.kind)).not.toContain('NetworkPolicy');
    expect(report.spec.podSecurity).toEqual({ floor: 'baseline', namespaces: [{ source: fixture.source, level: 'baseline' }] });
  });

  it('the sandbox carried its Pod Security labels from its creation, before the Restore existed (audit log)', async () => {
    const namespace = await fixture.admin.makeApiClient(CoreV1Api).readNamespace({ name: sandbox });
    expect(namespace.metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/enforce-version': 'latest',
      'pod-security.kubernetes.io/warn': 'baseline',
      'pod-security.kubernetes.io/audit': 'baseline',
    });
    const logPath = auditLogPath();
    if (!logPath) return;
    const events = writesIn(readAuditEvents(logPath, suiteStarted));
    const at = (predicate: (event: (typeof events)[number]) => boolean) => events.filter(predicate).map((event) => Date.parse(event.stageTimestamp));
    const [created] = at((event) => event.verb === 'create' && event.objectRef?.resource === 'namespaces' && event.objectRef.name === sandbox);
    const [restoreCreated] = at((event) => event.verb === 'create' && event.objectRef?.resource === 'restores' && event.objectRef.name === report.spec.restore!.name);
    expect(created).toBeLessThan(restoreCreated!);
    // Nobody (Rehearsal, Velero) changed the namespace before the Restore: the labels came with its creation.
    const changed = at(
      (event) => ['update', 'patch'].includes(event.verb) && event.objectRef?.resource === 'namespaces' && event.objectRef.name === sandbox && !event.objectRef.subresource,
    );
    expect(changed.filter((time) => time < restoreCreated!)).toEqual([]);
  });

  it('a privileged Pod is refused in the sandbox by the apiserver itself', async () => {
    const refused = await fixture.admin
      .makeApiClient(CoreV1Api)
      .createNamespacedPod({
        namespace: sandbox,
        body: {
          metadata: { name: 'privileged' },
          spec: { containers: [{ name: 'c', image: 'example/root:1', securityContext: { privileged: true } }] },
        },
      })
      .then(
        () => 'admitted',
        (error: unknown) => `${(error as { code?: number }).code} ${String((error as { body?: unknown }).body)}`,
      );
    expect(refused).toMatch(/^403 .*violates PodSecurity \\?"baseline:latest\\?": privileged/);
  });

  it('neither Rehearsal nor Velero wrote outside the sandbox and their own objects (audit log)', async () => {
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    const isSandbox = (namespace: string) => namespace === sandbox || (namespace.startsWith('rehearsal-') && namespace !== 'rehearsal-system');
    const rehearsalWrites = writes.filter((event) => event.user.username === REHEARSAL_USER);
    expect(unsafeWrites(rehearsalWrites, { isSource: (namespace) => namespace === fixture.source, isSandbox, ownNamespace: 'rehearsal-system' })).toEqual([]);
    // The resource modifiers: created before the Restore, deleted with it, both by Rehearsal (a
    // repeated step answers 409 or 404, as the Restore's own create and delete do).
    const configMapWrites = rehearsalWrites.filter(
      (event) =>
        event.objectRef?.resource === 'configmaps' &&
        event.objectRef.name?.endsWith('-transforms') &&
        (event.responseStatus?.code ?? 0) < 300,
    );
    expect(configMapWrites.map((event) => [event.verb, event.objectRef?.namespace])).toEqual([
      ['create', fixture.veleroNamespace],
      ['delete', fixture.veleroNamespace],
    ]);
    const veleroWrites = writes.filter((event) => event.user.username === fixture.realVelero!.user);
    const outside = veleroWrites.filter((event) => {
      const ref = event.objectRef ?? {};
      if (!ref.namespace) return !(ref.resource === 'namespaces' && isSandbox(ref.name ?? ''));
      return ref.namespace !== fixture.veleroNamespace && !isSandbox(ref.namespace);
    });
    expect(outside.map((event) => `${event.verb} ${event.requestURI}`)).toEqual([]);
  });
});

describe('without unbind-claims (removed by an administrator)', () => {
  it('Velero restores the claim still naming production\'s volume: it cannot bind, and production is untouched', async () => {
    const name = uniqueTestName('rtx-keepvol');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        restore: { removeDefaults: ['unbind-claims'] },
        healthChecks: {
          checks: [{ name: 'keep-sandbox', kind: 'resourceExists', resourceExists: { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-in-the-backup' } }],
        },
      }),
    );
    await trigger(fixture, name);
    const [report] = (await waitForReports(fixture, name, 1, 240_000)) as [RestoreReport];
    expect(report.spec.transforms?.removedDefaults).toEqual(['unbind-claims']);
    const sandbox = report.spec.sandboxNamespaces[0]!;
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: sandbox, name: production.claim });
    // What the default exists for: the copy points at production's volume (Velero's own PVC action
    // already removed the binding annotations), which is bound elsewhere, so the claim stays Pending.
    expect(claim.spec?.volumeName).toBe(production.volume);
    expect(claim.metadata?.annotations?.['pv.kubernetes.io/bind-completed']).toBeUndefined();
    expect(claim.status?.phase).toBe('Pending');
    const after = await readProductionVolume(fixture.admin, fixture.source, production);
    expect(after.volume.spec?.claimRef).toMatchObject({ namespace: fixture.source, name: production.claim, uid: productionBefore.claim.metadata?.uid });
    expect(after.volume.metadata?.resourceVersion).toBe(productionBefore.volume.metadata?.resourceVersion);
  });
});
