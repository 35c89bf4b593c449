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
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { listScopeOf, scopeKey, type NamespaceScope } from './auth/namespace-scope.js';
import { LIST_REPORTS_READABLE, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { RestoreReportResource } from './dto.js';
import { sendPreparedJson } from './responses/prepared-json.js';
import type { RunResult } from '../domain/resources/resources.js';
import { sendStreamedJson } from './responses/streamed-json.js';
import type { ProblemDetails } from './problem.js';
import { nextPageLink } from './services/page-link.js';

/**
 * How long a list of reports is reused while no report or test changes: its window ("the last N
 * days") moves with the clock. Rebuilt in the background, so no request waits for that.
 */
const REPORTS_TTL_MS = 5_000;

/**
 * Pages with more reports than this (~3 KB each) are streamed, not built and cached: the response
 * cache keeps answers up to 4 MiB, so larger ones were built whole for every request anyway. Not
 * `latest` (one report per test, however many tests): that list is kept and rebuilt incrementally
 * (ReportsService.latestJson); streamed, 3,000 tests' latest reports were inflated and sent whole
 * for every request (~350 ms of CPU each), and the endpoint answered 63 of 2,000 at 200 req/s.
 */
export const STREAMED_PAGE_REPORTS = 1_000;

/** The list a query selects, whatever its page: the start of a cached page's key. */
function listKey(query: { test?: string; namespace?: string; result?: RunResult; days: number; scope: NamespaceScope }): string {
  return `reports?test=${query.test ?? ''}&namespace=${query.namespace ?? ''}&result=${query.result ?? ''}&days=${query.days}${scopeKey(query.scope)}`;
}

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
   * `namespace` alone, and by `result`; `latest` keeps only the most recent report of each test.
   * Without `test` or `namespace`: the reports in every namespace the caller may list (all of them
   * for a caller who may list cluster-wide); the headers Rehearsal-Omitted-Namespaces and
   * Rehearsal-Omitted-Namespace-Names report the namespaces left out.
   *
   * Paged like a Kubernetes list: at most `limit` reports per answer; when more follow, the
   * answer's `Link` header names the next page (`rel="next"`, RFC 8288), a URL with the same query
   * and a `continue` token. With `latest=true` the answer holds one report per test and is not
   * paged (`limit` and `continue` do not apply).
   * @summary List RestoreReports
   * @param test Only the reports of this RestoreTest (404 when it does not exist).
   * @param namespace Namespace of `test` (default: the server's namespace); without `test`, only reports in this namespace.
   * @param days Look-back in days.
   * @param latest Only the most recent report per test (not paged).
   * @param result Only reports with this result (with latest: the latest reports that have it).
   * @param limit Most reports in one answer.
   * @param continueToken The token from the previous answer's Link rel="next" (opaque).
   * @pattern test ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength test 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @isInt days must be an integer
   * @isBoolean latest must be true or false
   * @minimum days 1 must be between 1 and 3650
   * @maximum days 3650 must be between 1 and 3650
   * @isInt limit must be an integer
   * @minimum limit 1 must be between 1 and 5000
   * @maximum limit 5000 must be between 1 and 5000
   * @minLength continueToken 1 must not be empty
   * @maxLength continueToken 1024 is not a token of this list
   */
  @Get('reports')
  @OperationId('listReports')
  @SuccessResponse<{
    /** The next page: `<URL>; rel="next"`; absent on the last page. */
    Link?: string;
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'RestoreReports, newest first')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_REPORTS_READABLE])
  @Response<ProblemDetails>(400, 'A query parameter is malformed or out of range, or continue is not a token of this list')
  @Response<ProblemDetails>(404, 'test names a RestoreTest that does not exist')
  public async listReports(
    @Request() request: ExpressRequest,
    @Query() test?: string,
    @Query() namespace?: string,
    @Query() days: number = 30,
    @Query() latest: boolean = false,
    @Query() limit: number = 500,
    @Query('continue') continueToken?: string,
    @Query() result?: RunResult,
  ): Promise<RestoreReportResource[]> {
    // With `test` the scope is the test's namespace (the query's or the server's), else as listScopeOf.
    const scope = listScopeOf(request, test === undefined ? namespace : undefined);
    const query = {
      scope,
      ...(test !== undefined ? { test } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(result !== undefined ? { result } : {}),
      days,
      latest,
      limit,
      ...(continueToken !== undefined ? { continue: continueToken } : {}),
    };
    this.api.reports.validate(query);
    const page = this.api.reports.page(query);
    if (page.next) request.res!.setHeader('Link', nextPageLink(request.originalUrl, page.next));
    if (latest) return sendPreparedJson(request, this.api.reports.latestJson(query, page.runs));
    if (page.keys.length > STREAMED_PAGE_REPORTS) {
      return sendStreamedJson(request, (write) => this.api.reports.write(page.keys, write));
    }
    // The page's boundaries are part of the key: a cached body always matches the Link beside it.
    const key = `${listKey(query)}&limit=${limit}&continue=${continueToken ?? ''}&page=${page.keys.length}:${page.keys[0] ?? ''}:${page.keys.at(-1) ?? ''}`;
    return sendPreparedJson(
      request,
      this.api.responses.jsonAsync(key, REPORTS_TTL_MS, () => this.api.reports.json(page.keys)),
    );
  }
}
