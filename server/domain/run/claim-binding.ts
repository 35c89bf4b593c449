// A restored PersistentVolumeClaim that cannot bind (issue 27): its StorageClass is missing, no
// volume matches a claim with storageClassName "", or (from Velero) spec.volumeName still names the
// production volume, bound to another claim. Left alone, the run waits for hours (the restore's
// file-system step) or until the pod timeout, and ends with an answer the user cannot act on. This
// rule finds such a claim early, from what the PV controller and the provisioners said about it.
//
// Only a failure someone reported counts: a claim waiting with Normal events alone
// (WaitForFirstConsumer, ExternalProvisioning) may be fine — the claim of a Job's held Pod stays
// WaitForFirstConsumer for ever, by design.
import { truncateText } from '../../../protocol/text.js';
import { formatDuration } from '../common/duration.js';
import type { ClaimObservation } from './run-observations.js';

/** Event reasons that say a claim is not being bound (pv_controller.go and the external provisioners). */
export const CLAIM_BINDING_FAILURES: ReadonlySet<string> = new Set(['FailedBinding', 'ProvisioningFailed', 'VolumeMismatch']);

/** The run's failure message stays within the CRDs' 1024 characters whatever the event said. */
const EVENT_MESSAGE_MAX = 512;
const FAILURE_MESSAGE_MAX = 1024;

export type ClaimVerdict =
  /** No claim of the run is failing to bind. */
  | { state: 'fine' }
  /** A claim failing to bind, not yet for longer than the bound: look again in `afterMs`. */
  | { state: 'failing'; afterMs: number }
  /** A claim was Pending longer than the bound after a binding failure: the run fails. */
  | { state: 'not-bound'; message: string };

/**
 * The claims' verdict: the first (oldest) claim that has been Pending for longer than
 * `timeoutSeconds` and whose latest warning is a binding failure fails the run.
 */
export function claimVerdict(claims: readonly ClaimObservation[] | undefined, timeoutSeconds: number, now: Date): ClaimVerdict {
  let nearest: number | undefined;
  const failing = (claims ?? [])
    .filter((claim) => claim.phase === 'Pending' && claim.lastWarning && CLAIM_BINDING_FAILURES.has(claim.lastWarning.reason))
    .filter((claim) => Number.isFinite(Date.parse(claim.createdAt)))
    .sort((left, right) => Date.parse(left.createdAt) - Date.parse(right.createdAt));
  for (const claim of failing) {
    const pendingMs = now.getTime() - Date.parse(claim.createdAt);
    const remainingMs = timeoutSeconds * 1000 - pendingMs;
    if (remainingMs < 0) return { state: 'not-bound', message: notBoundMessage(claim, pendingMs / 1000) };
    nearest = Math.min(nearest ?? remainingMs, remainingMs);
  }
  // One millisecond past the bound: the rule is "longer than", never "as long as".
  return nearest === undefined ? { state: 'fine' } : { state: 'failing', afterMs: nearest + 1 };
}

function notBoundMessage(claim: ClaimObservation, pendingSeconds: number): string {
  const warning = claim.lastWarning!;
  return truncateText(
    `PersistentVolumeClaim ${claim.namespace}/${claim.name} was not bound after ${formatDuration(pendingSeconds)}: ` +
      `${warning.reason}: ${truncateText(warning.message, EVENT_MESSAGE_MAX)}`,
    FAILURE_MESSAGE_MAX,
  );
}
