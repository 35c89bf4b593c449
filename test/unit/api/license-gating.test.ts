// Which license opens which feature (decisions 0006–0008): the tier AND the flag; refusals are 402
// license-required problems that say what is missing and why the license in effect is what it is.
import { describe, expect, it } from '@jest/globals';
import { ProblemError } from '../../../server/api/problem.js';
import {
  COMPLIANCE_PAGE,
  entitlementGap,
  LicenseService,
  PDF_EXPORT,
  PDF_REPORTS,
  type Entitlement,
} from '../../../server/api/services/license.service.js';
import { featuresForTier } from '../../../server/domain/license-tiers.js';
import type { LicenseTier } from '../../../protocol/license-claims.js';
import type { LicenseResponse } from '../../../server/domain/read-models/views.js';

function license(
  tier: LicenseTier,
  features: string[] = featuresForTier(tier),
  extra: Partial<LicenseResponse> = {},
): LicenseResponse {
  return {
    tier,
    expiresAt: null,
    trialEndsAt: null,
    isExpired: false,
    isTrialing: false,
    trialDaysLeft: 0,
    features,
    ...extra,
  };
}

describe('entitlementGap', () => {
  it.each<[LicenseTier, Entitlement, boolean]>([
    ['community', COMPLIANCE_PAGE, false],
    ['pro', COMPLIANCE_PAGE, true],
    ['enterprise', COMPLIANCE_PAGE, true],
    ['community', PDF_EXPORT, false],
    ['pro', PDF_EXPORT, false],
    ['enterprise', PDF_EXPORT, true],
    ['community', PDF_REPORTS, false],
    ['pro', PDF_REPORTS, false],
    ['enterprise', PDF_REPORTS, true],
  ])('%s → %s: granted %s', (tier, entitlement, granted) => {
    expect(entitlementGap(license(tier), entitlement) === undefined).toBe(granted);
  });

  it('needs the tier as well as the flag: an extra pdfExport flag does not make pro enterprise', () => {
    expect(entitlementGap(license('pro', ['compliancePage', 'pdfExport']), PDF_EXPORT)).toBe(
      'PDF export of compliance evidence needs the enterprise tier with the feature flag pdfExport; the license in effect is pro.',
    );
  });

  it('names the missing flag alone when the tier is right', () => {
    expect(entitlementGap(license('enterprise', ['compliancePage']), PDF_REPORTS)).toBe(
      'PDF test reports needs the feature flag pdfReports; the license in effect is enterprise.',
    );
  });

  it('says why the license in effect is community, and marks a trial', () => {
    expect(
      entitlementGap(
        license('community'),
        COMPLIANCE_PAGE,
        'enterprise license expired at 2026-01-31T00:00:00.000Z',
      ),
    ).toBe(
      'The Compliance page needs the Team (pro) or enterprise tier with the feature flag compliancePage; the license in effect is community (enterprise license expired at 2026-01-31T00:00:00.000Z).',
    );
    expect(entitlementGap(license('pro', ['compliancePage'], { isTrialing: true }), PDF_EXPORT)).toContain(
      'the license in effect is pro (trial)',
    );
  });
});

describe('LicenseService', () => {
  it('without a license source: community, and every gate answers 402', () => {
    const service = new LicenseService();
    expect(service.license()).toMatchObject({ tier: 'community', features: [] });
    let thrown: unknown;
    try {
      service.require(PDF_EXPORT);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProblemError);
    expect((thrown as ProblemError).toProblem('/api/v1/compliance/pdf')).toEqual({
      type: 'https://rehearsal.dev/problems/license-required',
      title: 'License required',
      status: 402,
      detail:
        'PDF export of compliance evidence needs the enterprise tier with the feature flag pdfExport; the license in effect is community (no license source configured).',
      instance: '/api/v1/compliance/pdf',
    });
  });

  it('lets a licensed request through', () => {
    const service = new LicenseService({ current: () => ({ license: license('enterprise') }) });
    expect(() => service.require(PDF_REPORTS)).not.toThrow();
    expect(() => service.require(COMPLIANCE_PAGE)).not.toThrow();
  });
});
