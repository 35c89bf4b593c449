// The storage a run may provision (issue 27). A sandbox restores whatever claims its backup holds,
// and a crafted or huge backup (or a tenant's test) could otherwise provision any amount of
// storage: every sandbox namespace gets a ResourceQuota, created by Rehearsal with the namespace and
// before anything is restored into it, bounding the storage its claims request and their number.
// The limits are the installation's (REHEARSAL_SANDBOX_STORAGE_QUOTA, REHEARSAL_SANDBOX_CLAIM_QUOTA).

/** The quota's name in every sandbox; Velero's refusals name it ("exceeded quota: <name>"). */
export const SANDBOX_STORAGE_QUOTA_NAME = 'rehearsal-sandbox-storage';

export const DEFAULT_SANDBOX_STORAGE_QUOTA = '100Gi';
export const DEFAULT_SANDBOX_CLAIM_QUOTA = 20;

/** The installation's limits for one sandbox namespace. */
export interface SandboxStorageQuota {
  /** requests.storage: the sum of the storage the sandbox's claims request (a Kubernetes quantity). */
  storage: string;
  /** persistentvolumeclaims: how many claims the sandbox may hold. */
  claims: number;
}

export const DEFAULT_SANDBOX_STORAGE_LIMITS: Readonly<SandboxStorageQuota> = Object.freeze({
  storage: DEFAULT_SANDBOX_STORAGE_QUOTA,
  claims: DEFAULT_SANDBOX_CLAIM_QUOTA,
});

// k8s.io/apimachinery resource.Quantity: a decimal number, then a binary suffix (Ki … Ei), a
// decimal suffix (n u m k M G T P E) or a decimal exponent; no sign here (a negative limit means nothing).
const QUANTITY = /^(?:\d+(?:\.\d*)?|\.\d+)(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/** Whether `text` is a Kubernetes quantity such as 100Gi, 500M or 1.5Ti. */
export function isQuantity(text: string): boolean {
  return QUANTITY.test(text);
}

/** The quota's spec.hard. */
export function storageQuotaHard(limits: SandboxStorageQuota): Record<string, string> {
  return { 'requests.storage': limits.storage, persistentvolumeclaims: String(limits.claims) };
}

/** The ResourceQuota of one sandbox, labelled as Rehearsal's like the sandbox's other objects. */
export function storageQuotaObject(
  limits: SandboxStorageQuota,
  labels: Record<string, string>,
): { metadata: { name: string; labels: Record<string, string> }; spec: { hard: Record<string, string> } } {
  return { metadata: { name: SANDBOX_STORAGE_QUOTA_NAME, labels: { ...labels } }, spec: { hard: storageQuotaHard(limits) } };
}

/**
 * Whether kube-controller-manager has synced the quota: status.hard and status.used both name
 * every limit of spec.hard. The ResourceQuota admission plugin enforces only what status.hard
 * names, and refuses a create it cannot count ("status unknown for quota") while status.used
 * lacks a limit of status.hard: a restore requested before the sync would either escape the quota
 * or lose its claims, so it waits for this.
 */
export function quotaSynced(quota: {
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}): boolean {
  const { hard, used } = quota.status ?? {};
  if (!hard || !used) return false;
  return Object.keys(quota.spec?.hard ?? {}).every((resource) => resource in hard && resource in used);
}

/** Whether an error message is kube-apiserver's refusal by the sandbox storage quota. */
export function refusedByStorageQuota(message: string): boolean {
  return message.includes(`exceeded quota: ${SANDBOX_STORAGE_QUOTA_NAME}`);
}
