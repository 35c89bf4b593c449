// The checks applied when a RestoreTest configures none (decision 0004): in every sandbox namespace
//   1. all pods are Ready                       → "default/pods-ready/<source>"        (podsReady)
//   2. every Service has a ready endpoint       → "default/service-endpoints/<source>" (podsReady)
//
// The contract's CheckKind has no kind for (2); it is reported as podsReady because a ready
// endpoint is a Ready pod behind the Service. Readiness comes from EndpointSlices
// (discovery.k8s.io/v1): the same source kube-proxy uses, so it honours readiness gates and
// terminating endpoints exactly as traffic would.
//
// One result per namespace and rule (not per pod or Service) keeps the RestoreReport small.
// Services that cannot have selector-managed endpoints are not required to: type ExternalName,
// and Services without a selector that have no EndpointSlice at all.
//
// A subset restore (issue 32, spec.backupSource.labelSelector / includedResources): the sandbox
// holds only the subset, so both rules read only what was restored. A subset whose types make no
// Pods (e.g. only Services and ConfigMaps) gets no service-endpoints check: its Services have no
// endpoints by the test's choice, not because the backup is broken.

import type { HealthCheck } from '../domain/resources/resources.js';
import { subsetMayRunPods, type RestoreSubset } from '../domain/run/restore-subset.js';
import type { CheckExecutor, NamespaceMapping, RunnableCheck } from './check.js';
import { describeError, error, fail, pass, skip } from './check.js';
import type { EndpointSliceSummary, ServiceSummary } from './sandbox-reader.js';

const LISTED_NAMES = 5;

/** The default checks for a run, in namespace order: pods-ready then service-endpoints per sandbox. */
export function defaultChecks(namespaces: readonly NamespaceMapping[], subset?: RestoreSubset): RunnableCheck[] {
  const endpoints = subsetMayRunPods(subset);
  return namespaces.flatMap(({ source }): RunnableCheck[] => [
    {
      name: `default/pods-ready/${source}`,
      kind: 'podsReady',
      sourceNamespace: source,
      origin: 'default',
      podsReady: {},
    },
    ...(endpoints
      ? [
          {
            name: `default/service-endpoints/${source}`,
            kind: 'podsReady' as const,
            sourceNamespace: source,
            origin: 'default' as const,
            serviceEndpoints: {},
          },
        ]
      : []),
  ]);
}

/** The configured checks, or the default checks when none are configured. */
export function checksForRun(
  configured: readonly HealthCheck[] | undefined,
  namespaces: readonly NamespaceMapping[],
  subset?: RestoreSubset,
): RunnableCheck[] {
  return configured && configured.length > 0 ? [...configured] : defaultChecks(namespaces, subset);
}

export const runServiceEndpointsCheck: CheckExecutor = async (_check, context) => {
  let services: ServiceSummary[];
  let slices: EndpointSliceSummary[];
  try {
    [services, slices] = await Promise.all([
      context.reader.listServices(context.namespace),
      context.reader.listEndpointSlices(context.namespace),
    ]);
  } catch (thrown) {
    return error(`cannot list Services and EndpointSlices in ${context.namespace}: ${describeError(thrown)}`);
  }

  const readyByService = new Map<string, number>();
  const slicedServices = new Set<string>();
  for (const slice of slices) {
    if (!slice.serviceName) continue;
    slicedServices.add(slice.serviceName);
    readyByService.set(
      slice.serviceName,
      (readyByService.get(slice.serviceName) ?? 0) + slice.readyEndpoints,
    );
  }

  const required = services
    .filter((service) => service.type !== 'ExternalName')
    .filter((service) => service.selector !== undefined || slicedServices.has(service.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const notChecked = services.length - required.length;
  const note = notChecked > 0 ? ` (${notChecked} without selector-managed endpoints not checked)` : '';
  if (required.length === 0)
    return skip(`no Services with endpoints to check in ${context.namespace}${note}`);

  const withoutReady = required.filter((service) => (readyByService.get(service.name) ?? 0) === 0);
  const counts = `${required.length - withoutReady.length}/${required.length} Services in ${context.namespace} have a ready endpoint`;
  if (withoutReady.length === 0) return pass(`${counts}${note}`);
  const names = withoutReady.slice(0, LISTED_NAMES).map((service) => service.name);
  const more = withoutReady.length > LISTED_NAMES ? ` and ${withoutReady.length - LISTED_NAMES} more` : '';
  return fail(`${counts}; none ready: ${names.join(', ')}${more}${note}`);
};
