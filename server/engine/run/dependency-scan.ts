// Gathers the cross-namespace dependencies of a restored run: scans the sandboxes, then reads the
// state of each referenced Service once (dependencies.ts decides which namespace to look in and
// what each state means). Null when the restored objects could not be read: the level is then
// "not tested" rather than a guess.
import type { DependencyReader } from '../../checks/dependency-reader.js';
import { SandboxReadError } from '../../checks/sandbox-reader.js';
import {
  classifyDependencies,
  findReferences,
  lookupTarget,
  serviceKey,
  type Dependency,
  type RunNamespaces,
  type ServiceState,
} from '../../domain/run/dependencies.js';

/** Distinct Services read per run at most: a ConfigMap full of host names must not fan out unbounded. */
export const MAX_SERVICE_LOOKUPS = 64;

export async function observeDependencies(
  reader: DependencyReader,
  sandboxes: readonly { source: string; sandbox: string }[],
  clusterDomain?: string,
  isolation: 'strict' | 'none' = 'strict',
): Promise<Dependency[] | null> {
  try {
    const run: RunNamespaces = {
      sourceOf: new Map(sandboxes.map((entry) => [entry.sandbox, entry.source])),
      clusterNamespaces: await reader.namespaceNames(),
      ...(clusterDomain ? { clusterDomain } : {}),
      isolation,
    };
    const objects = (await Promise.all(sandboxes.map((entry) => reader.scanSandbox(entry.sandbox)))).flat();
    const references = findReferences(objects, run);
    const targets = new Map<string, { namespace: string; service: string }>();
    for (const reference of references) {
      const target = lookupTarget(reference, run);
      if (target) targets.set(serviceKey(target.namespace, target.service), target);
    }
    const states = new Map<string, ServiceState>();
    for (const [key, target] of [...targets].slice(0, MAX_SERVICE_LOOKUPS)) {
      states.set(key, await reader.serviceState(target.namespace, target.service));
    }
    return classifyDependencies(references, run, states);
  } catch (error) {
    if (error instanceof SandboxReadError) return null;
    throw error;
  }
}
