// Who may change the checks that read a restored namespace (decision 0018). A HealthCheckPolicy's
// checks run against the sandboxes of every test that names it, and what they read (a SQL value, a
// command's exit code) ends up in that test's report. So the policy states which source namespaces'
// restored copies it may read (spec.sourceNamespaces), its author needs `get secrets` in each (the
// right decision 0009 asks of whoever restores them), and a test uses it only when every source
// namespace other than the test's own is listed. The admission policy cannot look up the tests that
// name a policy, nor the policy a test names; the list in the policy is what both sides can see.
//
// Both doors use policyRequirements: the ValidatingAdmissionPolicy rehearsal-healthcheckpolicy-author
// (health-check-policy-admission.ts) and, for the policy a test names, the API and the engine use
// uncoveredSources.
import type { HealthCheckPolicySpec, RestoreTestSpec } from '../resources/resources.js';
import type { RequiredPermission } from './restore-permissions.js';

/** What writing a policy with `spec` requires of its author. */
export function policyRequirements(spec: Pick<HealthCheckPolicySpec, 'sourceNamespaces'>): RequiredPermission[] {
  return (spec.sourceNamespaces ?? []).map((namespace) => ({
    verb: 'get',
    group: '',
    resource: 'secrets',
    namespace,
    because: `the checks of the policy may read the restored copy of namespace "${namespace}"`,
  }));
}

/** The source namespaces of a test other than its own namespace (where its author's rights matter). */
export function foreignSources(testNamespace: string, spec: Pick<RestoreTestSpec, 'backupSource'>): string[] {
  const names = (spec.backupSource?.namespaces ?? []).map((source) => source.name);
  return [...new Set(names)].filter((name) => name !== testNamespace);
}

/** The foreign sources of a test that `policy` does not list: empty = the test may use it. */
export function uncoveredSources(
  testNamespace: string,
  spec: Pick<RestoreTestSpec, 'backupSource'>,
  policy: Pick<HealthCheckPolicySpec, 'sourceNamespaces'>,
): string[] {
  const listed = new Set(policy.sourceNamespaces ?? []);
  return foreignSources(testNamespace, spec).filter((name) => !listed.has(name));
}

/** `HealthCheckPolicy "x" does not list source namespace "team-b" in spec.sourceNamespaces`. */
export function describeUncovered(policyName: string, uncovered: readonly string[]): string {
  const names = uncovered.map((name) => `"${name}"`).join(', ');
  return (
    `HealthCheckPolicy "${policyName}" does not list source namespace${uncovered.length > 1 ? 's' : ''} ${names} ` +
    'in spec.sourceNamespaces (decision 0018: only someone who may get secrets there may list them)'
  );
}
