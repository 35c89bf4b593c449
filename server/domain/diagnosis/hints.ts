// Remediation hints: the common reasons a restored application does not come up, recognised from
// the sandbox's state. Each rule looks at one kind of evidence and names the objects it saw, so an
// SRE can check the claim. The wording says what to change (the backup, the test, the cluster).
import { hostsIn } from '../run/dependencies.js';
import { refusedByStorageQuota, SANDBOX_STORAGE_QUOTA_NAME } from '../run/storage-quota.js';
import type { ObservedPod, SandboxObservation } from './observation.js';

export type HintCode =
  | 'image-pull-secret-missing'
  | 'image-pull-failed'
  | 'crash-loop'
  | 'oom-killed'
  | 'secret-missing'
  | 'configmap-missing'
  | 'unschedulable-resources'
  | 'unschedulable-placement'
  | 'storage-class-missing'
  | 'pvc-pending'
  | 'quota-exceeded'
  | 'storage-quota-exceeded'
  | 'pod-security-refused'
  | 'externalname-unrestored'
  | 'externalname-to-source';

export interface Hint {
  code: HintCode;
  title: string;
  remediation: string;
  /** The objects that show it, e.g. Pod/rehearsal-shop-x1/web-1. */
  objects: string[];
}

const PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);
const MISSING_SECRET = /secrets? "([^"]+)" not found/;
const MISSING_CONFIGMAP = /configmaps? "([^"]+)" not found/;
/** The apiserver's words when PodSecurity admission refuses a Pod a controller creates. */
const POD_SECURITY_REFUSAL = /violates PodSecurity "([a-z]+)(?::[^"]*)?"/;

function podRef(pod: ObservedPod): string {
  return `Pod/${pod.namespace}/${pod.name}`;
}

class HintList {
  private readonly byCode = new Map<HintCode, Hint>();

  add(code: HintCode, title: string, remediation: string, object: string): void {
    const hint = this.byCode.get(code);
    if (hint) {
      if (!hint.objects.includes(object)) hint.objects.push(object);
      return;
    }
    this.byCode.set(code, { code, title, remediation, objects: [object] });
  }

  all(): Hint[] {
    return [...this.byCode.values()];
  }
}

function podHints(pod: ObservedPod, observation: SandboxObservation, hints: HintList): void {
  const ref = podRef(pod);
  for (const container of pod.containers) {
    const reason = container.reason ?? '';
    const message = container.message ?? '';
    if (PULL_REASONS.has(reason)) {
      const missing = pod.imagePullSecrets.filter((name) =>
        observation.missingPullSecrets.includes(`${pod.namespace}/${name}`),
      );
      if (missing.length > 0) {
        hints.add(
          'image-pull-secret-missing',
          `Image pull Secret ${missing.join(', ')} is not in the sandbox`,
          'The registry credentials were not restored: the backup excludes Secrets, or the Secret lives in another namespace. ' +
            'Include the pull Secret in the backup (or in the test\'s sourceNamespaces) so the restored Pods can pull their images.',
          ref,
        );
      } else {
        hints.add(
          'image-pull-failed',
          'An image cannot be pulled',
          'The image or tag may have been deleted from the registry since the backup, or the registry needs credentials this ' +
            'cluster lacks. Keep images for at least the backup retention, and pin digests.',
          ref,
        );
      }
    }
    if (reason === 'OOMKilled' || container.lastTerminationReason === 'OOMKilled') {
      hints.add(
        'oom-killed',
        'A container was killed for using too much memory',
        'The sandbox may set lower memory limits than production (spec.sandbox.limitRange / resourceQuota), or the restored ' +
          'data set is larger than the limit allows. Raise the sandbox limits to production values.',
        ref,
      );
    } else if (reason === 'CrashLoopBackOff') {
      hints.add(
        'crash-loop',
        'A container keeps crashing',
        'It starts and exits (see its last log lines). After a restore this is usually a dependency that was not restored: a ' +
          'database, a Secret or ConfigMap, or a Service in a namespace the test does not restore.',
        ref,
      );
    }
    const secret = MISSING_SECRET.exec(message)?.[1];
    if (secret) secretMissing(hints, pod.namespace, secret, ref);
    const configMap = MISSING_CONFIGMAP.exec(message)?.[1];
    if (configMap) configMapMissing(hints, pod.namespace, configMap, ref);
  }
  if (pod.unscheduled) {
    const message = pod.unscheduled.message;
    if (/Insufficient|exceeded quota/.test(message)) {
      hints.add(
        'unschedulable-resources',
        'No node has room for a Pod',
        'Its resource requests exceed what the cluster\'s nodes have free. Restore tests need spare capacity: add nodes, lower ' +
          'the requests for the sandbox, or run fewer tests at once (REHEARSAL_MAX_CONCURRENT_RUNS).',
        ref,
      );
    }
    if (/affinity|selector|taint|untolerated/i.test(message)) {
      hints.add(
        'unschedulable-placement',
        'A Pod fits no node (selector, affinity or taints)',
        'The restored Pod asks for nodes this cluster does not have (node labels, affinity or tolerations from production). ' +
          'Label a node pool for restore tests, or restore into a cluster shaped like production.',
        ref,
      );
    }
    if (/persistentvolumeclaim|unbound immediate PersistentVolumeClaims/i.test(message)) {
      hints.add(
        'pvc-pending',
        'A Pod waits for its volume',
        'Its PersistentVolumeClaim is not bound yet (see the claims below; a run that failed VolumeNotBound names the ' +
          'claim and what the PV controller or the provisioner said).',
        ref,
      );
    }
  }
}

