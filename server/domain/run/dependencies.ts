// Cross-namespace dependencies of a restored application (decision 0004, the 10-point level).
// Pure: the engine reads the restored objects and the referenced Services, this finds the
// references in them and decides, per reference, whether the restored copy can rely on it.
//
// A reference is a host of the form <service>.<namespace>.svc[.cluster.local] (or <service>.<namespace>
// when <namespace> is a namespace we know) in a Service's ExternalName, a container's env value, a
// ConfigMap's data or an Ingress annotation. An Ingress backend names a Service in its own namespace
// (the API allows no other), so it leaves the namespace only through an ExternalName Service,
// which is scanned as such.
import type { DependencyEntry } from '../resources/resources.js';
import { truncateText } from '../../../protocol/text.js';

// Statuses: restored (the namespace is restored by this run and its sandbox copy has the Service),
// reachable (outside the restore, the Service exists with ready endpoints), missing (restored by
// this run, but the sandbox copy has no such Service), unreachable (outside the restore and no
// Service with ready endpoints answers), production (names a source namespace of the run while the
// sandboxes have no network isolation: the restored copy would talk to production).
//
// A value naming a source namespace (the object's own or another source of the test) is not
// rewritten by a restore. In a real recovery into the original namespaces it resolves, so with the
// default `strict` isolation (the sandboxes may only reach each other, decision 0012) it counts as
// restored when the sandbox copy has the Service, with a message saying the value still names the
// source. With `networkIsolation: none` nothing stops the copy from calling production: failed.
export type Dependency = DependencyEntry;

/** Text of one restored object that may hold host names, gathered by the engine. */
export interface ScannedObject {
  kind: string;
  name: string;
  /** The sandbox the object was found in. */
  sandbox: string;
  texts: readonly string[];
}

export interface Reference {
  from: string;
  /** Where the object was restored (its sandbox) and from (its source namespace). */
  sandbox: string;
  source: string;
  service: string;
  namespace: string;
}

/** What the engine found about a referenced Service. */
export type ServiceState =
  | { state: 'ready' }
  | { state: 'externalName'; externalName: string }
  | { state: 'noEndpoints' }
  | { state: 'absent' }
  | { state: 'unknown'; message: string };

/** The CRD's maxLength of a dependency's message. */
const MESSAGE_MAX_LENGTH = 256;

/** At most this many dependencies go into a report (it stays a few KB); the level counts them all. */
export const MAX_REPORTED_DEPENDENCIES = 32;

const LABEL = '[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?';

// A whole host: not preceded or followed by more host characters, so "a.b" inside
// "x.a.b.example.com" is not taken for service a in namespace b.
function hostPattern(clusterDomain: string): RegExp {
  const domain = clusterDomain.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `(?<![a-z0-9_.-])(${LABEL})\\.(${LABEL})(\\.svc(?:\\.${domain})?)?\\.?(?![a-z0-9_-]|\\.[a-z0-9])`,
    'g',
  );
}

/** `{service, namespace}` of every in-cluster host in a text; `known` decides the short form. */
export function hostsIn(
  text: string,
  known: ReadonlySet<string>,
  clusterDomain = 'cluster.local',
): { service: string; namespace: string }[] {
  const found: { service: string; namespace: string }[] = [];
  for (const match of text.toLowerCase().matchAll(hostPattern(clusterDomain))) {
    const [, service, namespace, svcSuffix] = match;
    if (!service || !namespace || namespace === 'svc') continue;
    // Without ".svc" a two-label host is only taken for a Service when the second label is a
    // namespace that exists: "example.com" is a domain, "db.payments" a Service in payments.
    if (!svcSuffix && !known.has(namespace)) continue;
    found.push({ service, namespace });
  }
  return found;
}

export interface RunNamespaces {
  /** sandbox → source, for every sandbox of the run. */
  sourceOf: ReadonlyMap<string, string>;
  /** Namespaces that exist in the cluster (for the short `<service>.<namespace>` form). */
  clusterNamespaces: ReadonlySet<string>;
  /** The cluster's DNS domain (config clusterDomain); default cluster.local. */
  clusterDomain?: string;
  /** The test's networkIsolation; default strict. */
  isolation?: 'strict' | 'none';
}

/**
 * Every distinct (object, service.namespace) reference leaving the object's sandbox. A reference
 * to the object's own sandbox is local (a name rewritten for the sandbox), not a dependency.
 */
