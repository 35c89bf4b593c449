// Issue 27 on the real control plane (kube-apiserver's ResourceQuota admission, kube-controller-
// manager's resourcequota controller): what one run may provision is bounded. The server runs with
// a sandbox storage quota of 1Gi; the shop's source namespace holds a claim that fits (512Mi) and
// one that does not (5Gi). One run shows:
//  - its sandbox has ResourceQuota rehearsal-sandbox-storage with the configured limits, created by
//    Rehearsal and synced by kube-controller-manager before the Velero Restore was created (audit log);
//  - the simulator's create of the 5Gi claim is refused (403 exceeded quota), the restore ends
//    PartiallyFailed, the report counts the claim missing, the diagnosis names the quota; the
//    512Mi claim is restored; production's claims are untouched;
//  - Rehearsal wrote only in its sandboxes and its own objects (audit log).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RunDiagnosis } from '../../server/domain/diagnosis/diagnosis.js';
import type { RestoreReport } from '../../server/domain/resources/resources.js';
import { auditLogPath, readAuditEvents, unsafeWrites, writesIn, type AuditEvent } from '../helpers/audit.js';
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
import { REHEARSAL_USER, rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';
import { shopChecks } from '../helpers/sample-app.js';
import { createBackup } from '../velero/simulator.js';

jest.setTimeout(200_000);

const STORAGE_QUOTA = '1Gi';
const CLAIM_QUOTA = '20';
const QUOTA = 'rehearsal-sandbox-storage';

let fixture: EngineFixture;
let rehearsal: Rehearsal;
let backup: string;
let runStarted: Date;
const suiteStarted = new Date();
const sandboxes: string[] = [];
/** The source's claims as production has them before the run (name → resourceVersion). */
let productionClaims: Record<string, string>;

function claim(name: string, storage: string) {
  return {
    metadata: { name },
    spec: { storageClassName: '', accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  };
}

async function claimsOf(namespace: string): Promise<Record<string, string>> {
  const list = await fixture.admin.makeApiClient(CoreV1Api).listNamespacedPersistentVolumeClaim({ namespace });
  return Object.fromEntries(list.items.map((item) => [item.metadata?.name ?? '', item.metadata?.resourceVersion ?? '']));
}

beforeAll(async () => {
  fixture = await createEngineFixture('quota');
  const core = fixture.admin.makeApiClient(CoreV1Api);
  // Claims without a volume (storageClassName "": no provisioner); they stay Pending, in production
  // and in the sandbox. The quota counts requests, bound or not.
  await core.createNamespacedPersistentVolumeClaim({ namespace: fixture.source, body: claim('small', '512Mi') });
  await core.createNamespacedPersistentVolumeClaim({ namespace: fixture.source, body: claim('big', '5Gi') });
  productionClaims = await claimsOf(fixture.source);
  backup = `${fixture.backup}-with-claims`;
  await createBackup(fixture.admin, { name: backup, namespaces: [fixture.source], veleroNamespace: fixture.veleroNamespace });
  rehearsal = await startInProcess(
    {
      kubeconfigPath: await rehearsalKubeconfig('sandbox-storage-quota.kubeconfig'),
      veleroNamespace: fixture.veleroNamespace,
      probeTargets: fixture.endpoints.targets,
      extra: {
        REHEARSAL_DIAGNOSTICS_LOGS: 'false',
        REHEARSAL_SANDBOX_STORAGE_QUOTA: STORAGE_QUOTA,
        REHEARSAL_SANDBOX_CLAIM_QUOTA: CLAIM_QUOTA,
      },
    },
    // The 512Mi claim never binds (no volume): the run is not to fail VolumeNotBound for it here.
    { claimBindTimeoutSeconds: 600 },
  );
  runStarted = new Date();
}, 150_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  // A partial or failed run's sandbox is kept until its ttl; this suite's server is gone, so it goes here.
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace, ...sandboxes]);
});

