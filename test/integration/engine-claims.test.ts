// Issue 27 on the real control plane: a restored PersistentVolumeClaim that can never bind fails
// the run early, naming the claim and what the real PV controller (kube-controller-manager) said
// about it. The shop's source namespace gets a claim with storageClassName "" that no
// PersistentVolume matches, and a Deployment mounting it; its restored Pod stays Pending. Without
// the rule the run would wait podReadyTimeoutSeconds (600 s here, as in production) and validate
// anyway; with claimBindTimeoutSeconds at 3 s it ends `fail` VolumeNotBound within seconds, and
// nothing cluster-scoped (no PersistentVolume) is created to make the claim bind.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RunDiagnosis } from '../../server/domain/diagnosis/diagnosis.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn } from '../helpers/audit.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(200_000);

const CLAIM_BIND_TIMEOUT_SECONDS = 3;
const POD_READY_TIMEOUT_SECONDS = 600;
/** The PV controller's words (pv_controller.go, syncUnboundClaim), written as a Normal FailedBinding. */
const NO_VOLUME = 'no persistent volumes available for this claim and no storage class is set';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let backup: string;
const suiteStarted = new Date();
const sandboxes: string[] = [];

beforeAll(async () => {
  fixture = await createEngineFixture('claims');
  // The shop with a volume that can never bind: an explicit storageClassName "" asks for a
  // pre-provisioned PersistentVolume, and there is none.
  await fixture.admin.makeApiClient(CoreV1Api).createNamespacedPersistentVolumeClaim({
    namespace: fixture.source,
    body: {
      metadata: { name: 'data' },
      spec: { storageClassName: '', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await fixture.admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: fixture.source,
    body: {
      metadata: { name: 'files', labels: { app: 'files' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'files' } },
        template: {
          metadata: { labels: { app: 'files' } },
          spec: {
            containers: [{ name: 'files', image: 'example/shop-files:1.0', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
          },
        },
      },
    },
  });
  backup = `${fixture.backup}-with-volume`;
  await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source], veleroNamespace: fixture.veleroNamespace });
  rehearsal = await startInProcess(
    {
      kubeconfigPath: await rehearsalKubeconfig('engine-claims.kubeconfig'),
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      extra: { REHEARSAL_DIAGNOSTICS_LOGS: 'false' },
    },
    { claimBindTimeoutSeconds: CLAIM_BIND_TIMEOUT_SECONDS, podReadyTimeoutSeconds: POD_READY_TIMEOUT_SECONDS },
  );
}, 150_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  // A failed run's sandbox is kept until its ttl; this suite's server is gone, so it goes here.
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ...sandboxes]);
});

describe('a restored claim that cannot bind', () => {
  let name: string;
  let report: RestoreReport;
  let wallSeconds: number;

  beforeAll(async () => {
    name = uniqueTestName('unbound');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        healthChecks: { checks: shopChecks() },
      }),
    );
    const triggeredAt = Date.now();
    await trigger(fixture, name);
    [report] = (await waitForReports(fixture, name, 1, 150_000)) as [RestoreReport];
    wallSeconds = (Date.now() - triggeredAt) / 1000;
    sandboxes.push(...report.spec.sandboxNamespaces);
  }, 180_000);

  it('fails the run VolumeNotBound, naming the claim and the PV controller\'s reason, long before the pod timeout', async () => {
    const [sandbox] = report.spec.sandboxNamespaces;
    expect(report.spec.result).toBe('fail');
    expect(report.spec.failure?.reason).toBe('VolumeNotBound');
    expect(report.spec.failure?.message).toMatch(
      new RegExp(`^PersistentVolumeClaim ${sandbox}/data was not bound after \\d+s: FailedBinding: ${NO_VOLUME}$`),
    );
    console.log(`[measure] VolumeNotBound after ${wallSeconds.toFixed(1)} s (trigger → report); ${report.spec.failure?.message}`);
    // Not the pod timeout's answer: seconds, not ten minutes (generous for a loaded 2-core machine).
    expect(wallSeconds).toBeLessThan(120);
    expect(report.spec.checks).toEqual([]);
    // The restore itself succeeded; the report still counts the pods, the claim's one not Ready.
    const podStartup = report.spec.levels.find((level) => level.name === 'podStartup')!;
    expect(podStartup.detail).toMatch(/^\d+\/\d+ pods ready$/);
    expect(podStartup.points).toBeLessThan(20);
    const test = await getRestoreTest(fixture, name);
    expect(test.status?.phase).toBe('Failed');
    expect(test.status?.lastResult).toBe('fail');
  });

  it('keeps the claim Pending: nothing cluster-scoped was created to bind it (no PersistentVolume)', async () => {
    const [sandbox] = report.spec.sandboxNamespaces;
    const core = fixture.admin.makeApiClient(CoreV1Api);
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace: sandbox!, name: 'data' });
    expect(claim.status?.phase).toBe('Pending');
    expect(claim.spec?.volumeName).toBeUndefined();
    const volumes = await core.listPersistentVolume();
    expect(volumes.items.filter((volume) => volume.spec?.claimRef?.namespace === sandbox)).toEqual([]);
    const logPath = auditLogPath();
    if (!logPath) {
      console.warn('no audit log for this cluster (not the local binaries): audit assertions skipped');
      return;
    }
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    // No volume was created (by anyone) while this file ran. Only creates: the PV controller still
    // updates the status of an earlier file's volumes as their claims go with their namespaces.
    const created = writes.filter((event) => event.objectRef?.resource === 'persistentvolumes' && event.verb === 'create');
    expect(created.map((event) => `${event.user.username} ${event.verb} ${event.requestURI}`)).toEqual([]);
    const offending = unsafeWrites(
      writes.filter((event) => event.user.username === REHEARSAL_USER),
      {
        isSource: (namespace) => namespace === fixture.source,
        isSandbox: (namespace) => sandboxes.includes(namespace) || namespace.startsWith('rehearsal-'),
        ownNamespace: 'rehearsal-system',
      },
    );
    expect(offending.map((event) => `${event.verb} ${event.requestURI}`)).toEqual([]);
  });

  it('is diagnosed with a hint on the Pending claim', async () => {
    const [sandbox] = report.spec.sandboxNamespaces;
    const diagnosis = await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/tests/${name}/diagnosis?namespace=${fixture.testNamespace}`);
        return response.status === 200 ? ((await response.json()) as RunDiagnosis) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the diagnosis of the failed run' },
    );
    expect(diagnosis.claims).toContainEqual({ namespace: sandbox, name: 'data', phase: 'Pending' });
    const hint = diagnosis.hints.find((candidate) => candidate.code === 'pvc-pending' && candidate.objects.includes(`PersistentVolumeClaim/${sandbox}/data`));
    expect(hint).toBeDefined();
  });
});
