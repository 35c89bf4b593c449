// API types that are not domain read models. RestoreReportResource is the RestoreReport custom
// resource exactly as the API returns it; it only restates the two type-level fields tsoa cannot
// read from server/domain/resources/resources.ts (`typeof API_VERSION`). ReportsController returns domain
// RestoreReports as this type, so the build fails if the two ever drift apart.
import type { ObjectMeta, RestoreReportSpec } from '../domain/resources/resources.js';

/** A RestoreReport in its full resource representation (as `kubectl get restorereport -o json`). */
export interface RestoreReportResource {
  /** rehearsal.dev/v1alpha1 */
  apiVersion: string;
  kind: 'RestoreReport';
  metadata: ObjectMeta;
  spec: RestoreReportSpec;
}

/**
 * A public key that verifies Rehearsal evidence (RestoreReport spec.evidence and PDF attestations).
 * The same keys are published in the ConfigMap rehearsal-evidence-public-keys.
 * @example {
 *   "keyId": "3f2a9c0b7d1e4f56",
 *   "algorithm": "Ed25519",
 *   "publicKeyPem": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA...\n-----END PUBLIC KEY-----\n",
 *   "createdAt": "2026-03-01T08:00:00.000Z",
 *   "status": "current"
 * }
 */
export interface EvidencePublicKey {
  /** First 16 hex characters of SHA-256 over the key's SPKI DER encoding (spec.evidence.keyId). */
  keyId: string;
  algorithm: 'Ed25519';
  /** SPKI PEM. */
  publicKeyPem: string;
  /** When the key was created (RFC 3339 UTC). */
  createdAt: string;
  /** current: signs new evidence; retired: replaced by a rotation, still verifies older evidence. */
  status: 'current' | 'retired';
  /** When the key was retired (retired keys only). */
  retiredAt?: string;
}

/**
 * What the server makes of a sandbox namespace (a namespace carrying the reserved label
 * rehearsal.dev/managed-by=rehearsal):
 * - in-use: the test's current run uses it;
 * - kept: a finished run's sandbox, kept for inspection until expiresAt;
 * - expired: a finished run's sandbox past expiresAt (the janitor removes it at its next sweep);
 * - orphaned: its RestoreTest was deleted (or deleted and created again); the janitor removes it
 *   at expiresAt, an administrator may remove it at once;
 * - unrecorded: its test exists, but neither the current run nor the run's report records it;
 * - unrecognised: its labels do not name a test and run, or its name is not their sandbox name;
 * - deleting: already being deleted.
 * Only orphaned sandboxes are removed on request; the server never deletes unrecorded or
 * unrecognised namespaces (decision 0009).
 */
export type SandboxState = 'in-use' | 'kept' | 'expired' | 'orphaned' | 'unrecorded' | 'unrecognised' | 'deleting';

/**
 * A sandbox namespace and what the server makes of it.
 * @example {
 *   "name": "rehearsal-payments-x7k2p",
 *   "uid": "0b6f2c4e-8a1d-4c3e-9f7a-2d5b6e8c1a90",
 *   "test": "payments",
 *   "testNamespace": "team-a",
 *   "run": "x7k2p",
 *   "state": "orphaned",
 *   "orphaned": true,
 *   "createdAt": "2026-11-28T07:00:00.000Z",
 *   "expiresAt": "2026-11-28T08:00:00.000Z",
 *   "message": "its test team-a/payments was deleted; kept until its expiry at 2026-11-28T08:00:00.000Z"
 * }
 */
export interface SandboxInfo {
  /** The namespace's name. */
  name: string;
  /** The namespace's UID: pass it to removeOrphanedSandbox to remove exactly this namespace. */
  uid: string;
  /** The RestoreTest its labels name ("" when the label is missing). */
  test: string;
  /** That test's namespace ("" when the label is missing). */
  testNamespace: string;
  /** The run its labels name ("" when the label is missing). */
  run: string;
  state: SandboxState;
  /** Its test is gone: an administrator may remove it now (removeOrphanedSandbox). */
  orphaned: boolean;
  /** When the namespace was created (RFC 3339 UTC). */
  createdAt?: string;
  /** When the janitor may remove it (RFC 3339 UTC); absent when it has no readable expiry. */
  expiresAt?: string;
  /** Why it is in that state, for a human. */
  message: string;
}
