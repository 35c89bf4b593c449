// The claims of a Rehearsal license JWS, as the vendor tool writes them.
// Duplicated by design from server/domain/license-tiers.ts (LicenseClaims): cmd/ must not import
// server/. Keep the two in step; test/unit/license/license-cli.test.ts round-trips a token issued
// here through the server's verifier.

export type LicenseTier = 'community' | 'pro' | 'enterprise';
export const LICENSE_TIERS: readonly LicenseTier[] = ['community', 'pro', 'enterprise'];

export interface LicenseClaims {
  tier: LicenseTier;
  /** Expiry, JWT NumericDate (seconds). Absent = perpetual. */
  exp?: number;
  /** Issued at, JWT NumericDate. */
  iat?: number;
  /** End of a trial, RFC 3339 (UTC). Present only on trial licenses. */
  trialEndsAt?: string;
  /** Extra feature flags on top of the tier's. */
  features?: string[];
  /** Licensee identifier. */
  sub?: string;
  /** Licensee display name. */
  customer?: string;
  iss?: string;
}
