// podsReady: the pods selected in the sandbox have the Ready condition True.
//
// - minReady set: at least that many selected pods are Ready.
// - minReady unset: every selected pod is Ready, and at least one pod is selected (a selector that
//   matches nothing is a failure: the restore did not bring back what the check expects). The
//   default check (origin "default", empty selector) skips instead when the sandbox has no pods.
// - Pods in phase Succeeded (finished Job pods) are never Ready by design and are left out.

import type { CheckExecutor } from './check.js';
import { describeError, error, fail, isOutcome, pass, requireBlock, skip } from './check.js';
import type { PodSummary } from './sandbox-reader.js';
import { toLabelSelector } from './sandbox-reader.js';

const LISTED_NAMES = 5;

function describeNotReady(pods: readonly PodSummary[]): string {
  const shown = pods.slice(0, LISTED_NAMES).map((pod) => `${pod.name} (${pod.phase || 'Unknown'})`);
  const more = pods.length > LISTED_NAMES ? ` and ${pods.length - LISTED_NAMES} more` : '';
  return `${shown.join(', ')}${more}`;
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
    .filter((pod) => pod.phase !== 'Succeeded')
    .sort((a, b) => a.name.localeCompare(b.name));
  const ready = considered.filter((pod) => pod.ready);
  const notReady = considered.filter((pod) => !pod.ready);
  const counts = `${ready.length}/${considered.length} pods Ready ${scope}`;

  if (minReady !== undefined) {
    if (ready.length >= minReady) return pass(`${counts} (need ${minReady})`);
    const detail = notReady.length > 0 ? `; not Ready: ${describeNotReady(notReady)}` : '';
    return fail(`${counts}, need at least ${minReady}${detail}`);
  }
  if (considered.length === 0) {
    return check.origin === 'default' ? skip(`no pods ${scope}`) : fail(`no pods ${scope}`);
  }
  if (notReady.length === 0) return pass(counts);
  return fail(`${counts}; not Ready: ${describeNotReady(notReady)}`);
};
