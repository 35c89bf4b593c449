// The admission door of restore-permissions.ts: the ValidatingAdmissionPolicy (CEL `authorizer`)
// that refuses a RestoreTest whose author lacks what restoreRequirements() asks for. Rendered from
// the same constants into deploy/base/restoretest-admission.yaml (`npm run admission:generate`;
// a unit test fails when the committed file differs).
//
// Why one validation per source index instead of `namespaces.all(...)`: kube-apiserver prices an
// authorizer check at 350,000 cost units, allows 1,000,000 per expression (two checks) and
// 10,000,000 per policy evaluation. One check per expression and at most MAX_SOURCE_NAMESPACES
// (20) sources keeps the worst case (20 + 1 admin check) under the budget.
import {
  ADMIN_VERB,
  DEFAULT_SANDBOX_TTL,
  RESTORE_TEST_GROUP,
  RESTORE_TEST_RESOURCE,
} from './restore-permissions.js';
import { MAX_SOURCE_NAMESPACES } from '../run/sandbox-names.js';
import { adminOnlyPatchKinds, RBAC_PATCH_GROUP } from '../run/restore-transforms.js';
import { DEFAULT_POD_SECURITY_FLOOR } from '../run/pod-security.js';
import { ANNOTATION_AUTHOR, ANNOTATION_AUTHOR_GROUPS, POD_SECURITY_LEVELS } from '../resources/resources.js';

export const ADMISSION_POLICY_NAME = 'rehearsal-restoretest-author';
/** ConfigMap (in the server's namespace) with the policy's parameters; the Deployment reads it too. */
export const ADMISSION_PARAMS_NAME = 'rehearsal-admission';

export interface AdmissionPolicyOptions {
  /** The namespace of the installation (its ServiceAccount and the parameter ConfigMap). */
  namespace: string;
  serviceAccount: string;
}

const quote = (text: string): string => `'${text}'`;
// A CEL string literal of a JS string that contains no quote or backslash (all ours are constants).
const celString = (expression: string): string => `'"' + ${expression} + '"'`;

function sourceValidation(index: number): Record<string, unknown> {
  const source = `variables.sources[${index}]`;
  return {
    expression: `size(variables.sources) <= ${index} || authorizer.group('').resource('secrets').namespace(${source}).check('get').allowed()`,
    messageExpression:
      `'cannot get secrets in namespace ' + ${celString(source)} + ` +
      `' (the restore copies namespace ' + ${celString(source)} + ', its Secrets included)'`,
    reason: 'Forbidden',
  };
}

const ADMIN_RESOURCE = `${RESTORE_TEST_RESOURCE}.${RESTORE_TEST_GROUP}`;

function adminMessage(because: string): string {
  return `'cannot ${ADMIN_VERB} ${ADMIN_RESOURCE} in namespace ' + ${celString('request.namespace')} + ' (' + ${because} + ')'`;
}

/** `{'privileged': 0, 'baseline': 1, 'restricted': 2}`: Pod Security levels ranked, as a CEL map. */
/** A CEL expression: the annotation `key` of `object` (object or oldObject), '' when absent. */
const annotationOf = (object: string, key: string): string =>
  `has(${object}.metadata.annotations) && '${key}' in ${object}.metadata.annotations ? ${object}.metadata.annotations['${key}'] : ''`;

const LEVEL_RANK = `{${POD_SECURITY_LEVELS.map((level, index) => `'${level}': ${index}`).join(', ')}}`;
const KINDS_ONLY_ADMINS_PATCH = `[${adminOnlyPatchKinds().map((key) => `'${key}'`).join(', ')}]`;