function secretMissing(hints: HintList, namespace: string, name: string, object: string): void {
  hints.add(
    'secret-missing',
    `Secret ${name} is missing in the sandbox`,
    `The application needs Secret ${name}, which the backup did not contain (Secrets excluded from the backup, or created ` +
      'outside the backed-up namespace). Include it in the backup; a restore without it cannot start.',
    `${object} (Secret ${namespace}/${name})`,
  );
}

function configMapMissing(hints: HintList, namespace: string, name: string, object: string): void {
  hints.add(
    'configmap-missing',
    `ConfigMap ${name} is missing in the sandbox`,
    `The application needs ConfigMap ${name}, which the backup did not contain. Include it in the backup.`,
    `${object} (ConfigMap ${namespace}/${name})`,
  );
}

/**
 * Claims refused by the installation's storage quota (issue 27): kube-apiserver answered the
 * restore's create "exceeded quota: rehearsal-sandbox-storage", so the claim is not in the sandbox
 * (the report's completeness counts it missing), or a controller's create of one was refused.
 */
function storageQuotaExceeded(hints: HintList, observation: SandboxObservation, object: string): void {
  const quota = observation.storageQuotas?.[0];
  const limits = quota
    ? ` (requests.storage ${quota.hard['requests.storage'] ?? '?'}, persistentvolumeclaims ${quota.hard.persistentvolumeclaims ?? '?'} per sandbox)`
    : '';
  const missing = observation.missingClaims ?? 0;
  hints.add(
    'storage-quota-exceeded',
    `PersistentVolumeClaims were refused by the sandbox storage quota ${SANDBOX_STORAGE_QUOTA_NAME}`,
    `${missing > 0 ? `${missing} PersistentVolumeClaim${missing === 1 ? '' : 's'} of the backup ${missing === 1 ? 'is' : 'are'} not in the sandbox. ` : ''}` +
      `Every sandbox may provision only what the installation allows${limits}; kube-apiserver refuses a claim beyond ` +
      `it ("exceeded quota: ${SANDBOX_STORAGE_QUOTA_NAME}") and the restore ends PartiallyFailed. An administrator raises ` +
      'REHEARSAL_SANDBOX_STORAGE_QUOTA / REHEARSAL_SANDBOX_CLAIM_QUOTA (Helm sandbox.storageQuota / sandbox.claimQuota), ' +
      'or the test restores less.',
    object,
  );
}

