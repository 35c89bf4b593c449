// The restore-a-subset flags of `create` and `update` (issue 32): --selector in kubectl's label
// selector syntax and --include-resource by kubectl's short type names, turned into the API's
// labelSelector and includedResources. The server checks keys, values and bounds.
import type { CreateTestInput } from '../api.js';
import { UsageError } from '../errors.js';

type LabelSelectorInput = NonNullable<CreateTestInput['labelSelector']>;
type Requirement = NonNullable<LabelSelectorInput['matchExpressions']>[number];

/** Splits at the commas outside parentheses: "a=b,c in (d,e)" → ["a=b", "c in (d,e)"]. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += char;
  }
  terms.push(current);
  return terms.map((term) => term.trim());
}

/**
 * A label selector in kubectl's syntax: key=value (or ==), key!=value, key in (a,b),
 * key notin (a,b), key (exists), !key (does not exist). The server checks the keys and values.
 */
export function parseSelector(text: string): LabelSelectorInput {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Requirement[] = [];
  const bad = (term: string) =>
    new UsageError(`invalid --selector "${text}": cannot read "${term}" (use key=value, key!=value, key in (a,b), key notin (a,b), key or !key)`);
  const terms = splitTerms(text);
  if (terms.every((term) => term === '')) throw new UsageError('invalid --selector "": give at least one requirement, e.g. app=web');
  for (const term of terms) {
    if (term === '') throw bad(term);
    const set = /^([^\s=!(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
    if (set) {
      const values = set[3]!.split(',').map((value) => value.trim());
      if (values.some((value) => value === '')) throw bad(term);
      matchExpressions.push({ key: set[1]!, operator: set[2] === 'in' ? 'In' : 'NotIn', values });
      continue;
    }
    const notEqual = /^([^\s=!(),]+)\s*!=\s*([^\s=!(),]*)$/.exec(term);
    if (notEqual) {
      matchExpressions.push({ key: notEqual[1]!, operator: 'NotIn', values: [notEqual[2]!] });
      continue;
    }
    const equal = /^([^\s=!(),]+)\s*==?\s*([^\s=!(),]*)$/.exec(term);
    if (equal) {
      if (equal[1]! in matchLabels && matchLabels[equal[1]!] !== equal[2]!) throw bad(term);
      matchLabels[equal[1]!] = equal[2]!;
      continue;
    }
    const absent = /^!\s*([^\s=!(),]+)$/.exec(term);
    if (absent) {
      matchExpressions.push({ key: absent[1]!, operator: 'DoesNotExist' });
      continue;
    }
    if (/^[^\s=!(),]+$/.test(term)) {
      matchExpressions.push({ key: term, operator: 'Exists' });
      continue;
    }
    throw bad(term);
  }
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}

// The namespaced built-in types --include-resource names as resource[.group] (kubectl's short
// form); any other type is given in full (group, version, kind, resource) with -f.
const BUILT_IN_TYPES: Record<string, { group?: string; version: string; kind: string }> = {
  configmaps: { version: 'v1', kind: 'ConfigMap' },
  endpoints: { version: 'v1', kind: 'Endpoints' },
  limitranges: { version: 'v1', kind: 'LimitRange' },
  persistentvolumeclaims: { version: 'v1', kind: 'PersistentVolumeClaim' },
  pods: { version: 'v1', kind: 'Pod' },
  replicationcontrollers: { version: 'v1', kind: 'ReplicationController' },
  resourcequotas: { version: 'v1', kind: 'ResourceQuota' },
  secrets: { version: 'v1', kind: 'Secret' },
  serviceaccounts: { version: 'v1', kind: 'ServiceAccount' },
  services: { version: 'v1', kind: 'Service' },
  'controllerrevisions.apps': { group: 'apps', version: 'v1', kind: 'ControllerRevision' },
  'daemonsets.apps': { group: 'apps', version: 'v1', kind: 'DaemonSet' },
  'deployments.apps': { group: 'apps', version: 'v1', kind: 'Deployment' },
  'replicasets.apps': { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
  'statefulsets.apps': { group: 'apps', version: 'v1', kind: 'StatefulSet' },
  'horizontalpodautoscalers.autoscaling': { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
  'cronjobs.batch': { group: 'batch', version: 'v1', kind: 'CronJob' },
  'jobs.batch': { group: 'batch', version: 'v1', kind: 'Job' },
  'endpointslices.discovery.k8s.io': { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' },
  'ingresses.networking.k8s.io': { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
  'networkpolicies.networking.k8s.io': { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy' },
  'poddisruptionbudgets.policy': { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' },
  'rolebindings.rbac.authorization.k8s.io': { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' },
  'roles.rbac.authorization.k8s.io': { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
};

/** A built-in type by kubectl's short name: deployments.apps, services. */
export function parseResourceType(name: string): NonNullable<CreateTestInput['includedResources']>[number] {
  const type = BUILT_IN_TYPES[name];
  if (!type) {
    throw new UsageError(
      `unknown --include-resource "${name}": use a built-in type such as deployments.apps or services, or give includedResources (group, version, kind, resource) with -f`,
    );
  }
  const resource = name.split('.')[0]!;
  return { ...(type.group ? { group: type.group } : {}), version: type.version, kind: type.kind, resource };
}
