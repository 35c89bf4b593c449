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
