// The license in effect and the gates it sets (decisions 0006–0008):
// - the dashboard's Compliance page (GET /api/compliance): Team ("pro") tier or above, flag
//   compliancePage;
// - the compliance PDF (GET /api/v1/compliance/pdf): enterprise tier, flag pdfExport;
// - the test report PDF (GET /api/restore-tests/{name}/report.pdf): enterprise tier, flag pdfReports.
// A gate needs the tier AND the flag, so an extra flag granted to a lower tier does not open an
// enterprise-only feature. Refusals are 402 license-required problems that say what is missing and
// why the license in effect is what it is (e.g. "expired at ...", never the token).
//
// GET /api/v1/compliance (the JSON API) is not gated: the seed specification lists no 402 for it,
// and external tooling (the kubectl plugin, monitoring) reads it on every tier.
import { COMMUNITY_LICENSE, type GatedFeature } from '../../domain/license-tiers.js';
import type { LicenseTier } from '../../../protocol/license-claims.js';
import type { LicenseResponse } from '../../domain/read-models/views.js';
import type { LicenseSource } from '../ports.js';
import { ProblemError } from '../problem.js';

export interface Entitlement {
  feature: GatedFeature;
  tiers: readonly LicenseTier[];
  /** What is refused, for the problem's detail ("PDF export of compliance evidence"). */
  what: string;
  /** The tier to name in the detail ("enterprise", "Team (pro) or enterprise"). */
  needs: string;
}

export const COMPLIANCE_PAGE: Entitlement = {
  feature: 'compliancePage',
  tiers: ['pro', 'enterprise'],
  what: 'The Compliance page',
  needs: 'the Team (pro) or enterprise tier',
};
export const PDF_EXPORT: Entitlement = {
  feature: 'pdfExport',
  tiers: ['enterprise'],
  what: 'PDF export of compliance evidence',
  needs: 'the enterprise tier',
};
export const PDF_REPORTS: Entitlement = {
  feature: 'pdfReports',
  tiers: ['enterprise'],
  what: 'PDF test reports',
  needs: 'the enterprise tier',
};

/** Why `license` does not grant `entitlement` (a sentence), or undefined when it does. */
export function entitlementGap(
  license: LicenseResponse,
  entitlement: Entitlement,
  reason?: string,
): string | undefined {
  const tierOk = (entitlement.tiers as readonly string[]).includes(license.tier);
  const flagOk = license.features.includes(entitlement.feature);
  if (tierOk && flagOk) return undefined;
  const missing = tierOk
    ? `the feature flag ${entitlement.feature}`
    : `${entitlement.needs} with the feature flag ${entitlement.feature}`;
  const active = `the license in effect is ${license.tier}${license.isTrialing ? ' (trial)' : ''}`;
  const why = reason ? ` (${reason})` : '';
  return `${entitlement.what} needs ${missing}; ${active}${why}.`;
}

export class LicenseService {
  constructor(private readonly source?: LicenseSource) {}

  current(): { license: LicenseResponse; reason?: string } {
    if (!this.source)
      return { license: { ...COMMUNITY_LICENSE, features: [] }, reason: 'no license source configured' };
    return this.source.current();
  }

  /** The LicenseResponse of GET /api/v1/license. */
  license(): LicenseResponse {
    return this.current().license;
  }

  /** Throws a 402 license-required problem unless the license in effect grants the entitlement. */
  require(entitlement: Entitlement): void {
    const { license, reason } = this.current();
    const gap = entitlementGap(license, entitlement, reason);
    if (gap) throw new ProblemError('license-required', gap);
  }
}
