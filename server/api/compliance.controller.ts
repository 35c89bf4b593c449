// Compliance evidence summaries (decision 0006): per framework on /api/v1/compliance, and the
// dashboard's overview of every framework on the unversioned /api/compliance.
import {
  Controller,
  Extension,
  Get,
  OperationId,
  Query,
  Request,
  Response,
  Route,
  Security,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { FrameworkId } from '../domain/compliance/catalogue.js';
import type { ComplianceOverview } from '../domain/compliance/evaluation.js';
import type { ComplianceResponse } from '../domain/read-models/views.js';
import { LIST_REPORTS, LIST_TESTS, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import { sendPreparedJson } from './responses/prepared-json.js';
import type { ProblemDetails } from './problem.js';
import { COMPLIANCE_PAGE } from './services/license.service.js';

@Route('api/v1')
@Tags('Compliance')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class ComplianceController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Evidence summary for one framework over the last `period` days: run totals, pass rate, SLA
   * compliance, and each control's status (satisfied, at_risk, not_tested) with its evidence
   * sentence. Statuses say what the evidence supports, not that a system is compliant.
   * @summary Compliance evidence for one framework
   * @param framework soc2, iso27001, hipaa, dora or pcidss.
   * @param period Reporting period in days.
   * @isInt period must be an integer
   * @minimum period 1 must be between 1 and 3650
   * @maximum period 3650 must be between 1 and 3650
   */
  @Get('compliance')
  @OperationId('getCompliance')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS])
  @Response<ProblemDetails>(400, 'framework unknown or missing, or period missing or out of range')
  public async getCompliance(
    @Request() request: ExpressRequest,
    @Query() framework: FrameworkId,
    @Query() period: number,
  ): Promise<ComplianceResponse> {
    // The service memoises the evaluation; the same answer object keeps its serialised body.
    return sendPreparedJson(
      request,
      this.api.responses.forValue(await this.api.compliance.framework(framework, period)),
    );
  }
}

@Route('api')
@Tags('Compliance')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class ComplianceOverviewController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * The dashboard's Compliance page: every framework's ComplianceResponse over the period, and
   * each RestoreTest's pass rate and run count. The page offers 30, 60 and 90 days. The page is a
   * licensed feature: Team (pro) tier or above with the flag compliancePage, else 402. (The JSON
   * API GET /api/v1/compliance stays available on every tier.) Through the Kubernetes API
   * aggregation layer: /apis/api.rehearsal.dev/v1/compliance/overview.
   * @summary Compliance overview (dashboard path)
   * @param period Period in days.
   * @isInt period must be an integer
   * @minimum period 1 must be between 1 and 3650
   * @maximum period 3650 must be between 1 and 3650
   */
  @Get('compliance')
  @OperationId('getComplianceOverview')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS])
  @Response<ProblemDetails>(400, 'period is not an integer from 1 to 3650')
  @Response<ProblemDetails>(
    402,
    'The license in effect lacks the Compliance page (Team tier or above, flag compliancePage)',
  )
  public async getComplianceOverview(
    @Request() request: ExpressRequest,
    @Query() period: number = 90,
  ): Promise<ComplianceOverview> {
    this.api.license.require(COMPLIANCE_PAGE);
    return sendPreparedJson(request, this.api.responses.forValue(await this.api.compliance.overview(period)));
  }
}
