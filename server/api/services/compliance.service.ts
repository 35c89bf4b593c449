// Compliance evidence summaries (decisions §6): one framework, or the dashboard's overview of all.
import type { FrameworkId } from '../../domain/compliance-catalogue.js';
import {
  complianceOverview,
  evaluateCompliance,
  type ComplianceEvaluation,
  type ComplianceOverview,
} from '../../domain/compliance.js';
import type { ComplianceResponse } from '../../domain/views.js';
import type { ApiCache, EvidenceVerifier } from '../ports.js';
import { requireSynced } from './readiness.js';

export class ComplianceService {
  constructor(
    private readonly cache: ApiCache,
    private readonly now: () => Date,
    /** Absent: signatures are not checked (the domain says so in its detail). */
    private readonly verify?: EvidenceVerifier,
  ) {}

  framework(framework: FrameworkId, periodDays: number): ComplianceResponse {
    return this.evaluate(framework, periodDays, this.now()).response;
  }

  /** The response and the detail the PDF is built from, evaluated at `now`. */
  evaluate(framework: FrameworkId, periodDays: number, now: Date): ComplianceEvaluation {
    requireSynced(this.cache);
    return evaluateCompliance({
      framework,
      periodDays,
      now,
      tests: this.cache.listTests(),
      reports: this.cache.reportIndex,
      ...(this.verify ? { verify: this.verify } : {}),
    });
  }

  overview(periodDays: number): ComplianceOverview {
    requireSynced(this.cache);
    return complianceOverview(
      periodDays,
      this.now(),
      this.cache.listTests(),
      this.cache.reportIndex,
      this.verify,
    );
  }
}