describe('a run whose backup holds more storage than the sandbox storage quota allows', () => {
  let name: string;
  let report: RestoreReport;
  let sandbox: string;

  beforeAll(async () => {
    name = uniqueTestName('quota');
    await createRestoreTest(
      fixture,
      restoreTestBody(fixture, name, {
        backupSource: { backupName: backup, namespaces: [{ name: fixture.source }], providerNamespace: fixture.veleroNamespace },
        healthChecks: { checks: shopChecks() },
      }),
    );
    await trigger(fixture, name);
    [report] = (await waitForReports(fixture, name, 1, 150_000)) as [RestoreReport];
    sandboxes.push(...report.spec.sandboxNamespaces);
    sandbox = report.spec.sandboxNamespaces[0]!;
  }, 180_000);

  it('gave the sandbox its storage quota, labelled as Rehearsal\'s, with the configured limits, synced', async () => {
    const quota = await fixture.admin.makeApiClient(CoreV1Api).readNamespacedResourceQuota({ namespace: sandbox, name: QUOTA });
    expect(quota.metadata?.labels).toMatchObject({
      'rehearsal.dev/managed-by': 'rehearsal',
      'rehearsal.dev/test': name,
      'rehearsal.dev/test-namespace': fixture.testNamespace,
      'rehearsal.dev/run': report.spec.runId,
    });
    expect(quota.spec?.hard).toEqual({ 'requests.storage': STORAGE_QUOTA, persistentvolumeclaims: CLAIM_QUOTA });
    expect(quota.status?.hard).toEqual({ 'requests.storage': STORAGE_QUOTA, persistentvolumeclaims: CLAIM_QUOTA });
    // What was admitted: the 512Mi claim, one of 20.
    expect(quota.status?.used).toEqual({ 'requests.storage': '512Mi', persistentvolumeclaims: '1' });
  });

  it('created the quota, and kube-controller-manager synced it, before the Restore was created (audit log)', () => {
    const logPath = auditLogPath();
    if (!logPath) {
      console.warn('no audit log for this cluster (not the local binaries): audit assertions skipped');
      return;
    }
    const events = writesIn(readAuditEvents(logPath, runStarted));
    const at = (predicate: (event: AuditEvent) => boolean) => events.filter(predicate).map((event) => Date.parse(event.stageTimestamp));
    const quotaWrite = (event: AuditEvent) => event.objectRef?.resource === 'resourcequotas' && event.objectRef.namespace === sandbox;
    const [quotaCreated] = at(
      (event) => quotaWrite(event) && event.verb === 'create' && event.user.username === REHEARSAL_USER && (event.responseStatus?.code ?? 0) < 300,
    );
    // kube-controller-manager's resourcequota controller writes the first status (here it runs as
    // the test's admin user; system:apiserver's later status writes are admission counting claims).
    const [synced] = at(
      (event) =>
        quotaWrite(event) &&
        event.objectRef?.subresource === 'status' &&
        event.user.username !== REHEARSAL_USER &&
        event.user.username !== 'system:apiserver' &&
        (event.responseStatus?.code ?? 0) < 300,
    );
    const [restoreCreated] = at(
      (event) => event.verb === 'create' && event.objectRef?.resource === 'restores' && event.objectRef.name === report.spec.restore!.name,
    );
    expect(quotaCreated).toBeDefined();
    expect(synced).toBeDefined();
    expect(restoreCreated).toBeDefined();
    expect(quotaCreated!).toBeLessThanOrEqual(synced!);
    expect(synced!).toBeLessThan(restoreCreated!);
    // And nothing of the restore reached the sandbox before the quota: the first claim create comes after it.
    const [firstClaim] = at((event) => event.verb === 'create' && event.objectRef?.resource === 'persistentvolumeclaims' && event.objectRef.namespace === sandbox);
    expect(firstClaim!).toBeGreaterThan(synced!);
  });

  it('the 5Gi claim was refused in the sandbox (403 exceeded quota), the 512Mi one restored', async () => {
    expect(Object.keys(await claimsOf(sandbox)).sort()).toEqual(['small']);
    expect(fixture.veleroLog().join('\n')).toMatch(
      new RegExp(`could not create PersistentVolumeClaim ${sandbox}/big: .*exceeded quota: ${QUOTA}`),
    );
    const logPath = auditLogPath();
    if (!logPath) return;
    const claimCreates = writesIn(readAuditEvents(logPath, runStarted)).filter(
      (event) => event.verb === 'create' && event.objectRef?.resource === 'persistentvolumeclaims' && event.objectRef.namespace === sandbox,
    );
    expect(claimCreates.map((event) => event.responseStatus?.code).sort()).toEqual([201, 403]);
  });

  it('the report shows the restore PartiallyFailed and the claim missing', () => {
    console.log(`[measure] result ${report.spec.result}, score ${report.spec.score}, failure ${JSON.stringify(report.spec.failure)}`);
    expect(report.spec.result).not.toBe('pass');
    expect(report.spec.restore).toMatchObject({ phase: 'PartiallyFailed', errors: 1 });
    expect(report.spec.completeness).toContainEqual({ kind: 'PersistentVolumeClaim', backedUp: 2, restored: 1 });
    const completeness = report.spec.levels.find((level) => level.name === 'completeness');
    expect(completeness?.detail).toContain('incomplete: PersistentVolumeClaim 1/2');
  });

  it('is diagnosed with a hint naming the quota', async () => {
    const diagnosis = await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${rehearsal.port()}/api/v1/tests/${name}/diagnosis?namespace=${fixture.testNamespace}`);
        return response.status === 200 ? ((await response.json()) as RunDiagnosis) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the diagnosis of the run' },
    );
    const hint = diagnosis.hints.find((candidate) => candidate.code === 'storage-quota-exceeded');
    expect(hint?.objects).toEqual([`ResourceQuota/${sandbox}/${QUOTA}`]);
    expect(hint?.remediation).toContain(`(requests.storage ${STORAGE_QUOTA}, persistentvolumeclaims ${CLAIM_QUOTA} per sandbox)`);
    expect(hint?.remediation).toContain('1 PersistentVolumeClaim of the backup is not in the sandbox');
  });

  it('left production untouched, and Rehearsal wrote only in its sandboxes and its own objects (audit log)', async () => {
    expect(await claimsOf(fixture.source)).toEqual(productionClaims);
    const logPath = auditLogPath();
    if (!logPath) return;
    const writes = writesIn(readAuditEvents(logPath, suiteStarted));
    expect(
      writes
        .filter((event) => event.objectRef?.namespace === fixture.source && Date.parse(event.stageTimestamp) >= runStarted.getTime())
        .filter((event) => event.objectRef?.resource === 'persistentvolumeclaims' || event.objectRef?.resource === 'resourcequotas')
        .map((event) => `${event.user.username} ${event.verb} ${event.requestURI}`),
    ).toEqual([]);
    const offending = unsafeWrites(
      writes.filter((event) => event.user.username === REHEARSAL_USER),
      {
        isSource: (namespace) => namespace === fixture.source,
        isSandbox: (namespace) => sandboxes.includes(namespace) || (namespace.startsWith('rehearsal-') && namespace !== 'rehearsal-system'),
        ownNamespace: 'rehearsal-system',
      },
    );
    expect(offending.map((event) => `${event.verb} ${event.requestURI}`)).toEqual([]);
  });
});
