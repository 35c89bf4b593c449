// Coverage in compliance evidence (issue 16): a namespace the backup tool backs up but no passing
// restore test covers is data whose recoverability nobody has shown. Every restore-testing control
// names those namespaces as a gap, and a control cannot be `satisfied` while there are any: the
// evidence would otherwise speak only for the namespaces someone chose to test.
import type { ControlStatus } from '../read-models/views.js';

/** Names listed in the sentence; the rest are counted (the coverage endpoint lists them all). */
const NAMES_LISTED = 10;

export function coverageGapClause(untested: readonly string[]): string {
  const names = [...untested].sort();
  const shown = names.slice(0, NAMES_LISTED).join(', ');
  const more = names.length > NAMES_LISTED ? ` and ${names.length - NAMES_LISTED} more` : '';
  const noun = names.length === 1 ? 'namespace is not restore-tested within its' : 'namespaces are not restore-tested within their';
  return ` Gap: ${names.length} backed-up ${noun} window: ${shown}${more}.`;
}

export function withCoverageGap<T extends { status: ControlStatus; evidence: string }>(
  control: T,
  untested: readonly string[],
): T {
  if (untested.length === 0) return control;
  return {
    ...control,
    status: control.status === 'satisfied' ? 'at_risk' : control.status,
    evidence: `${control.evidence}${coverageGapClause(untested)}`,
  };
}
