// The one line a RestoreReport carries about its health checks (issue 30), e.g.
// "4/5 passed; failed: orders-rows". It is a field kubectl shows (a printer column and in
// `kubectl get rrep -o yaml`), so an auditor with only kubectl can tell which checks failed without
// expanding spec.details. Its length is bounded whatever the number of checks: a report with 200
// failed checks lists as many names as fit and then "+N more", and etcd keeps a short string.
import type { CheckResult } from '../resources/resources.js';

/** The most characters a summary has (the CRD's maxLength of spec.checkSummary is larger). */
export const MAX_CHECK_SUMMARY_LENGTH = 160;

/** What a run without any check result says (a failed restore never gets to the checks). */
export const NO_CHECKS_SUMMARY = 'no checks ran';

/**
 * "<passed>/<total> passed", then "; failed: <names>" for checks that failed or errored (an error
 * is a check that could not prove the data is there: to an auditor, not passed), an errored one
 * marked "(error)", then "; <n> skipped". Names are listed in the report's order while they fit;
 * the rest are counted as "+N more".
 */
export function summarizeChecks(checks: readonly CheckResult[]): string {
  if (checks.length === 0) return NO_CHECKS_SUMMARY;
  const passed = checks.filter((check) => check.status === 'pass').length;
  const failed = checks.filter((check) => check.status === 'fail' || check.status === 'error');
  const skipped = checks.filter((check) => check.status === 'skip').length;
  const head = `${passed}/${checks.length} passed`;
  const tail = skipped > 0 ? `; ${skipped} skipped` : '';
  if (failed.length === 0) return head + tail;
  const names = failed.map((check) => (check.status === 'error' ? `${check.name} (error)` : check.name));
  return `${head}; failed: ${namesWithin(names, MAX_CHECK_SUMMARY_LENGTH - head.length - tail.length - '; failed: '.length)}${tail}`;
}

/** "a, b, c", or as many names as fit in `room` characters followed by " +N more". */
function namesWithin(names: readonly string[], room: number): string {
  const all = names.join(', ');
  if (all.length <= room) return all;
  let listed = '';
  let count = 0;
  for (const name of names) {
    const candidate = count === 0 ? name : `${listed}, ${name}`;
    // Keep room for the longest "+N more" this list could end with.
    if (candidate.length + ` +${names.length - count - 1} more`.length > room) break;
    listed = candidate;
    count += 1;
  }
  const more = `+${names.length - count} more`;
  return count === 0 ? more : `${listed} ${more}`;
}
