// The claims of a Rehearsal license (a compact JWS, alg EdDSA, typ rehearsal-license+jwt): what the
// vendor's tool (cmd/rehearsal-license) writes and what the server verifies and evaluates
// (server/license/, server/domain/license-tiers.ts). test/unit/license/license-cli.test.ts
// round-trips a token issued by the tool through the server's verifier.

export type LicenseTier = 'community' | 'pro' | 'enterprise';
export const LICENSE_TIERS: readonly LicenseTier[] = ['community', 'pro', 'enterprise'];

export interface LicenseClaims {
  tier: LicenseTier;
  /** Expiry, JWT NumericDate (seconds since the epoch). Absent = perpetual. */
  exp?: number;
  /** Not valid before, JWT NumericDate. */
  nbf?: number;
  /** Issued at, JWT NumericDate. */
  iat?: number;
  /** End of a trial, RFC 3339 (UTC). Present only on trial licenses. */
  trialEndsAt?: string;
  /** Extra feature flags granted on top of the tier's. */
  features?: string[];
  /** Licensee (customer identifier). */
  sub?: string;
  /** Human-readable customer name. */
  customer?: string;
  /** Issuer. */
  iss?: string;
}