export function restoreAdmissionPolicy(options: AdmissionPolicyOptions): Record<string, unknown>[] {
  const serverUser = `system:serviceaccount:${options.namespace}:${options.serviceAccount}`;
  const labels = { 'app.kubernetes.io/name': 'rehearsal' };
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: ADMISSION_POLICY_NAME, labels },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [RESTORE_TEST_GROUP],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: [RESTORE_TEST_RESOURCE],
          },
        ],
      },
      matchConditions: [
        // The API writes RestoreTests for its callers after the same checks as SubjectAccessReviews
        // for the caller (tests.service); here it would be judged by its own rights instead.
        { name: 'not-the-rehearsal-api', expression: `request.userInfo.username != ${quote(serverUser)}` },
        // Metadata-only updates (labels, the trigger annotation) change nothing about what is restored;
        // the recorded author (decision 0018) is what the engine re-checks before each run.
        {
          name: 'spec-or-author-written',
          expression:
            "request.operation == 'CREATE' || object.spec != oldObject.spec || " +
            `(${annotationOf('object', ANNOTATION_AUTHOR)}) != (${annotationOf('oldObject', ANNOTATION_AUTHOR)}) || ` +
            `(${annotationOf('object', ANNOTATION_AUTHOR_GROUPS)}) != (${annotationOf('oldObject', ANNOTATION_AUTHOR_GROUPS)})`,
        },
      ],
      variables: [
        {
          name: 'sources',
          expression:
            'has(object.spec.backupSource) && has(object.spec.backupSource.namespaces) ? object.spec.backupSource.namespaces.map(n, n.name) : []',
        },
        {
          name: 'isAdmin',
          expression: `authorizer.group('${RESTORE_TEST_GROUP}').resource('${RESTORE_TEST_RESOURCE}').namespace(request.namespace).check('${ADMIN_VERB}').allowed()`,
        },
        {
          name: 'restore',
          expression: 'has(object.spec.restore) ? object.spec.restore : {}',
        },
        {
          name: 'podSecurityFloor',
          expression: `'podSecurityFloor' in params.data ? params.data.podSecurityFloor : '${DEFAULT_POD_SECURITY_FLOOR}'`,
        },
        { name: 'author', expression: annotationOf('object', ANNOTATION_AUTHOR) },
        { name: 'authorGroups', expression: annotationOf('object', ANNOTATION_AUTHOR_GROUPS) },
        {
          name: 'ttl',
          expression: `has(object.spec.sandbox) && has(object.spec.sandbox.ttl) ? object.spec.sandbox.ttl : '${DEFAULT_SANDBOX_TTL}'`,
        },
      ],
      validations: [
        {
          expression: `size(variables.sources) <= ${MAX_SOURCE_NAMESPACES}`,
          message: `a RestoreTest restores at most ${MAX_SOURCE_NAMESPACES} source namespaces`,
          reason: 'Invalid',
        },
        ...Array.from({ length: MAX_SOURCE_NAMESPACES }, (_unused, index) => sourceValidation(index)),
        {
          expression:
            '!has(object.spec.backupSource) || !has(object.spec.backupSource.providerNamespace) || object.spec.backupSource.providerNamespace == params.data.providerNamespace || variables.isAdmin',
          messageExpression: adminMessage(
            `'providerNamespace ' + ${celString('object.spec.backupSource.providerNamespace')} + ' is not the installation provider namespace ' + ${celString('params.data.providerNamespace')}`,
          ),
          reason: 'Forbidden',
        },
        {
          expression:
            "!has(object.spec.sandbox) || !has(object.spec.sandbox.networkIsolation) || object.spec.sandbox.networkIsolation != 'none' || variables.isAdmin",
          messageExpression: adminMessage(`'networkIsolation "none" lets restored data leave the sandbox'`),
          reason: 'Forbidden',
        },
        // Issue 28: a default restore transform removed, the Pod Security floor lowered, or a patch
        // on a kind a default changes (or on RBAC objects) — each could let the copy act on the world.
        {
          expression: "!has(variables.restore.removeDefaults) || size(variables.restore.removeDefaults) == 0 || variables.isAdmin",
          messageExpression: adminMessage(`'removeDefaults ' + variables.restore.removeDefaults.map(d, '"' + d + '"').join(', ') + ' lets the restored copy act on the world'`),
          reason: 'Forbidden',
        },
        {
          expression: `!has(variables.restore.podSecurity) || ${LEVEL_RANK}[variables.restore.podSecurity] >= ${LEVEL_RANK}[variables.podSecurityFloor] || variables.isAdmin`,
          messageExpression: adminMessage(
            `'podSecurity ' + ${celString('variables.restore.podSecurity')} + ' is below the installation floor ' + ${celString('variables.podSecurityFloor')}`,
          ),
          reason: 'Forbidden',
        },
        {
          expression:
            `!has(variables.restore.patches) || variables.restore.patches.all(p, !((has(p.target.group) ? p.target.group : '') + '/' + p.target.kind in ${KINDS_ONLY_ADMINS_PATCH}) && ` +
            `!(has(p.target.group) && p.target.group == '${RBAC_PATCH_GROUP}')) || variables.isAdmin`,
          messageExpression: adminMessage(
            `'a patch changes ' + variables.restore.patches.filter(p, (has(p.target.group) ? p.target.group : '') + '/' + p.target.kind in ${KINDS_ONLY_ADMINS_PATCH} || (has(p.target.group) && p.target.group == '${RBAC_PATCH_GROUP}')).map(p, p.target.kind)[0] + ' objects, which a default transform changes or which grant access (it could undo the default or open the sandbox)'`,
          ),
          reason: 'Forbidden',
        },
        // Decision 0018: the recorded author is the writer (no one records someone else), and the
        // groups recorded are groups the writer holds (a subset: no right can be added).
        {
          expression: "variables.author == '' || variables.author == request.userInfo.username",
          messageExpression:
            `'annotation ${ANNOTATION_AUTHOR} must be the user who writes the test (' + ${celString('request.userInfo.username')} + '), or absent'`,
          reason: 'Forbidden',
        },
        {
          expression: "variables.authorGroups == '' || variables.authorGroups.split(',').all(g, g.trim() == '' || g.trim() in request.userInfo.groups)",
          message: `annotation ${ANNOTATION_AUTHOR_GROUPS} may list only groups the writer belongs to`,
          reason: 'Forbidden',
        },
        {
          expression: 'duration(variables.ttl) <= duration(params.data.maxSandboxTTL)',
          messageExpression: `'spec.sandbox.ttl: must be at most ' + params.data.maxSandboxTTL + ' (the installation cap)'`,
          reason: 'Invalid',
        },
      ],
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: ADMISSION_POLICY_NAME, labels },
    spec: {
      policyName: ADMISSION_POLICY_NAME,
      validationActions: ['Deny'],
      paramRef: { name: ADMISSION_PARAMS_NAME, namespace: options.namespace, parameterNotFoundAction: 'Deny' },
    },
  };
  return [policy, binding];
}
