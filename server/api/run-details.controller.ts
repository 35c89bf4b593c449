// Per-run details beyond the RestoreReport (issue 16): the failure diagnosis of a failed or partial
// run (for `kubectl restoretest diagnose`, the dashboard's report detail and the per-test PDF), and
// a preview of the notification a run's event sends (the documented webhook / CloudEvent body).
import { Controller, Extension, Get, OperationId, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { RunDiagnosis } from '../domain/diagnosis/diagnosis.js';
import type { RunNotification } from '../domain/notifications/run-notification.js';
import { reviewedCaller, type ApiUser } from './auth/authorizer.js';
import { GET_TEST, LIST_REPORTS_OF_TEST, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';

/** A run's event, as in the CloudEvents type dev.rehearsal.run.<event>. */
export type RunEvent = 'failed' | 'partial' | 'succeeded' | 'slaexceeded' | 'regressed';

@Route('api/v1/tests')
@Tags('Runs')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class RunDetailsController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Why a failed or partial run's application did not come up, collected from its sandbox before
   * the sandbox could be deleted: Pods that were not Ready (phase, container states and reasons,
   * the scheduler's reason), Warning events, pending PersistentVolumeClaims, the last log lines of
   * crashing containers (when the cluster serves logs), and remediation hints for the common causes.
   * Stored compressed in the server's namespace, where no tenant can forge it. The restored
   * application's own text (log lines, event and container messages) is included only for a caller
   * who may get secrets in every source namespace of the run; for anyone else it is left out and
   * `redacted` is true.
   * @summary Diagnosis of a failed or partial run
   * @param name Name of the RestoreTest.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @param run Run id; default: the newest run that did not pass.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @pattern run ^[a-z0-9]{1,16}$ must be a run id (lower-case letters and digits)
   */
  @Get('{name}/diagnosis')
  @OperationId('getRunDiagnosis')
  @Extension(RBAC_EXTENSION, [GET_TEST, LIST_REPORTS_OF_TEST])
  @Response<ProblemDetails>(400, 'name, namespace or run is malformed')
  @Response<ProblemDetails>(404, 'No such RestoreTest or run, the run passed, or it has no diagnosis')
  public async getRunDiagnosis(
    @Request() request: ExpressRequest,
    @Path() name: string,
    @Query() namespace?: string,
    @Query() run?: string,
  ): Promise<RunDiagnosis> {
    return this.api.runs.diagnosis(name, namespace, run, reviewedCaller((request as ExpressRequest & { user?: ApiUser }).user));
  }

  /**
   * The notification a run's event sends: the JSON body of a webhook channel (POSTed with
   * `Content-Type: application/json`, `X-Rehearsal-Event: <type>`, `X-Rehearsal-Delivery: <id>` and
   * `X-Rehearsal-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the channel's
   * key>`), and the `data` of a CloudEvent (structured mode, `application/cloudevents+json`, type
   * `dev.rehearsal.run.<event>`, id = this id). Slack channels get a message built from it. Each
   * event is sent at most once per run and channel; the id is stable, so receivers can dedupe.
   * @summary Preview the notification of a run's event
   * @param name Name of the RestoreTest.
   * @param event The event; default failed.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @param run Run id; default: the newest run.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @pattern run ^[a-z0-9]{1,16}$ must be a run id (lower-case letters and digits)
   */
  @Get('{name}/notification-preview')
  @OperationId('previewRunNotification')
  @Extension(RBAC_EXTENSION, [GET_TEST, LIST_REPORTS_OF_TEST])
  @Response<ProblemDetails>(400, 'name, namespace, run or event is malformed')
  @Response<ProblemDetails>(404, 'No such RestoreTest or run')
  public previewRunNotification(
    @Path() name: string,
    @Query() event: RunEvent = 'failed',
    @Query() namespace?: string,
    @Query() run?: string,
  ): RunNotification {
    return this.api.runs.notificationPreview(name, namespace, event, run);
  }
}
