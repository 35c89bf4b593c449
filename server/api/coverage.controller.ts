// GET /api/v1/coverage: the namespaces the backup tool backs up, and which of them no passing
// restore test covers (issue 16); of the namespaces the caller may list (issue 30).
import { Controller, Extension, Get, OperationId, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { CoverageResponse } from '../domain/read-models/coverage.js';
import { listScopeOf } from './auth/namespace-scope.js';
import {
  COVERAGE_KASTEN_POLICIES,
  COVERAGE_KASTEN_RESTORE_POINTS,
  COVERAGE_TRILIO_BACKUP_PLANS,
  COVERAGE_TRILIO_BACKUPS,
  COVERAGE_TRILIO_POLICIES,
  COVERAGE_VELERO_BACKUPS,
  COVERAGE_VELERO_SCHEDULES,
  LIST_REPORTS_READABLE,
  LIST_TESTS_READABLE,
  RBAC_EXTENSION,
} from './auth/permissions.js';
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
   * A caller who may not list RestoreTests and RestoreReports cluster-wide sees the backed-up
   * namespaces where they may (their counts, and only the tests in those namespaces).
   * @summary Backed-up namespaces and their restore-test coverage
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('coverage')
  @OperationId('getCoverage')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'Coverage')
  @Response<ProblemDetails>(400, 'namespace is not an RFC 1123 label')
  @Extension(RBAC_EXTENSION, [
    LIST_TESTS_READABLE,
    LIST_REPORTS_READABLE,
    COVERAGE_VELERO_SCHEDULES,
    COVERAGE_VELERO_BACKUPS,
    COVERAGE_KASTEN_POLICIES,
    COVERAGE_KASTEN_RESTORE_POINTS,
    COVERAGE_TRILIO_BACKUP_PLANS,
    COVERAGE_TRILIO_POLICIES,
    COVERAGE_TRILIO_BACKUPS,
  ])
  @Response<ProblemDetails>(503, 'Caches still loading (not-ready), or the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable)')
  public async getCoverage(@Request() request: ExpressRequest, @Query() namespace?: string): Promise<CoverageResponse> {
    return this.api.coverage.coverage(listScopeOf(request, namespace));
  }
}
