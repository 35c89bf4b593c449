// podsReady: the pods selected in the sandbox have the Ready condition True.
//
// - minReady set: at least that many selected pods are Ready.
// - minReady unset: every selected pod is Ready, and at least one pod is selected (a selector that
//   matches nothing is a failure: the restore did not bring back what the check expects). The
//   default check (origin "default", empty selector) skips instead when the sandbox has no pods.
// - Pods in phase Succeeded (finished Job pods) are never Ready by design and are left out, and so
//   are Pods the restore transforms hold on purpose (restored Pods of a Job: docs/restore-transforms.md).
// - Pods that were never created count too: when a controller in the sandbox could not create its
//   Pods because Pod Security refused them (the sandbox is never looser than its source), the
//   check fails naming the profile and the refused controller, instead of counting only the Pods
//   that exist (or skipping a sandbox that has none). A configured check with a selector that is
//   satisfied is not failed by another workload's refusal; a failing one says it as the reason.

import type { CheckExecutor } from './check.js';
import { describeError, error, fail, isOutcome, pass, requireBlock, skip } from './check.js';
import type { PodCreateFailure, PodSummary, SandboxReader } from './sandbox-reader.js';
import { toLabelSelector } from './sandbox-reader.js';

const LISTED_NAMES = 5;

function describeNotReady(pods: readonly PodSummary[]): string {
  const shown = pods.slice(0, LISTED_NAMES).map((pod) => `${pod.name} (${pod.phase || 'Unknown'})`);
  const more = pods.length > LISTED_NAMES ? ` and ${pods.length - LISTED_NAMES} more` : '';
  return `${shown.join(', ')}${more}`;
}

/** The apiserver's PodSecurity refusal, e.g. `violates PodSecurity "baseline:latest": privileged (...)`. */
const POD_SECURITY_REFUSAL = /violates PodSecurity "([a-z]+)(?::[^"]*)?"/;

/** Pod creations Pod Security refused in the sandbox, newest first (none when the reader cannot tell). */
async function podSecurityRefusals(reader: SandboxReader, namespace: string): Promise<PodCreateFailure[]> {
  if (!reader.listPodCreateFailures) return [];
  try {
    return (await reader.listPodCreateFailures(namespace)).filter((failure) => POD_SECURITY_REFUSAL.test(failure.message));
  } catch {
    return []; // the count of Pods still decides; the reason is a bonus
  }
}

/** `Pod Security "baseline" refused the Pods of ReplicaSet/web-5d8f (…the apiserver's words…)`. */
export function describeRefusals(refusals: readonly PodCreateFailure[]): string {
  const byObject = new Map<string, PodCreateFailure>();
  for (const refusal of refusals) if (!byObject.has(refusal.object)) byObject.set(refusal.object, refusal);
  const first = [...byObject.values()][0]!;
  const profile = POD_SECURITY_REFUSAL.exec(first.message)?.[1] ?? 'the sandbox profile';
  const objects = [...byObject.keys()];
  const shown = objects.slice(0, LISTED_NAMES).join(', ');
  const more = objects.length > LISTED_NAMES ? ` and ${objects.length - LISTED_NAMES} more` : '';
  const detail = first.message.slice(first.message.indexOf('violates PodSecurity'));
  return `Pod Security "${profile}" refused the Pods of ${shown}${more} (${detail})`;
}

export const runPodsReadyCheck: CheckExecutor = async (check, context) => {
  const spec = requireBlock(check, 'podsReady');
  if (isOutcome(spec)) return spec;
  const { minReady } = spec;
  if (minReady !== undefined && (!Number.isInteger(minReady) || minReady < 0)) {
    return error(`minReady must be a non-negative integer, got ${String(minReady)}`);
  }
  const selector = toLabelSelector(spec.selector);
  const scope = `in ${context.namespace}${selector ? ` with selector ${selector}` : ''}`;

  let pods: PodSummary[];
  try {
    pods = await context.reader.listPods(context.namespace, spec.selector);
  } catch (thrown) {
    return error(`cannot list pods ${scope}: ${describeError(thrown)}`);
  }

  const considered = pods
    .filter((pod) => pod.phase !== 'Succeeded' && !pod.held)
    .sort((a, b) => a.name.localeCompare(b.name));
  const ready = considered.filter((pod) => pod.ready);
  const notReady = considered.filter((pod) => !pod.ready);
  const counts = `${ready.length}/${considered.length} pods Ready ${scope}`;
  const refusals = await podSecurityRefusals(context.reader, context.namespace);
  const refused = refusals.length > 0 ? `; ${describeRefusals(refusals)}` : '';

  if (minReady !== undefined) {
    if (ready.length >= minReady) return pass(`${counts} (need ${minReady})`);
    const detail = notReady.length > 0 ? `; not Ready: ${describeNotReady(notReady)}` : '';
    return fail(`${counts}, need at least ${minReady}${detail}${refused}`);
  }
  if (considered.length === 0) {
    if (refused) return fail(`no pods ${scope}${refused}`);
    return check.origin === 'default' ? skip(`no pods ${scope}`) : fail(`no pods ${scope}`);
  }
  // The default check speaks for every workload of the sandbox: Pods refused anywhere fail it.
  if (refused && (check.origin === 'default' || notReady.length > 0)) {
    const detail = notReady.length > 0 ? `; not Ready: ${describeNotReady(notReady)}` : '';
    return fail(`${counts}${detail}${refused}`);
  }
  if (notReady.length === 0) return pass(counts);
  return fail(`${counts}; not Ready: ${describeNotReady(notReady)}`);
};
