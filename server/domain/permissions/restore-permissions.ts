// Who may write a RestoreTest that does what (decision 0009). Writing a RestoreTest is not
// permission to read another namespace's data: a restore copies the source namespace, Secrets
// included, into a sandbox where the author's checks run. So the author needs, besides the right
// to write the RestoreTest itself:
//   - `get secrets` in every source namespace;
//   - the custom verb `administer` on restoretests.rehearsal.dev in the test's namespace when the
//     test names a providerNamespace other than the installation's (another backup installation),
//     sets networkIsolation: none (restored data could leave the sandbox), removes a default
//     restore transform, lowers the sandboxes' Pod Security floor below the installation's, or
//     patches a kind a default transform changes (or RBAC objects) (issue 28: the restored copy
//     could act on the world, or be looser than its source);
// and every sandbox ttl is at most the installation's cap (default 168h).
//
// This one pure function states the rule. Both doors use it: the API asks a SubjectAccessReview
// per requirement (tests.service), and the ValidatingAdmissionPolicy in deploy/base is rendered
// from the same constants (restore-admission-policy.ts); an integration test runs one table of
// cases through both and compares them with this function.
import { parseDuration } from '../common/duration.js';
import type { PodSecurityLevel, RestoreTestSpec } from '../resources/resources.js';
import { DEFAULT_POD_SECURITY_FLOOR, isLooser } from '../run/pod-security.js';
import { patchNeedsAdmin } from '../run/restore-transforms.js';

export const ADMIN_VERB = 'administer';
export const RESTORE_TEST_GROUP = 'rehearsal.dev';
export const RESTORE_TEST_RESOURCE = 'restoretests';
export const DEFAULT_MAX_SANDBOX_TTL = '168h';
/** The sandbox ttl when a spec has none, for the cap check (the built-in default; a cluster default above the cap is capped at run time). */
export const DEFAULT_SANDBOX_TTL = '1h';

export interface RestoreAdmissionSettings {
  /** The installation's provider namespace (e.g. velero): naming any other one is admin-only. */
  providerNamespace: string;
  /** The longest sandbox ttl anyone may set, in seconds. */
  maxSandboxTtlSeconds: number;
  /** The installation's Pod Security floor (default baseline): a test asking for less is admin-only. */
  podSecurityFloor?: PodSecurityLevel;
}

/** One permission the author must hold, with why (for the message that names it). */
export interface RequiredPermission {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  because: string;
}

export interface RestoreRuleOutcome {
  permissions: RequiredPermission[];
  /** Field problems that no permission lifts (the ttl cap). */
  invalid: { field: string; message: string }[];
}

type RuleSpec = Pick<RestoreTestSpec, 'backupSource' | 'sandbox' | 'restore'>;

/** What writing `spec` into `testNamespace` requires of its author. */
export function restoreRequirements(
  testNamespace: string,
  spec: RuleSpec,
  settings: RestoreAdmissionSettings,
): RestoreRuleOutcome {
  const permissions: RequiredPermission[] = [];
  for (const { name } of spec.backupSource?.namespaces ?? []) {
    permissions.push({
      verb: 'get',
      group: '',
      resource: 'secrets',
      namespace: name,
      because: `the restore copies namespace "${name}", its Secrets included`,
    });
  }
  const adminReasons: string[] = [];
  const providerNamespace = spec.backupSource?.providerNamespace;
  if (providerNamespace !== undefined && providerNamespace !== settings.providerNamespace) {
    adminReasons.push(
      `providerNamespace "${providerNamespace}" is not the installation provider namespace "${settings.providerNamespace}"`,
    );
  }
  if (spec.sandbox?.networkIsolation === 'none') adminReasons.push('networkIsolation "none" lets restored data leave the sandbox');
  const removed = spec.restore?.removeDefaults ?? [];
  if (removed.length > 0) {
    adminReasons.push(`removeDefaults ${removed.map((id) => `"${id}"`).join(', ')} lets the restored copy act on the world`);
  }
  const floor = settings.podSecurityFloor ?? DEFAULT_POD_SECURITY_FLOOR;
  const podSecurity = spec.restore?.podSecurity;
  if (podSecurity !== undefined && isLooser(podSecurity, floor)) {
    adminReasons.push(`podSecurity "${podSecurity}" is below the installation floor "${floor}"`);
  }
  for (const patch of spec.restore?.patches ?? []) {
    const why = patchNeedsAdmin(patch);
    if (why) adminReasons.push(why);
  }
  if (adminReasons.length > 0) {
    permissions.push({
      verb: ADMIN_VERB,
      group: RESTORE_TEST_GROUP,
      resource: RESTORE_TEST_RESOURCE,
      namespace: testNamespace,
      because: adminReasons.join('; '),
    });
  }
  const invalid: RestoreRuleOutcome['invalid'] = [];
  const ttl = spec.sandbox?.ttl ?? DEFAULT_SANDBOX_TTL;
  const seconds = parseDuration(ttl);
  if (seconds === null || seconds > settings.maxSandboxTtlSeconds) {
    invalid.push({ field: 'ttl', message: `must be at most ${formatCap(settings.maxSandboxTtlSeconds)} (the installation cap)` });
  }
  return { permissions, invalid };
}

/** `cannot get secrets in namespace "team-b" (the restore copies ...)`: the message both doors give. */
export function describeMissing(permission: RequiredPermission): string {
  const resource = permission.group ? `${permission.resource}.${permission.group}` : permission.resource;
  return `cannot ${permission.verb} ${resource} in namespace "${permission.namespace}" (${permission.because})`;
}

function formatCap(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds}s`;
}
