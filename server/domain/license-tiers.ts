// License rules (decision 0007): which features a tier enables, and how a verified license payload
// becomes the LicenseResponse the API serves at a given instant. Pure: the signature has already
// been checked by server/license/license-verifier.ts, and the clock is a parameter.
//
// Rules, in order:
// 1. No license, or one that failed verification → community, no features, reason given.
// 2. `nbf` in the future → community ("not yet valid").
// 3. `exp` (JWT NumericDate, seconds) at or before `now` → community, isExpired = true. No `exp` =
//    perpetual (expiresAt null).
// 4. `trialEndsAt` present → the license is a trial. While now < trialEndsAt it is active with
//    isTrialing = true; at or after trialEndsAt the trial has lapsed and the license counts as
//    expired (community, isExpired = true). A customer who buys gets a new license without
//    `trialEndsAt`.
// 5. Otherwise the tier's features plus the payload's extra `features` are enabled.
//
// trialDaysLeft rounds UP to whole days: 1 second left is 1 day left, exactly 14 × 24 h is 14.
// This matches what a person reads on a banner ("1 day left" on the last day, never "0 days left"
// while the trial still works); 0 means "not trialing".

import type { LicenseResponse } from './read-models/views.js';
import { LICENSE_TIERS, type LicenseClaims, type LicenseTier } from '../../protocol/license-claims.js';

/** Feature flags gated by the license. `pro` is sold as "Team". */
export type GatedFeature = 'compliancePage' | 'pdfExport' | 'pdfReports';

export const TIER_FEATURES: Readonly<Record<LicenseTier, readonly GatedFeature[]>> = {
  community: [],
  pro: ['compliancePage'],
  enterprise: ['compliancePage', 'pdfExport', 'pdfReports'],
};

/** Outcome of signature verification, as produced by license-verifier.ts. */
export type LicenseVerification =
  { ok: true; claims: LicenseClaims; keyId: string } | { ok: false; reason: string };

export interface LicenseEvaluation {
  license: LicenseResponse;
  /** Why the license is not in effect (for the log); absent when it is. */
  reason?: string;
  /** The licensee, when a verified license names one. */
  licensee?: string;
}

const FEATURE_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

export function featuresForTier(tier: LicenseTier): GatedFeature[] {
  return [...TIER_FEATURES[tier]];
}

export function isLicenseTier(value: unknown): value is LicenseTier {
  return typeof value === 'string' && (LICENSE_TIERS as readonly string[]).includes(value);
}

/** The tier's flags first (in their fixed order), then the extra flags sorted, without duplicates. */
export function enabledFeatures(tier: LicenseTier, extra: readonly string[] = []): string[] {
  const base: string[] = featuresForTier(tier);
  const extras = [...new Set(extra.filter((f) => FEATURE_NAME.test(f) && !base.includes(f)))].sort();
  return [...base, ...extras];
}

export const COMMUNITY_LICENSE: Readonly<LicenseResponse> = Object.freeze({
  tier: 'community',
  expiresAt: null,
  trialEndsAt: null,
  isExpired: false,
  isTrialing: false,
  trialDaysLeft: 0,
  features: [],
});

function community(overrides: Partial<LicenseResponse> = {}): LicenseResponse {
  return { ...COMMUNITY_LICENSE, features: [], ...overrides };
}

/**
 * Checks the shape of a decoded payload. Returns the claims, or a reason naming the bad field.
 * Unknown claims are ignored (forward compatible); known claims of the wrong type are rejected.
 */
