// Dashboard read models: summary, daily series, alerts, upcoming runs (decision 0005). Each covers
// the namespaces the caller may list (issue 30): every one for a caller who may list cluster-wide,
// else theirs, or the one `namespace` names; the headers report what was left out.
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
import type { Alert, DailySummary, Summary, UpcomingTest } from '../domain/read-models/views.js';
import { listScopeOf, scopeKey } from './auth/namespace-scope.js';
import { LIST_REPORTS_READABLE, LIST_TESTS_READABLE, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import { sendPreparedJson } from './responses/prepared-json.js';
import type { ProblemDetails } from './problem.js';

/**
 * How long an answer is reused while no test or report changes: its windows ("the last 24
 * hours") move with the clock, so not for long; at dashboard polling rates it still spares
 * nearly every computation.
 */
const WINDOW_TTL_MS = 1_000;
/**
 * Upcoming runs depend on the tests (status.nextRunAt, a queued run) and on the clock (a run becomes
 * overdue a minute after its time): reuse until a test changes, at most a few seconds.
 */
const UPCOMING_TTL_MS = 5_000;

@Route('api/v1')
@Tags('Dashboard')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class DashboardController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Figures over the last 24 hours (UTC): mean score, runs by result, mean RTO, tests that ran,
   * and the source namespaces covered by any RestoreTest.
   * @summary Summary of the last 24 hours
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('summary')
  @OperationId('getSummary')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'Summary')
  @Response<ProblemDetails>(400, 'namespace is not an RFC 1123 label')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS_READABLE, LIST_REPORTS_READABLE])
  public getSummary(@Request() request: ExpressRequest, @Query() namespace?: string): Promise<Summary> {
    const scope = listScopeOf(request, namespace);
    return sendPreparedJson(
      request,
      this.api.responses.json(`summary${scopeKey(scope)}`, WINDOW_TTL_MS, () => this.api.dashboard.summary(scope)),
    );
  }

  /**
   * One entry per UTC day, oldest first, ending today; days without runs are zeros.
   * @summary Daily scores and run counts
   * @param days Number of days, today included.
   * @isInt days must be an integer
   * @minimum days 1 must be between 1 and 3650
   * @maximum days 3650 must be between 1 and 3650
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('summary/daily')
  @OperationId('getDailySummary')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'Daily figures')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_REPORTS_READABLE])
  @Response<ProblemDetails>(400, 'days is not an integer from 1 to 3650, or namespace is not an RFC 1123 label')
  public getDailySummary(
    @Request() request: ExpressRequest,
    @Query() days: number = 30,
    @Query() namespace?: string,
  ): Promise<DailySummary[]> {
    const scope = listScopeOf(request, namespace);
    return sendPreparedJson(
      request,
      this.api.responses.json(`daily?days=${days}${scopeKey(scope)}`, WINDOW_TTL_MS, () => this.api.dashboard.daily(days, scope)),
    );
  }

  /**
   * Runs completed in the last `hours` hours that failed, regressed by more than 10 points,
   * breached the RTO target of a test with alertOnExceed, or restored a backup older than the
   * cluster's alerts.maxBackupAge (ConfigMap rehearsal-cluster-defaults, 48h by default); a failed
   * run ending alerts.consecutiveFailures failures in a row says so. Newest first.
   * @summary Recent failures and regressions
   * @param hours Look-back in hours.
   * @isInt hours must be an integer
   * @minimum hours 1 must be between 1 and 87600
   * @maximum hours 87600 must be between 1 and 87600
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('alerts')
  @OperationId('listAlerts')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'Alerts, newest first')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS_READABLE, LIST_REPORTS_READABLE])
  @Response<ProblemDetails>(400, 'hours is not an integer from 1 to 87600, or namespace is not an RFC 1123 label')
  public listAlerts(
    @Request() request: ExpressRequest,
    @Query() hours: number = 48,
    @Query() namespace?: string,
  ): Promise<Alert[]> {
    const scope = listScopeOf(request, namespace);
    // The thresholds are in the key: a change of the cluster defaults is a different answer at once.
    const { maxBackupAgeSeconds, consecutiveFailures } = this.api.dashboard.alertThresholds();
    const key = `alerts?hours=${hours}&maxBackupAge=${maxBackupAgeSeconds}&consecutiveFailures=${consecutiveFailures}${scopeKey(scope)}`;
    return sendPreparedJson(request, this.api.responses.json(key, WINDOW_TTL_MS, () => this.api.dashboard.alerts(hours, scope)));
  }

  /**
   * Tests with a scheduled next run: first the overdue ones (`overdue: true`, a run due over a
   * minute ago that has not started: engine down, or waiting for a run slot), most overdue first;
   * then the rest soonest first. Suspended tests are left out.
   * @summary Upcoming runs
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('upcoming')
  @OperationId('listUpcoming')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'Upcoming runs')
  @Response<ProblemDetails>(400, 'namespace is not an RFC 1123 label')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS_READABLE])
  public listUpcoming(@Request() request: ExpressRequest, @Query() namespace?: string): Promise<UpcomingTest[]> {
    const scope = listScopeOf(request, namespace);
    return sendPreparedJson(
      request,
      this.api.responses.json(`upcoming${scopeKey(scope)}`, UPCOMING_TTL_MS, () => this.api.dashboard.upcoming(scope)),
    );
  }
}