/** Every hint the observation supports, in the order of the rules. */
export function hintsFor(observation: SandboxObservation): Hint[] {
  const hints = new HintList();
  for (const pod of observation.pods) podHints(pod, observation, hints);
  for (const claim of observation.claims) {
    if (claim.phase !== 'Pending') continue;
    const ref = `PersistentVolumeClaim/${claim.namespace}/${claim.name}`;
    if (claim.storageClass && observation.storageClasses && !observation.storageClasses.includes(claim.storageClass)) {
      hints.add(
        'storage-class-missing',
        `StorageClass ${claim.storageClass} does not exist in this cluster`,
        'The claim names a StorageClass of the cluster the backup came from. Map it to one of this cluster\'s classes ' +
          '(Velero: the change-storage-class ConfigMap) or create it.',
        ref,
      );
    } else {
      hints.add(
        'pvc-pending',
        'A PersistentVolumeClaim is not bound',
        'No volume was provisioned or bound for it; the events below, or the failure of a run that ended VolumeNotBound, ' +
          'say why: provisioner errors, no volume matching a claim without a StorageClass, a claim that still names the ' +
          'source cluster\'s PersistentVolume in spec.volumeName (bound to another claim), a snapshot that was not restored.',
        ref,
      );
    }
  }
  for (const event of observation.events) {
    const ref = `${event.object.split('/')[0]}/${event.namespace}/${event.object.split('/').slice(1).join('/')}`;
    if (refusedByStorageQuota(event.message)) {
      storageQuotaExceeded(hints, observation, ref);
    } else if (/exceeded quota/.test(event.message)) {
      hints.add(
        'quota-exceeded',
        'The sandbox ResourceQuota is too small',
        'Objects could not be created within spec.sandbox.resourceQuota. Raise the quota to what the application needs.',
        ref,
      );
    }
    const profile = event.reason === 'FailedCreate' ? POD_SECURITY_REFUSAL.exec(event.message)?.[1] : undefined;
    if (profile) {
      hints.add(
        'pod-security-refused',
        `Pod Security "${profile}" refused Pods of the restored application`,
        `The sandbox enforces the Pod Security profile "${profile}" (never looser than the source namespace, nor the ` +
          'floor; docs/restore-transforms.md). Pod Security judges Pods, not their templates: a workload whose source ' +
          'namespace enforces less started there and cannot start here. Make the workload meet the profile, or have an ' +
          'administrator lower spec.restore.podSecurity for this test.',
        ref,
      );
    }
    const secret = event.reason === 'FailedMount' ? MISSING_SECRET.exec(event.message)?.[1] : undefined;
    if (secret) secretMissing(hints, event.namespace, secret, ref);
    const configMap = event.reason === 'FailedMount' ? MISSING_CONFIGMAP.exec(event.message)?.[1] : undefined;
    if (configMap) configMapMissing(hints, event.namespace, configMap, ref);
  }
  if ((observation.missingClaims ?? 0) > 0) {
    for (const quota of observation.storageQuotas ?? []) {
      storageQuotaExceeded(hints, observation, `ResourceQuota/${quota.namespace}/${quota.name}`);
    }
  }
  const sandboxes = new Set(observation.sandboxes.map((entry) => entry.sandbox));
  const sources = new Set(observation.sandboxes.map((entry) => entry.source));
  for (const service of observation.externalNames) {
    // <service>.<namespace>.svc[.cluster.local]: a name in another namespace of this cluster (the
    // same host rule as the dependency level, dependencies.ts).
    const target = hostsIn(service.externalName, new Set())[0]?.namespace;
    if (!target || sandboxes.has(target)) continue;
    if (sources.has(target)) {
      hints.add(
        'externalname-to-source',
        `Service ${service.name} points at the production namespace ${target}, not its sandbox`,
        `ExternalName ${service.externalName} is not rewritten by the restore, so the restored application talks to ` +
          'production. Use a name relative to the namespace, or rewrite it with a restore resource modifier.',
        `Service/${service.namespace}/${service.name}`,
      );
    } else {
      hints.add(
        'externalname-unrestored',
        `Service ${service.name} points at namespace ${target}, which this test does not restore`,
        `ExternalName ${service.externalName} leads out of the sandbox. Add ${target} to the test's sourceNamespaces so ` +
          'the dependency is restored beside the application (and the name is mapped to its sandbox).',
        `Service/${service.namespace}/${service.name}`,
      );
    }
  }
  return hints.all();
}
