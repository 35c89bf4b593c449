// GET /api/v1/reports: RestoreReports in full resource representation.
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
import { LIST_REPORTS_FILTERED, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { RestoreReportResource } from './dto.js';
import { sendPreparedJson } from './prepared-json.js';
import type { ProblemDetails } from './problem.js';

/**
 * How long a list of reports is reused while no report or test changes: its window ("the last N
 * days") moves with the clock. Rebuilt in the background, so no request waits for that.
 */
const REPORTS_TTL_MS = 5_000;

@Route('api/v1')
@Tags('Reports')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class ReportsController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * RestoreReports completed in the last `days` days, newest first, exactly as stored in the
   * cluster (apiVersion, kind, metadata, spec). Narrow with `test` (and its `namespace`), or with
   * `namespace` alone; `latest` keeps only the most recent report of each test.
   * @summary List RestoreReports
   * @param test Only the reports of this RestoreTest (404 when it does not exist).
   * @param namespace Namespace of `test` (default: the server's namespace); without `test`, only reports in this namespace.
   * @param days Look-back in days.
   * @param latest Only the most recent report per test.
   * @pattern test ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength test 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @isInt days must be an integer
   * @isBoolean latest must be true or false
   * @minimum days 1 must be between 1 and 3650
   * @maximum days 3650 must be between 1 and 3650
   */
  @Get('reports')
  @OperationId('listReports')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_REPORTS_FILTERED])
  @Response<ProblemDetails>(400, 'A query parameter is malformed or out of range')
  @Response<ProblemDetails>(404, 'test names a RestoreTest that does not exist')
  public async listReports(
    @Request() request: ExpressRequest,
    @Query() test?: string,
    @Query() namespace?: string,
    @Query() days: number = 30,
    @Query() latest: boolean = false,
  ): Promise<RestoreReportResource[]> {
    const query = {
      ...(test !== undefined ? { test } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      days,
      latest,
    };
    this.api.reports.validate(query);
    const key = `reports?test=${test ?? ''}&namespace=${namespace ?? ''}&days=${days}&latest=${latest}`;
    return sendPreparedJson(
      request,
      this.api.responses.jsonAsync(key, REPORTS_TTL_MS, () => this.api.reports.json(query)),
    );
  }
}
