// The pre-flight restorability check (issue 32): what can be known about a backup's restore
// without restoring anything, from the backup's manifests and the cluster as it is now. Each check
// names what would break the restore:
//   apiVersions     every kind the backup holds is still served (a deleted CRD, a removed version);
//   storageClasses  every claim's StorageClass exists (or a default class, for claims naming none);
//   references      Secrets, ConfigMaps, claims and service accounts the pods need are in the backup;
//   images          every image is on a node already (warning otherwise: pull-ability is not tried);
//   quota           the pods' requests and the claims' storage fit the sandbox's quotas.
// A test restoring a subset is checked on the part it restores. Errors fail the pre-flight;
// warnings are reported and do not. Pure.
import { quantityValue } from '../common/quantity.js';
import { allContainers, podTemplates, type ContainerSpec, type KeyRef, type ManifestObject, type PodTemplate } from './pod-templates.js';
import { imageReference } from './image-names.js';
import { subsetIncludesLabels, subsetIncludesType, type RestoreSubset } from '../run/restore-subset.js';

export type PreflightCheckName = 'apiVersions' | 'storageClasses' | 'references' | 'images' | 'quota';
export const PREFLIGHT_CHECKS: readonly PreflightCheckName[] = ['apiVersions', 'storageClasses', 'references', 'images', 'quota'];

export interface PreflightProblem {
  check: PreflightCheckName;
  severity: 'error' | 'warning';
  message: string;
}

/** A kind the backup holds in one source namespace, with the names of its objects. */
export interface BackedUpObjects {
  apiVersion: string;
  kind: string;
  sourceNamespace: string;
  names: readonly string[];
}

export interface BackupManifests {
  /** Every kind of the source namespaces the restore would create (from the backup's resource list). */
  kinds: readonly BackedUpObjects[];
  /** The manifests of the kinds the checks read: claims, pods and workloads. */
  objects: readonly ManifestObject[];
}

export interface ClusterFacts {
  /** Whether the cluster serves `kind` at `apiVersion` now. */
  serves: (apiVersion: string, kind: string) => boolean;
  storageClasses: ReadonlySet<string>;
  defaultStorageClass?: string;
  /** Images present on the nodes (normalized); undefined: the image check is off. */
  nodeImages?: ReadonlySet<string>;
  /** The sandbox's quotas: the storage quota every sandbox gets, and the test's/cluster's hard limits. */
  quota: { storage?: string; claims?: number; hard?: Readonly<Record<string, string>> };
}

export interface PreflightOutcome {
  result: 'passed' | 'failed';
  /** One line: "passed: 5 checks" or "failed: StorageClass fast-ssd does not exist (+1 more)". */
  summary: string;
  problems: PreflightProblem[];
}

/** Reported at most, errors first: a broken backup can name thousands of missing things. */
export const MAX_PROBLEMS = 20;

/** Created in every namespace by Kubernetes itself: never needed from the backup. */
const AUTOMATIC_CONFIGMAPS = new Set(['kube-root-ca.crt']);

/** The names the backup holds per "namespace kind" of the core kinds references point at, built once. */
function heldNames(manifests: BackupManifests): (namespace: string, kind: string) => ReadonlySet<string> {
  const index = new Map<string, Set<string>>();
  for (const entry of manifests.kinds) {
    if (entry.apiVersion !== 'v1') continue;
    const key = `${entry.sourceNamespace} ${entry.kind}`;
    const names = index.get(key) ?? new Set<string>();
    for (const name of entry.names) names.add(name);
    index.set(key, names);
  }
  const none: ReadonlySet<string> = new Set();
  return (namespace, kind) => index.get(`${namespace} ${kind}`) ?? none;
}

