// The pod specs a backup would bring back, read from its manifests: what the pre-flight checks
// look into (images, references, requests). Each workload kind keeps its pod template in another
// place; Pods owned by a controller are left out (their controller's template stands for them,
// and the restore's controller makes them again). Pure.

/** The part of a backed-up object the pre-flight reads (as Velero stores it: the object's JSON). */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
  spec?: Record<string, unknown>;
}

export interface KeyRef {
  name?: string;
  optional?: boolean;
}

export interface ContainerSpec {
  name?: string;
  image?: string;
  envFrom?: { secretRef?: KeyRef; configMapRef?: KeyRef }[];
  env?: { valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface VolumeSpec {
  secret?: { secretName?: string; optional?: boolean };
  configMap?: KeyRef;
  persistentVolumeClaim?: { claimName?: string };
  projected?: { sources?: { secret?: KeyRef; configMap?: KeyRef }[] };
}

export interface PodSpec {
  serviceAccountName?: string;
  containers?: ContainerSpec[];
  initContainers?: ContainerSpec[];
  volumes?: VolumeSpec[];
  imagePullSecrets?: { name?: string }[];
}

/** A pod spec and what it belongs to: "Deployment shop/web" and how many pods it runs in a sandbox. */
export interface PodTemplate {
  owner: { kind: string; namespace: string; name: string };
  /** Pods it runs at once (replicas; 1 for a Pod or DaemonSet, 0 when it runs none in a sandbox). */
  pods: number;
  spec: PodSpec;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function templateSpec(spec: Record<string, unknown> | undefined): PodSpec | undefined {
  return record(record(spec?.template)?.spec) as PodSpec | undefined;
}

function replicas(spec: Record<string, unknown> | undefined): number {
  const value = spec?.replicas;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 1;
}

/**
 * The pod templates of the backed-up objects. Jobs and CronJobs count no pods: the restore holds
 * a Job's pods and suspends CronJobs in a sandbox (restore transforms), but their references are
 * still checked. A DaemonSet counts one pod (a sandbox is not sized per node).
 */
export function podTemplates(objects: readonly ManifestObject[]): PodTemplate[] {
  const templates: PodTemplate[] = [];
  for (const object of objects) {
    const owner = { kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name };
    const spec = record(object.spec);
    const owned = (object.metadata.ownerReferences ?? []).length > 0;
    let pod: PodSpec | undefined;
    let pods = 1;
    switch (object.kind) {
      case 'Pod':
        if (owned) continue;
        pod = spec as PodSpec | undefined;
        break;
      case 'ReplicaSet':
        if (owned) continue;
        pod = templateSpec(spec);
        pods = replicas(spec);
        break;
      case 'Deployment':
      case 'StatefulSet':
        pod = templateSpec(spec);
        pods = replicas(spec);
        break;
      case 'DaemonSet':
        pod = templateSpec(spec);
        break;
      case 'Job':
        if (owned) continue;
        pod = templateSpec(spec);
        pods = 0;
        break;
      case 'CronJob':
        pod = templateSpec(record(record(spec?.jobTemplate)?.spec));
        pods = 0;
        break;
      default:
        continue;
    }
    if (pod) templates.push({ owner, pods, spec: pod });
  }
  return templates;
}

/** Every container of a pod spec, init containers first. */
export function allContainers(spec: PodSpec): ContainerSpec[] {
  return [...(Array.isArray(spec.initContainers) ? spec.initContainers : []), ...(Array.isArray(spec.containers) ? spec.containers : [])];
}