export function parseLicenseClaims(
  payload: unknown,
): { ok: true; claims: LicenseClaims } | { ok: false; reason: string } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { ok: false, reason: 'license payload is not a JSON object' };
  }
  const p = payload as Record<string, unknown>;
  if (!isLicenseTier(p.tier)) {
    return {
      ok: false,
      reason: `license payload has an unknown tier ${JSON.stringify(p.tier)} (expected ${LICENSE_TIERS.join(', ')})`,
    };
  }
  const claims: LicenseClaims = { tier: p.tier };
  for (const key of ['exp', 'nbf', 'iat'] as const) {
    const v = p[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return { ok: false, reason: `license claim ${key} is not a NumericDate` };
    }
    claims[key] = v;
  }
  if (p.trialEndsAt !== undefined) {
    const t = p.trialEndsAt;
    if (typeof t !== 'string' || Number.isNaN(Date.parse(t))) {
      return { ok: false, reason: 'license claim trialEndsAt is not an RFC 3339 timestamp' };
    }
    claims.trialEndsAt = new Date(Date.parse(t)).toISOString();
  }
  if (p.features !== undefined) {
    if (!Array.isArray(p.features) || !p.features.every((f) => typeof f === 'string')) {
      return { ok: false, reason: 'license claim features is not an array of strings' };
    }
    const bad = p.features.filter((f) => !FEATURE_NAME.test(f));
    if (bad.length > 0) {
      return {
        ok: false,
        reason: `license claim features has invalid names: ${bad.map((f) => JSON.stringify(f)).join(', ')}`,
      };
    }
    claims.features = [...p.features];
  }
  for (const key of ['sub', 'customer', 'iss'] as const) {
    const v = p[key];
    if (v === undefined) continue;
    if (typeof v !== 'string') return { ok: false, reason: `license claim ${key} is not a string` };
    claims[key] = v;
  }
  return { ok: true, claims };
}

/** Days left in a trial, rounded up; 0 when the trial has ended. */
export function trialDaysLeft(trialEndsAt: Date, now: Date): number {
  const ms = trialEndsAt.getTime() - now.getTime();
  return ms <= 0 ? 0 : Math.ceil(ms / DAY_MS);
}

/** Computes the LicenseResponse in effect at `now` from a verification outcome (or no license). */
export function evaluateLicense(verification: LicenseVerification | undefined, now: Date): LicenseEvaluation {
  if (verification === undefined) {
    return { license: community(), reason: 'no license installed' };
  }
  if (!verification.ok) {
    return { license: community(), reason: verification.reason };
  }
  const { claims } = verification;
  const licensee = claims.customer ?? claims.sub;
  const withLicensee = (e: LicenseEvaluation): LicenseEvaluation =>
    licensee === undefined ? e : { ...e, licensee };
  const nowMs = now.getTime();
  const expiresAt = claims.exp === undefined ? null : new Date(claims.exp * 1000).toISOString();
  const trialEnds = claims.trialEndsAt === undefined ? null : new Date(claims.trialEndsAt);

  if (claims.nbf !== undefined && claims.nbf * 1000 > nowMs) {
    return withLicensee({
      license: community(),
      reason: `license is not valid before ${new Date(claims.nbf * 1000).toISOString()}`,
    });
  }
  if (claims.exp !== undefined && claims.exp * 1000 <= nowMs) {
    return withLicensee({
      license: community({ expiresAt, trialEndsAt: trialEnds?.toISOString() ?? null, isExpired: true }),
      reason: `${claims.tier} license expired at ${expiresAt}`,
    });
  }
  if (trialEnds !== null && trialEnds.getTime() <= nowMs) {
    return withLicensee({
      license: community({ expiresAt, trialEndsAt: trialEnds.toISOString(), isExpired: true }),
      reason: `${claims.tier} trial ended at ${trialEnds.toISOString()}`,
    });
  }
  return withLicensee({
    license: {
      tier: claims.tier,
      expiresAt,
      trialEndsAt: trialEnds?.toISOString() ?? null,
      isExpired: false,
      isTrialing: trialEnds !== null,
      trialDaysLeft: trialEnds === null ? 0 : trialDaysLeft(trialEnds, now),
      features: enabledFeatures(claims.tier, claims.features),
    },
  });
}