function apiVersionProblems(manifests: BackupManifests, facts: ClusterFacts): PreflightProblem[] {
  const seen = new Set<string>();
  const problems: PreflightProblem[] = [];
  for (const { apiVersion, kind } of manifests.kinds) {
    const key = `${apiVersion} ${kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!facts.serves(apiVersion, kind)) {
      problems.push({
        check: 'apiVersions',
        severity: 'error',
        message: `${kind} (${apiVersion}) is not served by the cluster: its CustomResourceDefinition or API version is gone`,
      });
    }
  }
  return problems;
}

function storageClassProblems(manifests: BackupManifests, facts: ClusterFacts): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  const missing = new Map<string, string[]>();
  for (const object of manifests.objects) {
    if (object.kind !== 'PersistentVolumeClaim') continue;
    const claim = `${object.metadata.namespace}/${object.metadata.name}`;
    const className = object.spec?.storageClassName;
    // "" asks for a pre-bound volume, no class; a claim without the field gets the default class.
    if (className === '') continue;
    if (typeof className === 'string') {
      if (!facts.storageClasses.has(className)) missing.set(className, [...(missing.get(className) ?? []), claim]);
    } else if (!facts.defaultStorageClass) {
      problems.push({ check: 'storageClasses', severity: 'error', message: `claim ${claim} names no StorageClass and the cluster has no default class` });
    }
  }
  for (const [className, claims] of missing) {
    problems.unshift({
      check: 'storageClasses',
      severity: 'error',
      message: `StorageClass ${className} does not exist (claims ${listed(claims)})`,
    });
  }
  return problems;
}

function listed(items: readonly string[], most = 3): string {
  return items.length <= most ? items.join(', ') : `${items.slice(0, most).join(', ')} and ${items.length - most} more`;
}

function ownerName(template: PodTemplate): string {
  return `${template.owner.kind} ${template.owner.namespace}/${template.owner.name}`;
}

function required(reference: KeyRef | undefined): string | undefined {
  return reference && reference.optional !== true && reference.name ? reference.name : undefined;
}

/** The Secrets and ConfigMaps a container needs to start (optional ones left out). */
function containerReferences(container: ContainerSpec): { secrets: string[]; configMaps: string[] } {
  const secrets: string[] = [];
  const configMaps: string[] = [];
  for (const source of Array.isArray(container.envFrom) ? container.envFrom : []) {
    const secret = required(source.secretRef);
    const configMap = required(source.configMapRef);
    if (secret) secrets.push(secret);
    if (configMap) configMaps.push(configMap);
  }
  for (const variable of Array.isArray(container.env) ? container.env : []) {
    const secret = required(variable.valueFrom?.secretKeyRef);
    const configMap = required(variable.valueFrom?.configMapKeyRef);
    if (secret) secrets.push(secret);
    if (configMap) configMaps.push(configMap);
  }
  return { secrets, configMaps };
}

function referenceProblems(manifests: BackupManifests, restored: BackupManifests, templates: readonly PodTemplate[]): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  const reported = new Set<string>();
  const report = (template: PodTemplate, kind: string, name: string, severity: 'error' | 'warning', why: string, inBackup: boolean): void => {
    const key = `${template.owner.namespace} ${kind} ${name}`;
    if (reported.has(key)) return;
    reported.add(key);
    const where = inBackup ? 'which the restored subset leaves out (spec.backupSource.includedResources)' : 'which the backup does not hold';
    problems.push({
      check: 'references',
      severity,
      message: `${ownerName(template)} needs ${kind} ${template.owner.namespace}/${name}, ${where}${why}`,
    });
  };
  const held = heldNames(restored);
  const inBackup = heldNames(manifests);
  for (const template of templates) {
    const namespace = template.owner.namespace;
    type Kind = 'Secret' | 'ConfigMap' | 'PersistentVolumeClaim' | 'ServiceAccount';
    const need = (kind: Kind, name: string | undefined, severity: 'error' | 'warning' = 'error', why = ''): void => {
      if (!name || held(namespace, kind).has(name)) return;
      if (kind === 'ConfigMap' && AUTOMATIC_CONFIGMAPS.has(name)) return;
      report(template, kind, name, severity, why, inBackup(namespace, kind).has(name));
    };
    const { spec } = template;
    if (spec.serviceAccountName && spec.serviceAccountName !== 'default') need('ServiceAccount', spec.serviceAccountName);
    for (const volume of Array.isArray(spec.volumes) ? spec.volumes : []) {
      if (volume.secret && volume.secret.optional !== true) need('Secret', volume.secret.secretName);
      need('ConfigMap', required(volume.configMap));
      need('PersistentVolumeClaim', volume.persistentVolumeClaim?.claimName);
      for (const source of volume.projected?.sources ?? []) {
        need('Secret', required(source.secret));
        need('ConfigMap', required(source.configMap));
      }
    }
    for (const container of allContainers(spec)) {
      const { secrets, configMaps } = containerReferences(container);
      for (const name of secrets) need('Secret', name);
      for (const name of configMaps) need('ConfigMap', name);
    }
    for (const pullSecret of Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : []) {
      need('Secret', pullSecret.name, 'warning', ' (an image pull secret: images not cached on a node may not pull)');
    }
  }
  return problems;
}

function imageProblems(templates: readonly PodTemplate[], nodeImages: ReadonlySet<string> | undefined): PreflightProblem[] {
  if (!nodeImages) return [];
  const missing = new Map<string, string[]>();
  for (const template of templates) {
    for (const container of allContainers(template.spec)) {
      if (typeof container.image !== 'string' || container.image === '') continue;
      const reference = imageReference(container.image);
      if (reference.some((name) => nodeImages.has(name))) continue;
      missing.set(container.image, [...(missing.get(container.image) ?? []), ownerName(template)]);
    }
  }
  return [...missing].map(([image, owners]) => ({
    check: 'images' as const,
    severity: 'warning' as const,
    message: `image ${image} (${listed([...new Set(owners)])}) is on no node: the restore will pull it, which this check does not try`,
  }));
}

/** A container's request of a resource; Kubernetes defaults a missing request to the limit. */
function request(container: ContainerSpec, resource: 'cpu' | 'memory'): number {
  return quantityValue(container.resources?.requests?.[resource] ?? container.resources?.limits?.[resource]) ?? 0;
}

/** A pod's request: its containers' sum, or its largest init container if that is more. */
function podRequest(template: PodTemplate, resource: 'cpu' | 'memory'): number {
  const containers = (Array.isArray(template.spec.containers) ? template.spec.containers : []).reduce((sum, container) => sum + request(container, resource), 0);
  const init = (Array.isArray(template.spec.initContainers) ? template.spec.initContainers : []).reduce((most, container) => Math.max(most, request(container, resource)), 0);
  return Math.max(containers, init);
}

function claimRequests(manifests: BackupManifests): { count: number; storage: number } {
  let count = 0;
  let storage = 0;
  for (const object of manifests.objects) {
    if (object.kind !== 'PersistentVolumeClaim') continue;
    count += 1;
    const requests = (object.spec?.resources as { requests?: Record<string, string> } | undefined)?.requests;
    storage += quantityValue(requests?.storage) ?? 0;
  }
  return { count, storage };
}

function quotaProblems(manifests: BackupManifests, templates: readonly PodTemplate[], facts: ClusterFacts): PreflightProblem[] {
  const claims = claimRequests(manifests);
  const pods = templates.reduce((sum, template) => sum + template.pods, 0);
  const needs: Record<string, { amount: number; shown: (amount: number) => string; what: string }> = {
    pods: { amount: pods, shown: String, what: 'pods' },
    'requests.cpu': { amount: templates.reduce((sum, t) => sum + t.pods * podRequest(t, 'cpu'), 0), shown: (v) => `${Math.round(v * 1000)}m`, what: 'CPU requested' },
    'requests.memory': { amount: templates.reduce((sum, t) => sum + t.pods * podRequest(t, 'memory'), 0), shown: bytes, what: 'memory requested' },
    'requests.storage': { amount: claims.storage, shown: bytes, what: 'storage the claims request' },
    persistentvolumeclaims: { amount: claims.count, shown: String, what: 'claims' },
  };
  const limits: [string, string | undefined, string][] = [
    ['requests.storage', facts.quota.storage, 'the sandbox storage quota'],
    ['persistentvolumeclaims', facts.quota.claims === undefined ? undefined : String(facts.quota.claims), 'the sandbox storage quota'],
    ...Object.entries(facts.quota.hard ?? {}).map(([key, value]): [string, string, string] => [
      key === 'cpu' ? 'requests.cpu' : key === 'memory' ? 'requests.memory' : key,
      value,
      'spec.sandbox.resourceQuota (or the cluster default)',
    ]),
  ];
  const problems: PreflightProblem[] = [];
  for (const [key, limitText, where] of limits) {
    const need = needs[key];
    const limit = quantityValue(limitText);
    if (!need || limit === undefined || need.amount <= limit) continue;
    problems.push({
      check: 'quota',
      severity: 'error',
      message: `${need.what} (${need.shown(need.amount)}) exceed ${key} ${limitText} of ${where}`,
    });
  }
  return problems;
}

function bytes(value: number): string {
  for (const [unit, size] of [['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) {
    if (value >= size) return `${Number((value / size).toFixed(1))}${unit}`;
  }
  return String(Math.round(value));
}

/**
 * What a restore of `subset` brings back: kinds of its types, objects of its types and labels. The
 * resource list has no labels, so names held in the backup are filtered by type only.
 */
function restoredPart(manifests: BackupManifests, subset: RestoreSubset | undefined): BackupManifests {
  if (!subset) return manifests;
  return {
    kinds: manifests.kinds.filter((entry) => subsetIncludesType(subset, entry.apiVersion, entry.kind)),
    objects: manifests.objects.filter(
      (object) => subsetIncludesType(subset, object.apiVersion, object.kind) && subsetIncludesLabels(subset, object.metadata.labels),
    ),
  };
}

/**
 * Runs every check on what the restore would bring back (the test's subset of the backup, if it
 * restores one); errors first, at most MAX_PROBLEMS problems kept.
 */
export function preflight(manifests: BackupManifests, facts: ClusterFacts, subset?: RestoreSubset): PreflightOutcome {
  const restored = restoredPart(manifests, subset);
  const templates = podTemplates(restored.objects);
  const all = [
    ...apiVersionProblems(restored, facts),
    ...storageClassProblems(restored, facts),
    ...referenceProblems(manifests, restored, templates),
    ...imageProblems(templates, facts.nodeImages),
    ...quotaProblems(restored, templates, facts),
  ];
  const errors = all.filter((problem) => problem.severity === 'error');
  const warnings = all.filter((problem) => problem.severity === 'warning');
  const problems = [...errors, ...warnings].slice(0, MAX_PROBLEMS);
  const more = (count: number): string => (count > 1 ? ` (+${count - 1} more)` : '');
  const summary =
    errors.length > 0
      ? `failed: ${errors[0]!.message}${more(errors.length)}`
      : `passed: ${PREFLIGHT_CHECKS.length} checks${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}`;
  return { result: errors.length > 0 ? 'failed' : 'passed', summary, problems };
}
