// What every Rehearsal custom resource shares: the API group and version, the labels and
// annotations the engine puts on what it creates, object metadata and conditions, and the values
// that RestoreTest and RestoreReport both carry (provider, trigger, result). Pure types only.

export const GROUP = 'rehearsal.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const LABEL_TEST = 'rehearsal.dev/test';
export const LABEL_TEST_NAMESPACE = 'rehearsal.dev/test-namespace';
export const LABEL_RUN = 'rehearsal.dev/run';
export const LABEL_MANAGED_BY = 'rehearsal.dev/managed-by';
export const MANAGED_BY_VALUE = 'rehearsal';
export const LABEL_SOURCE_NAMESPACE = 'rehearsal.dev/source-namespace';
/** Set by the API's trigger endpoint (value: a unique request id); survives restarts. */
export const ANNOTATION_TRIGGER = 'rehearsal.dev/trigger-request';
/**
 * Who wrote a RestoreTest's spec, and groups they hold (comma-separated, a subset of theirs): set by
 * the API for its callers, checked by the admission policy against the writer (decision 0018), and
 * re-checked by the engine before each run of a test restoring another namespace.
 */
export const ANNOTATION_AUTHOR = 'rehearsal.dev/author';
export const ANNOTATION_AUTHOR_GROUPS = 'rehearsal.dev/author-groups';
/** On sandbox namespaces: when the janitor may delete it (RFC 3339). */
export const ANNOTATION_EXPIRES_AT = 'rehearsal.dev/expires-at';
/**
 * On sandbox namespaces: the UID of the RestoreTest the sandbox was made for, so a sandbox of a
 * test deleted and created again under the same name is known as an orphan (sandbox-verdict.ts).
 */
export const ANNOTATION_TEST_UID = 'rehearsal.dev/test-uid';
/**
 * On sandbox namespaces: `<keyId>:<Ed25519 signature>` by the installation's evidence key over the
 * namespace's name, run and test (server/engine/sandbox/sandbox-claim.ts): lets a replica that
 * takes over a run recognise the sandbox a replica killed before recording it had created.
 */
export const ANNOTATION_SANDBOX_CLAIM = 'rehearsal.dev/sandbox-claim';

// The providers: a value of the request body too, so they live with it in protocol/ (the formats
// the plugin and the server share); resource types keep this one entry point.
export { PROVIDERS, type Provider } from '../../../protocol/test-input.js';

export type RunResult = 'pass' | 'partial' | 'fail';
/** schedule: a cron instant; manual: a trigger request; backup: a new backup of the source (issue 32). */
export type RunTrigger = 'schedule' | 'manual' | 'backup';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  /** @isInt */
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}
