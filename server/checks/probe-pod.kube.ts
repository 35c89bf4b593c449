// A short-lived pod in a sandbox, run to its end (the file check's, decision 0020): a leftover of
// the same name (a server restart mid-check) is deleted first; the pod is created, followed until it
// finishes or is stuck in a state it will not leave by itself, its log read (bounded), and it is
// always deleted. Part of KubeSandboxReader's contract (SandboxReader.runProbePod), kept apart
// because it is the one thing there that writes.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { PROBE_LOG_LIMIT, SandboxReadError, type ProbePodManifest, type ProbePodOutcome } from './sandbox-reader.js';
import { toSandboxReadError } from './sandbox-read-error.kube.js';
import { abortableSleep } from './check.js';

/** Waiting reasons after which a probe pod will not start by itself. */
const STUCK_REASONS = new Set([
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);
const PROBE_POLL_MS = 500;

export async function runProbePod(core: CoreV1Api, manifest: ProbePodManifest, signal: AbortSignal): Promise<ProbePodOutcome> {
  const { namespace, name } = manifest.metadata;
  const action = `pod ${namespace}/${name}`;
  // A pod of this name left by an earlier attempt (the server restarted mid-check): gone first.
  if (await deletePod(core, namespace, name)) {
    while (!signal.aborted) {
      const left = await core.readNamespacedPod({ namespace, name }).catch((thrown: unknown) => {
        const mapped = toSandboxReadError(thrown, `read ${action}`);
        if (mapped.reason === 'NotFound') return undefined;
        throw mapped;
      });
      if (!left) break;
      await abortableSleep(PROBE_POLL_MS, signal);
    }
  }
  if (signal.aborted) throw new SandboxReadError('Timeout', `${action}: aborted`);
  await core.createNamespacedPod({ namespace, body: manifest as unknown as V1Pod }).catch((thrown: unknown) => {
    throw toSandboxReadError(thrown, `create ${action}`);
  });
  try {
    for (;;) {
      if (signal.aborted) throw new SandboxReadError('Timeout', `${action}: aborted`);
      const pod = await core.readNamespacedPod({ namespace, name }).catch((thrown: unknown) => {
        throw toSandboxReadError(thrown, `read ${action}`);
      });
      const phase = pod.status?.phase;
      const state = pod.status?.containerStatuses?.[0]?.state;
      if (phase === 'Succeeded' || phase === 'Failed') {
        const terminated = state?.terminated;
        const reason = pod.status?.reason ?? terminated?.reason;
        return {
          phase,
          ...(terminated ? { exitCode: terminated.exitCode } : {}),
          ...(reason ? { reason } : {}),
          log: await probeLog(core, namespace, name, pod.spec?.containers?.[0]?.name ?? ''),
        };
      }
      const waiting = state?.waiting;
      if (waiting?.reason && STUCK_REASONS.has(waiting.reason)) {
        const detail = (waiting.message ?? '').slice(0, 200);
        return { phase: 'Stuck', reason: detail ? `${waiting.reason}: ${detail}` : waiting.reason, log: '' };
      }
      await abortableSleep(PROBE_POLL_MS, signal);
    }
  } finally {
    await deletePod(core, namespace, name).catch(() => false);
  }
}

/** The first PROBE_LOG_LIMIT bytes of a finished probe pod's log ('' when there is none). */
async function probeLog(core: CoreV1Api, namespace: string, name: string, container: string): Promise<string> {
  const log = await core
    .readNamespacedPodLog({ namespace, name, container, limitBytes: PROBE_LOG_LIMIT })
    .catch((thrown: unknown) => {
      throw toSandboxReadError(thrown, `read the log of pod ${namespace}/${name}`);
    });
  return Buffer.from(String(log ?? ''), 'utf8').subarray(0, PROBE_LOG_LIMIT).toString('utf8');
}

/** Deletes a pod at once; false when there was none. */
async function deletePod(core: CoreV1Api, namespace: string, name: string): Promise<boolean> {
  try {
    await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });
    return true;
  } catch (thrown) {
    const mapped = toSandboxReadError(thrown, `delete pod ${namespace}/${name}`);
    if (mapped.reason === 'NotFound') return false;
    throw mapped;
  }
}
