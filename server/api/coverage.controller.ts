// GET /api/v1/coverage: the namespaces the backup tool backs up, and which of them no passing
// restore test covers (issue 16).
import { Controller, Extension, Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { CoverageResponse } from '../domain/read-models/coverage.js';
import { LIST_REPORTS, LIST_TESTS, LIST_VELERO_BACKUPS, LIST_VELERO_SCHEDULES, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';

@Route('api/v1')
@Tags('Coverage')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
export class CoverageController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Every namespace a backup schedule or a completed backup covers, with its status: `tested` (a
   * passing run restored it within its window: the interval of its most frequent backup schedule,
   * at least REHEARSAL_COVERAGE_MIN_WINDOW), `stale` (the newest pass is older) or `untested`
   * (never a passing run). Untested and stale namespaces come first. The backup tool's objects are
   * re-read at most every REHEARSAL_COVERAGE_REFRESH_SECONDS; runs count as soon as they are reported.
   * @summary Backed-up namespaces and their restore-test coverage
   */
  @Get('coverage')
  @OperationId('getCoverage')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS, LIST_VELERO_SCHEDULES, LIST_VELERO_BACKUPS])
  @Response<ProblemDetails>(503, 'Caches still loading (not-ready), or Velero not installed or not reachable (backup-tool-unavailable)')
  public async getCoverage(): Promise<CoverageResponse> {
    return this.api.coverage.coverage();
  }
}
