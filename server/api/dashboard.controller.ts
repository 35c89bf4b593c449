// Dashboard read models: summary, daily series, alerts, upcoming runs (decisions §5). All are
// cluster-wide views, so they need cluster-wide list permissions.
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
import type { Alert, DailySummary, Summary, UpcomingTest } from '../domain/views.js';
import { LIST_REPORTS, LIST_TESTS, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';

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
   */
  @Get('summary')
  @OperationId('getSummary')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS])
  public getSummary(): Summary {
    return this.api.dashboard.summary();
  }

  /**
   * One entry per UTC day, oldest first, ending today; days without runs are zeros.
   * @summary Daily scores and run counts
   * @param days Number of days, today included.
   * @isInt days must be an integer
   * @minimum days 1 must be between 1 and 3650
   * @maximum days 3650 must be between 1 and 3650
   */
  @Get('summary/daily')
  @OperationId('getDailySummary')
  @Extension(RBAC_EXTENSION, [LIST_REPORTS])
  @Response<ProblemDetails>(400, 'days is not an integer from 1 to 3650')
  public getDailySummary(@Query() days: number = 30): DailySummary[] {
    return this.api.dashboard.daily(days);
  }

  /**
   * Runs completed in the last `hours` hours that failed, regressed by more than 10 points, or
   * breached the RTO target of a test with alertOnExceed. Newest first.
   * @summary Recent failures and regressions
   * @param hours Look-back in hours.
   * @isInt hours must be an integer
   * @minimum hours 1 must be between 1 and 87600
   * @maximum hours 87600 must be between 1 and 87600
   */
  @Get('alerts')
  @OperationId('listAlerts')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS])
  @Response<ProblemDetails>(400, 'hours is not an integer from 1 to 87600')
  public listAlerts(@Query() hours: number = 48): Alert[] {
    return this.api.dashboard.alerts(hours);
  }

  /**
   * Tests with a scheduled next run, soonest first; suspended tests are left out.
   * @summary Upcoming runs
   */
  @Get('upcoming')
  @OperationId('listUpcoming')
  @Extension(RBAC_EXTENSION, [LIST_TESTS])
  public listUpcoming(): UpcomingTest[] {
    return this.api.dashboard.upcoming();
  }
}
