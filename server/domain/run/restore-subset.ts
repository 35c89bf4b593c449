// The part of a backup a run restores (issue 32): spec.backupSource.labelSelector and
// includedResources, resolved once for the providers (each passes it to its tool's own fields),
// the completeness comparison (objects outside the subset are not missing) and the report (which
// says the run restored a subset). Pure.
import { selectorString } from '../../../protocol/restore-subset-text.js';
import type { LabelSelector, RestoreTestSpec } from '../resources/resources.js';
import { resourceType, type ResourceType } from './restore-transforms.js';

export interface RestoreSubset {
  labelSelector?: LabelSelector;
  /** Empty = every type. */
  includedResources: readonly ResourceType[];
}

/** The subset of a test's backup source, or undefined when the whole namespaces are restored. */
export function resolveSubset(backupSource: RestoreTestSpec['backupSource'] | undefined): RestoreSubset | undefined {
  const selector = backupSource?.labelSelector;
  const hasSelector =
    selector !== undefined &&
    (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0);
  const includedResources = (backupSource?.includedResources ?? []).map(resourceType);
  if (!hasSelector && includedResources.length === 0) return undefined;
  return { ...(hasSelector ? { labelSelector: selector } : {}), includedResources };
}

/** A resource type as Velero and kubectl name it: deployments.apps, services (core group). */
export function groupResource(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return type.group ? `${type.resource}.${type.group}` : type.resource;
}

// The selector's text is shared with the PDF and the dashboard (protocol/restore-subset-text.ts).
export { selectorString };

/**
 * Whether objects of this apiVersion and kind can be in the subset by their type. Objects of a
 * type outside it are left out on purpose, like a transform's exclusions: they are not missing.
 */
export function subsetIncludesType(subset: RestoreSubset | undefined, apiVersion: string, kind: string): boolean {
  if (!subset || subset.includedResources.length === 0) return true;
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  return subset.includedResources.some((type) => type.group === group && type.kind === kind);
}

/**
 * Whether an object with these labels matches the subset's labelSelector (Kubernetes semantics:
 * every matchLabels pair and every expression; In/NotIn/Exists/DoesNotExist). True without one.
 */
export function subsetIncludesLabels(subset: RestoreSubset | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  const selector = subset?.labelSelector;
  if (!selector) return true;
  const own = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (own[key] !== value) return false;
  for (const requirement of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(own, requirement.key);
    const value = own[requirement.key];
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
        if (!has || !values.includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** One line for the report: what the run restored, e.g. "labels app=a; types deployments.apps, services". */
export function describeSubset(subset: RestoreSubset): string {
  const parts: string[] = [];
  if (subset.labelSelector) parts.push(`labels ${selectorString(subset.labelSelector)}`);
  if (subset.includedResources.length > 0) parts.push(`types ${subset.includedResources.map(groupResource).join(', ')}`);
  return parts.join('; ');
}

// Kinds whose objects make Pods: a Service restored without any of them has no endpoints by the
// test's choice, not because the backup is broken.
const POD_MAKERS = new Set([
  '/Pod',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  '/ReplicationController',
  'batch/Job',
  'batch/CronJob',
]);

/** Whether the subset can bring Pods into the sandbox (every type can when types are not limited). */
export function subsetMayRunPods(subset: RestoreSubset | undefined): boolean {
  if (!subset || subset.includedResources.length === 0) return true;
  return subset.includedResources.some((type) => POD_MAKERS.has(`${type.group}/${type.kind}`));
}
