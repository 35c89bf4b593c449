// GET /api/v1/reports: RestoreReports in full resource representation.
import {
  Controller,
  Extension,
  Get,
  OperationId,
  Query,
  Response,
  Route,
  Security,
  Tags,
} from '@tsoa/runtime';
import { LIST_REPORTS_FILTERED, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { RestoreReportResource } from './dto.js';
import type { ProblemDetails } from './problem.js';

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
  @Extension(RBAC_EXTENSION, [LIST_REPORTS_FILTERED])
  @Response<ProblemDetails>(400, 'A query parameter is malformed or out of range')
  @Response<ProblemDetails>(404, 'test names a RestoreTest that does not exist')
  public listReports(
    @Query() test?: string,
    @Query() namespace?: string,
    @Query() days: number = 30,
    @Query() latest: boolean = false,
  ): RestoreReportResource[] {
    return this.api.reports.list({
      ...(test !== undefined ? { test } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      days,
      latest,
    });
  }
}
