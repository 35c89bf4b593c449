// Deleting a sandbox namespace, the one way the engine and the administrators' orphan removal
// both do it: only a namespace visibly Rehearsal's, only the very one whose UID the caller
// recorded, and only after what it provisioned outside itself is recorded (sandbox-volumes.ts).
import type { CoreV1Api, V1Namespace } from '@kubernetes/client-node';
import { isKind, kubeCall } from '../../kube/errors.js';
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE } from '../../domain/resources/resources.js';

/** Writes the record of a sandbox's cluster-scoped volumes (SandboxVolumes.record); never throws. */
export interface SandboxVolumeRecorder {
  record(namespace: V1Namespace): Promise<void>;
}

/**
 * Deletes a sandbox namespace: only one labelled as Rehearsal's and, when the caller knows the
 * UID it recorded, only that very namespace (a UID precondition, so a namespace re-created under
 * the same name in between is not deleted either). The engine and the administrators' orphan
 * removal both delete through here. First, the PVs and snapshot contents it provisioned are
 * recorded (issue 27): they outlive it, and the janitor removes them by that record.
 */
export async function deleteSandbox(
  core: Pick<CoreV1Api, 'readNamespace' | 'deleteNamespace'>,
  sandbox: string,
  expectedUid?: string,
  volumes?: SandboxVolumeRecorder,
): Promise<void> {
  try {
    // Refuse to delete anything that is not visibly ours, whatever the caller believes.
    const namespace = await kubeCall(() => core.readNamespace({ name: sandbox }));
    if (namespace.metadata?.labels?.[LABEL_MANAGED_BY] !== MANAGED_BY_VALUE) {
      throw new Error(`refusing to delete namespace ${sandbox}: it is not a Rehearsal sandbox`);
    }
    const uid = namespace.metadata?.uid;
    if (expectedUid !== undefined && uid !== expectedUid) {
      throw new Error(`refusing to delete namespace ${sandbox}: uid ${uid} is not the recorded ${expectedUid}`);
    }
    // Also when already terminating: an earlier attempt may have failed to record (AlreadyExists is fine).
    await volumes?.record(namespace);
    if (namespace.metadata?.deletionTimestamp) return;
    await kubeCall(() =>
      core.deleteNamespace({
        name: sandbox,
        propagationPolicy: 'Background',
        ...(uid ? { body: { preconditions: { uid } } } : {}),
      }),
    );
  } catch (error) {
    if (!isKind(error, 'NotFound')) throw error;
  }
}