export function findReferences(objects: readonly ScannedObject[], run: RunNamespaces): Reference[] {
  const known = new Set([...run.clusterNamespaces, ...run.sourceOf.keys(), ...run.sourceOf.values()]);
  const seen = new Set<string>();
  const references: Reference[] = [];
  for (const object of objects) {
    const source = run.sourceOf.get(object.sandbox);
    if (source === undefined) continue;
    const from = `${object.kind}/${source}/${object.name}`;
    for (const text of object.texts) {
      for (const host of hostsIn(text, known, run.clusterDomain)) {
        if (host.namespace === object.sandbox) continue;
        const key = `${from} ${host.service}.${host.namespace}`;
        if (seen.has(key)) continue;
        seen.add(key);
        references.push({ from, sandbox: object.sandbox, source, ...host });
      }
    }
  }
  return references;
}

/** Where the engine must look up a reference's Service: a sandbox copy, or the cluster as is. */
export function lookupTarget(reference: Reference, run: RunNamespaces): { namespace: string; service: string } | undefined {
  if (namesSource(reference, run) && run.isolation === 'none') return undefined; // production, nothing to read
  if (run.sourceOf.has(reference.namespace)) return { namespace: reference.namespace, service: reference.service };
  const sandbox = [...run.sourceOf].find(([, source]) => source === reference.namespace)?.[0];
  return { namespace: sandbox ?? reference.namespace, service: reference.service };
}

function namesSource(reference: Reference, run: RunNamespaces): boolean {
  return reference.namespace === reference.source || [...run.sourceOf.values()].includes(reference.namespace);
}

export function serviceKey(namespace: string, service: string): string {
  return `${namespace}/${service}`;
}

/** The status of each reference, given the states the engine read for lookupTarget(). */
export function classifyDependencies(
  references: readonly Reference[],
  run: RunNamespaces,
  states: ReadonlyMap<string, ServiceState>,
): Dependency[] {
  return references.map((reference) => {
    const to = `${reference.service}.${reference.namespace}`;
    const target = lookupTarget(reference, run);
    if (!target) {
      return {
        from: reference.from,
        to,
        status: 'production',
        message: `names source namespace ${reference.namespace} and networkIsolation is none: the restored copy in ${reference.sandbox} would talk to production`,
      };
    }
    const state = states.get(serviceKey(target.namespace, target.service)) ?? { state: 'unknown', message: 'not read: more Services referenced than one run reads' };
    const restoredHere = run.sourceOf.has(target.namespace);
    if (restoredHere) {
      if (state.state === 'absent' || state.state === 'unknown') {
        const why = state.state === 'unknown' ? ` (${state.message})` : '';
        return { from: reference.from, to, status: 'missing', message: `no Service ${target.service} in sandbox ${target.namespace}${why}` };
      }
      return target.namespace === reference.namespace
        ? { from: reference.from, to, status: 'restored' }
        : // Restored together, but the value was not rewritten: say where the copy is.
          {
            from: reference.from,
            to,
            status: 'restored',
            message: `restored in ${target.namespace}; the value still names ${reference.namespace} (the strict NetworkPolicy keeps the copy from reaching it)`,
          };
    }
    switch (state.state) {
      case 'ready':
        return { from: reference.from, to, status: 'reachable' };
      case 'externalName':
        return { from: reference.from, to, status: 'reachable', message: `ExternalName ${state.externalName}, not followed` };
      case 'noEndpoints':
        return { from: reference.from, to, status: 'unreachable', message: `Service ${to} has no ready endpoints and is not restored by this test` };
      case 'absent':
        return { from: reference.from, to, status: 'unreachable', message: `no Service ${to} in the cluster and ${reference.namespace} is not restored by this test` };
      case 'unknown':
        return { from: reference.from, to, status: 'unreachable', message: `could not read Service ${to}: ${state.message}` };
    }
  });
}

export function isSatisfied(dependency: Dependency): boolean {
  return dependency.status === 'restored' || dependency.status === 'reachable';
}

/** The dependencies a report keeps: failed ones first, so a cut never hides a failure. */
export function reportedDependencies(dependencies: readonly Dependency[]): Dependency[] {
  const failed = dependencies.filter((dependency) => !isSatisfied(dependency));
  const satisfied = dependencies.filter(isSatisfied);
  return [...failed, ...satisfied]
    .slice(0, MAX_REPORTED_DEPENDENCIES)
    .map((dependency) =>
      dependency.message === undefined
        ? dependency
        : { ...dependency, message: truncateText(dependency.message, MESSAGE_MAX_LENGTH) },
    );
}
