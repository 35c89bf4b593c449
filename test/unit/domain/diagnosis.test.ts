// Failure triage: each remediation hint from the sandbox state that causes it, and the size bound.
import { describe, expect, it } from '@jest/globals';
import type { HintCode } from '../../../server/domain/diagnosis/hints.js';
import { bound, diagnose, MAX_DIAGNOSIS_BYTES } from '../../../server/domain/diagnosis/diagnosis.js';
import { MAX_LOG_BYTES_PER_RUN } from '../../../server/domain/diagnosis/log-bounds.js';
import type { ObservedContainer, ObservedPod, SandboxObservation } from '../../../server/domain/diagnosis/observation.js';

const SANDBOX = 'rehearsal-shop-x1y2z';

function observation(partial: Partial<SandboxObservation>): SandboxObservation {
  return {
    sandboxes: [{ source: 'shop', sandbox: SANDBOX }],
    pods: [],
    events: [],
    claims: [],
    externalNames: [],
    missingPullSecrets: [],
    logs: [],
    storageClasses: ['standard'],
    ...partial,
  };
}

function pod(container: Partial<ObservedContainer>, extra: Partial<ObservedPod> = {}): ObservedPod {
  return {
    namespace: SANDBOX,
    name: 'web-1',
    phase: 'Pending',
    ready: false,
    containers: [{ name: 'web', ready: false, restartCount: 0, state: 'waiting', ...container }],
    imagePullSecrets: [],
    ...extra,
  };
}

const QUOTA = { namespace: SANDBOX, name: 'rehearsal-sandbox-storage', hard: { 'requests.storage': '1Gi', persistentvolumeclaims: '20' }, used: { 'requests.storage': '512Mi', persistentvolumeclaims: '1' } };

