// May this test's run start? (decision 0018) Admission checks who writes a RestoreTest and its
// HealthCheckPolicy; rights change afterwards, tests written before the rule have no recorded
// author, and a cluster whose admission policies were removed checks nobody. So before each run of
// a test restoring a namespace other than its own, the engine gathers these facts and this pure
// chain decides, failing closed: the first refusal wins, each with a reason and a message for the
// test's RunAllowed condition. A test restoring only its own namespace needs none of it.
import { ANNOTATION_AUTHOR, ANNOTATION_AUTHOR_GROUPS } from '../resources/resources.js';
import type { RequiredPermission } from './restore-permissions.js';
import { describeMissing } from './restore-permissions.js';
import { describeUncovered } from './health-check-policy-permissions.js';

export interface RecordedAuthor {
  username: string;
  groups: string[];
}

/** The author the admission door recorded in the test's annotations, if any. */
export function recordedAuthor(annotations: Readonly<Record<string, string>> | undefined): RecordedAuthor | undefined {
  const username = annotations?.[ANNOTATION_AUTHOR]?.trim();
  if (!username) return undefined;
  const groups = (annotations?.[ANNOTATION_AUTHOR_GROUPS] ?? '').split(',').map((group) => group.trim()).filter(Boolean);
  return { username, groups };
}

/** The annotations that record `author` (the API door writes them for its reviewed callers). */
export function authorAnnotations(author: RecordedAuthor): Record<string, string> {
  return { [ANNOTATION_AUTHOR]: author.username, [ANNOTATION_AUTHOR_GROUPS]: author.groups.join(',') };
}

/** What the SubjectAccessReviews said about the recorded author. */
export type AuthorFacts =
  | { state: 'not-recorded' }
  | { state: 'reviewed'; username: string; missing: RequiredPermission[] }
  /** The apiserver refused the reviews (an answer that is not a review; no answer at all is retried). */
  | { state: 'unavailable'; message: string };

export interface RunPermissionFacts {
  /** The test's source namespaces other than its own (foreignSources). */
  foreignSources: string[];
  /** The installation's admission policies or bindings that are not in the cluster. */
  missingAdmission: string[];
  /** The HealthCheckPolicy the test names, when it exists, and the foreign sources it does not list. */
  policy?: { name: string; uncovered: string[] };
  /** Gathered only when the facts above leave the decision to the author (decideWithoutAuthor). */
  author?: AuthorFacts;
}

export type RunPermissionReason =
  | 'SourcesInOwnNamespace'
  | 'AuthorAllowed'
  | 'AdmissionPoliciesMissing'
  | 'HealthCheckPolicyNotAllowed'
  | 'NoRecordedAuthor'
  | 'AuthorLacksRights'
  | 'AuthorCheckFailed';

export interface RunPermission {
  allowed: boolean;
  reason: RunPermissionReason;
  message: string;
}

const quoted = (names: readonly string[]): string => names.map((name) => `"${name}"`).join(', ');

/** The decision the facts other than the author already make; undefined = review the author. */
export function decideWithoutAuthor(facts: Omit<RunPermissionFacts, 'author'>): RunPermission | undefined {
  const sources = quoted(facts.foreignSources);
  if (facts.foreignSources.length === 0) {
    return { allowed: true, reason: 'SourcesInOwnNamespace', message: 'the test restores only its own namespace' };
  }
  if (facts.missingAdmission.length > 0) {
    return {
      allowed: false,
      reason: 'AdmissionPoliciesMissing',
      message:
        `the admission policies that check who may restore another namespace are not installed (missing: ${facts.missingAdmission.join(', ')}); ` +
        `tests restoring ${sources} do not run until an administrator restores them (deploy/base/restoretest-admission.yaml)`,
    };
  }
  if (facts.policy && facts.policy.uncovered.length > 0) {
    return { allowed: false, reason: 'HealthCheckPolicyNotAllowed', message: describeUncovered(facts.policy.name, facts.policy.uncovered) };
  }
  return undefined;
}

export function decideRunPermission(facts: RunPermissionFacts): RunPermission {
  const early = decideWithoutAuthor(facts);
  if (early) return early;
  const sources = quoted(facts.foreignSources);
  const author = facts.author ?? { state: 'not-recorded' };
  switch (author.state) {
    case 'not-recorded':
      return {
        allowed: false,
        reason: 'NoRecordedAuthor',
        message:
          `the test restores ${sources} but records no author (annotation rehearsal.dev/author; written before decision 0018, ` +
          'or by a writer the admission policy did not see): re-apply it as someone allowed to restore those namespaces',
      };
    case 'unavailable':
      return { allowed: false, reason: 'AuthorCheckFailed', message: `the author's rights could not be reviewed: ${author.message}` };
    case 'reviewed':
      if (author.missing.length > 0) {
        return {
          allowed: false,
          reason: 'AuthorLacksRights',
          message: `the author "${author.username}" ${author.missing.map(describeMissing).join('; and ')}`,
        };
      }
      return { allowed: true, reason: 'AuthorAllowed', message: `the author "${author.username}" may restore ${sources}` };
  }
}
