// The admission door of health-check-policy-permissions.ts (decision 0018): the
// ValidatingAdmissionPolicy that refuses a HealthCheckPolicy whose author may not `get secrets` in
// every namespace its spec.sourceNamespaces lists. Rendered with the RestoreTest policy into
// deploy/base/restoretest-admission.yaml (`npm run admission:generate`). One expression per index,
// for the cost budget explained in restore-admission-policy.ts.
import { RESTORE_TEST_GROUP } from './restore-permissions.js';
import { MAX_SOURCE_NAMESPACES } from '../run/sandbox-names.js';

export const POLICY_ADMISSION_NAME = 'rehearsal-healthcheckpolicy-author';
export const HEALTH_CHECK_POLICY_RESOURCE = 'healthcheckpolicies';

const celString = (expression: string): string => `'"' + ${expression} + '"'`;

function sourceValidation(index: number): Record<string, unknown> {
  const source = `variables.sources[${index}]`;
  return {
    expression: `size(variables.sources) <= ${index} || authorizer.group('').resource('secrets').namespace(${source}).check('get').allowed()`,
    messageExpression:
      `'cannot get secrets in namespace ' + ${celString(source)} + ` +
      `' (the checks of the policy may read the restored copy of namespace ' + ${celString(source)} + ')'`,
    reason: 'Forbidden',
  };
}

/** The policy and its binding. Nobody is exempt: the server never writes HealthCheckPolicies. */
export function healthCheckPolicyAdmission(): Record<string, unknown>[] {
  const labels = { 'app.kubernetes.io/name': 'rehearsal' };
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: POLICY_ADMISSION_NAME, labels },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [RESTORE_TEST_GROUP],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: [HEALTH_CHECK_POLICY_RESOURCE],
          },
        ],
      },
      matchConditions: [
        { name: 'spec-written', expression: "request.operation == 'CREATE' || object.spec != oldObject.spec" },
      ],
      variables: [
        { name: 'sources', expression: 'has(object.spec.sourceNamespaces) ? object.spec.sourceNamespaces : []' },
      ],
      validations: [
        {
          expression: `size(variables.sources) <= ${MAX_SOURCE_NAMESPACES}`,
          message: `a HealthCheckPolicy lists at most ${MAX_SOURCE_NAMESPACES} source namespaces`,
          reason: 'Invalid',
        },
        ...Array.from({ length: MAX_SOURCE_NAMESPACES }, (_unused, index) => sourceValidation(index)),
      ],
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: POLICY_ADMISSION_NAME, labels },
    spec: { policyName: POLICY_ADMISSION_NAME, validationActions: ['Deny'] },
  };
  return [policy, binding];
}