const CASES: [string, SandboxObservation, HintCode[]][] = [
  [
    'ImagePullBackOff with a pull Secret that was not restored',
    observation({ pods: [pod({ reason: 'ImagePullBackOff' }, { imagePullSecrets: ['regcred'] })], missingPullSecrets: [`${SANDBOX}/regcred`] }),
    ['image-pull-secret-missing'],
  ],
  ['ErrImagePull, no pull Secret involved', observation({ pods: [pod({ reason: 'ErrImagePull' })] }), ['image-pull-failed']],
  ['CrashLoopBackOff', observation({ pods: [pod({ reason: 'CrashLoopBackOff', restartCount: 5 }, { phase: 'Running' })] }), ['crash-loop']],
  [
    'OOMKilled (restarting: the last termination)',
    observation({ pods: [pod({ reason: 'CrashLoopBackOff', lastTerminationReason: 'OOMKilled' }, { phase: 'Running' })] }),
    ['oom-killed'],
  ],
  ['OOMKilled (terminated now)', observation({ pods: [pod({ state: 'terminated', reason: 'OOMKilled', exitCode: 137 })] }), ['oom-killed']],
  [
    'CreateContainerConfigError: a Secret excluded from the backup',
    observation({ pods: [pod({ reason: 'CreateContainerConfigError', message: 'secret "db-credentials" not found' })] }),
    ['secret-missing'],
  ],
  [
    'FailedMount of a ConfigMap',
    observation({
      events: [{ namespace: SANDBOX, reason: 'FailedMount', message: 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found', object: 'Pod/web-1', count: 4, lastSeen: '2026-03-15T11:00:00Z' }],
    }),
    ['configmap-missing'],
  ],
  [
    'Pending: Insufficient cpu',
    observation({ pods: [pod({}, { containers: [], unscheduled: { reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' } })] }),
    ['unschedulable-resources'],
  ],
  [
    'Pending: node selector',
    observation({
      pods: [pod({}, { containers: [], unscheduled: { reason: 'Unschedulable', message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." } })],
    }),
    ['unschedulable-placement'],
  ],
  [
    'PVC with a StorageClass of the source cluster',
    observation({ claims: [{ namespace: SANDBOX, name: 'data', phase: 'Pending', storageClass: 'gold-ssd' }] }),
    ['storage-class-missing'],
  ],
  ['PVC pending for another reason', observation({ claims: [{ namespace: SANDBOX, name: 'data', phase: 'Pending', storageClass: 'standard' }] }), ['pvc-pending']],
  [
    'ResourceQuota exceeded',
    observation({
      events: [{ namespace: SANDBOX, reason: 'FailedCreate', message: 'Error creating: pods "web-2" is forbidden: exceeded quota: sandbox, requested: pods=1, used: pods=2, limited: pods=2', object: 'ReplicaSet/web-5d9', count: 9, lastSeen: '2026-03-15T11:00:00Z' }],
    }),
    ['quota-exceeded'],
  ],
  [
    'Claims missing from the restore, a sandbox storage quota (issue 27): refused by it',
    observation({ missingClaims: 1, storageQuotas: [QUOTA] }),
    ['storage-quota-exceeded'],
  ],
  ['Claims missing, but no storage quota read: no quota hint', observation({ missingClaims: 1 }), []],
  ['A storage quota, every claim restored: no hint', observation({ missingClaims: 0, storageQuotas: [QUOTA] }), []],
  [
    'A controller\'s claim refused by the sandbox storage quota (event), not the test\'s own quota',
    observation({
      events: [{ namespace: SANDBOX, reason: 'FailedCreate', message: 'create Claim data-db-0 for Pod db-0 in StatefulSet db failed error: persistentvolumeclaims "data-db-0" is forbidden: exceeded quota: rehearsal-sandbox-storage, requested: requests.storage=5Gi, used: requests.storage=0, limited: requests.storage=1Gi', object: 'StatefulSet/db', count: 3, lastSeen: '2026-03-15T11:00:00Z' }],
    }),
    ['storage-quota-exceeded'],
  ],
  [
    'Pods refused by the sandbox\'s Pod Security profile (never looser than the source)',
    observation({
      events: [{ namespace: SANDBOX, reason: 'FailedCreate', message: 'Error creating: pods "agent-5d9-x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "agent" must not set securityContext.privileged=true)', object: 'ReplicaSet/agent-5d9', count: 12, lastSeen: '2026-03-15T11:00:00Z' }],
    }),
    ['pod-security-refused'],
  ],
  [
    'ExternalName into a namespace the test does not restore',
    observation({ externalNames: [{ namespace: SANDBOX, name: 'db', externalName: 'postgres.payments-db.svc.cluster.local' }] }),
    ['externalname-unrestored'],
  ],
  [
    'ExternalName into the production source namespace',
    observation({ externalNames: [{ namespace: SANDBOX, name: 'cache', externalName: 'redis.shop.svc.cluster.local' }] }),
    ['externalname-to-source'],
  ],
  [
    'ExternalName outside the cluster, or into the sandbox: no hint',
    observation({
      externalNames: [
        { namespace: SANDBOX, name: 'api', externalName: 'api.example.com' },
        { namespace: SANDBOX, name: 'self', externalName: `web.${SANDBOX}.svc.cluster.local` },
      ],
    }),
    [],
  ],
];

const context = { test: { name: 'shop', namespace: 'team-a' }, runId: 'x1y2z', report: 'shop-x1y2z', result: 'fail', collectedAt: new Date('2026-03-15T12:00:00Z') };

describe('remediation hints', () => {
  it.each(CASES)('%s', (_name, observed, codes) => {
    const diagnosis = diagnose(observed, context);
    expect(diagnosis.hints.map((hint) => hint.code)).toEqual(codes);
    for (const hint of diagnosis.hints) {
      expect(hint.objects.length).toBeGreaterThan(0);
      expect(hint.remediation.length).toBeGreaterThan(40);
    }
  });

  it('names the storage quota, its limits and the settings that raise it', () => {
    const [hint] = diagnose(observation({ missingClaims: 2, storageQuotas: [QUOTA] }), context).hints;
    expect(hint).toMatchObject({
      code: 'storage-quota-exceeded',
      title: 'PersistentVolumeClaims were refused by the sandbox storage quota rehearsal-sandbox-storage',
      objects: [`ResourceQuota/${SANDBOX}/rehearsal-sandbox-storage`],
    });
    expect(hint!.remediation).toContain('2 PersistentVolumeClaims of the backup are not in the sandbox');
    expect(hint!.remediation).toContain('(requests.storage 1Gi, persistentvolumeclaims 20 per sandbox)');
    expect(hint!.remediation).toContain('"exceeded quota: rehearsal-sandbox-storage"');
    expect(hint!.remediation).toContain('REHEARSAL_SANDBOX_STORAGE_QUOTA / REHEARSAL_SANDBOX_CLAIM_QUOTA');
  });

  it('names the missing Secret and every object showing the same cause once', () => {
    const observed = observation({
      pods: [
        pod({ reason: 'CreateContainerConfigError', message: 'secret "db-credentials" not found' }),
        pod({ reason: 'CreateContainerConfigError', message: 'secret "db-credentials" not found' }, { name: 'web-2' }),
      ],
    });
    const [hint] = diagnose(observed, context).hints;
    expect(hint!.title).toBe('Secret db-credentials is missing in the sandbox');
    expect(hint!.objects).toEqual([
      `Pod/${SANDBOX}/web-1 (Secret ${SANDBOX}/db-credentials)`,
      `Pod/${SANDBOX}/web-2 (Secret ${SANDBOX}/db-credentials)`,
    ]);
  });
});

describe('size bound', () => {
  it('keeps the logs within their own bound and the whole within MAX_DIAGNOSIS_BYTES, newest lines kept', () => {
    const noisy = observation({
      pods: Array.from({ length: 30 }, (_, index) => pod({ reason: 'CrashLoopBackOff', message: 'x'.repeat(2_000) }, { name: `web-${index}` })),
      events: Array.from({ length: 60 }, (_, index) => ({ namespace: SANDBOX, reason: 'BackOff', message: 'y'.repeat(1_000), object: `Pod/web-${index}`, count: 1, lastSeen: '2026-03-15T11:00:00Z' })),
      logs: Array.from({ length: 10 }, (_, index) => ({
        namespace: SANDBOX,
        pod: `web-${index}`,
        container: 'web',
        lines: Array.from({ length: 100 }, (_, line) => `${String(line).padStart(3, '0')} ${'z'.repeat(500)}`),
      })),
    });
    const diagnosis = diagnose(noisy, context);
    const bytes = new TextEncoder().encode(JSON.stringify(diagnosis)).length;
    expect(bytes).toBeLessThanOrEqual(MAX_DIAGNOSIS_BYTES);
    expect(diagnosis.truncated).toBe(true);
    expect(diagnosis.hints.map((hint) => hint.code)).toEqual(['crash-loop']);
    const logBytes = diagnosis.logs.reduce((sum, log) => sum + log.lines.reduce((lines, line) => lines + line.length + 1, 0), 0);
    expect(logBytes).toBeLessThanOrEqual(MAX_LOG_BYTES_PER_RUN);
    expect(diagnosis.logs.filter((log) => log.lines.length > 0).length).toBeGreaterThan(1);
    for (const log of diagnosis.logs) {
      // What is kept is the end of the log (a log past the run's bound keeps none of its lines,
      // but stays to say so), and the reader is told how much is missing.
      if (log.lines.length > 0) expect(log.lines.at(-1)!.startsWith('099 ')).toBe(true);
      expect(log.truncated).toBe(true);
      expect(log.omittedLines).toBe(100 - log.lines.length);
    }
    expect(diagnosis.pods.length).toBeGreaterThan(0);
    expect(diagnosis.pods[0]!.containers[0]!.message!.length).toBeLessThanOrEqual(500);
  });

  it('bound() cuts log lines (oldest first) before it drops events, and events before pods', () => {
    const full = diagnose(
      observation({
        pods: Array.from({ length: 5 }, (_, index) => pod({ reason: 'CrashLoopBackOff' }, { name: `web-${index}` })),
        events: Array.from({ length: 10 }, (_, index) => ({ namespace: SANDBOX, reason: 'BackOff', message: 'y'.repeat(200), object: `Pod/web-${index}`, count: 1, lastSeen: '' })),
        logs: [{ namespace: SANDBOX, pod: 'web-0', container: 'web', lines: Array.from({ length: 40 }, (_, line) => `line ${line} ${'z'.repeat(100)}`) }],
      }),
      context,
    );
    const withoutLogs = { ...full, logs: [] };
    const roomForSomeLines = new TextEncoder().encode(JSON.stringify(withoutLogs)).length + 2_000;
    const cut = bound(full, roomForSomeLines);
    expect(cut.events).toHaveLength(10);
    expect(cut.logs).toHaveLength(1);
    expect(cut.logs[0]!.lines.length).toBeLessThan(40);
    expect(cut.logs[0]!.lines.at(-1)).toContain('line 39 ');
    expect(cut.logs[0]!.omittedLines).toBe(40 - cut.logs[0]!.lines.length);
    const tight = bound(full, new TextEncoder().encode(JSON.stringify(withoutLogs)).length - 500);
    expect(tight.logs).toEqual([]);
    expect(tight.events.length).toBeLessThan(10);
    expect(tight.pods).toHaveLength(5);
  });

  it('leaves a small diagnosis untouched', () => {
    const small = diagnose(observation({ pods: [pod({ reason: 'ErrImagePull' })] }), context);
    expect(bound(small, MAX_DIAGNOSIS_BYTES)).toEqual(small);
    expect(small.truncated).toBe(false);
  });
});
