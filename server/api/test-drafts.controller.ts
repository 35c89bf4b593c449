// GET /api/v1/test-drafts: RestoreTests drafted for backed-up namespaces that no test restores
// (issue 32), for `kubectl restoretest generate` and the coverage page. Writes nothing.
import type { Request as ExpressRequest } from 'express';
import {
  Controller,
  Extension,
  Get,
  OperationId,
  Path,
  Post,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { TestResponse } from '../domain/read-models/views.js';
import { reviewedCaller, type ApiUser } from './auth/authorizer.js';
import {
  COVERAGE_KASTEN_POLICIES,
  COVERAGE_KASTEN_RESTORE_POINTS,
  COVERAGE_TRILIO_BACKUP_PLANS,
  COVERAGE_TRILIO_BACKUPS,
  COVERAGE_TRILIO_POLICIES,
  COVERAGE_VELERO_BACKUPS,
  COVERAGE_VELERO_SCHEDULES,
  CREATE_TEST,
  LIST_TESTS,
  RBAC_EXTENSION,
} from './auth/permissions.js';
import { requestNamespaceOf } from './auth/request-namespace.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';
import type { TestDraftsResponse } from './services/test-drafts.service.js';
import type { NamespaceName } from '../../protocol/test-input.js';

@Route('api/v1')
@Tags('Coverage')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
export class TestDraftsController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Drafts a RestoreTest per backed-up namespace: by default every namespace a backup covers that
   * no RestoreTest restores, else the `sourceNamespace`s named. Per namespace: the provider and
   * `latest` backup of the server's backup tool (REHEARSAL_BACKUP_TOOL: velero, kasten or trilio);
   * a UTC cron one hour after the most frequent backup schedule's time (a Velero Schedule, a
   * Kasten Policy's frequency and subFrequency, a Trilio BackupPlan's schedule Policy), at most
   * once a day (daily at 04:00 when no schedule says when, the notes saying why); a podsReady check per
   * Deployment, StatefulSet and DaemonSet; an httpGet check per readiness or liveness httpGet
   * probe, through the Service that reaches its port; a tcpSocket check per Service port; and, for
   * postgres, mysql and mariadb images, a critical sqlQuery skeleton that fails until its query is
   * written (annotation rehearsal.dev/generated-todo says what to complete). A namespace's
   * workloads are read only if the caller may list Deployments, StatefulSets, DaemonSets and
   * Services there; otherwise it is listed under `skipped` with the missing permissions. The
   * backup tool's objects are read only if the caller may list them (x-rehearsal-rbac: only the
   * rules of the server's tool are asked). Nothing is written: create a draft with createTest or kubectl.
   * @summary Draft RestoreTests for untested, backed-up namespaces
   * @param namespace Namespace the drafted tests would live in; default: the server's namespace.
   * @param sourceNamespace Source namespaces to draft tests for (repeat the parameter); default: every backed-up namespace without a test.
   * @param yaml Add each draft as a YAML document, its notes as comments.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @isBoolean yaml must be true or false
   * @maxItems sourceNamespace 100 must name at most 100 namespaces
   */
  @Get('test-drafts')
  @OperationId('draftTests')
  @Extension(RBAC_EXTENSION, [
    LIST_TESTS,
    COVERAGE_VELERO_SCHEDULES,
    COVERAGE_VELERO_BACKUPS,
    COVERAGE_KASTEN_POLICIES,
    COVERAGE_KASTEN_RESTORE_POINTS,
    COVERAGE_TRILIO_BACKUP_PLANS,
    COVERAGE_TRILIO_POLICIES,
    COVERAGE_TRILIO_BACKUPS,
  ])
  @Response<ProblemDetails>(400, 'A sourceNamespace is not an RFC 1123 label (errors names it, e.g. sourceNamespace[1]), more than 100 are named, or namespace or yaml is malformed')
  @Response<ProblemDetails>(503, 'Caches still loading (not-ready), the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable), or the Kubernetes API unreachable')
  public async draftTests(
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
    @Query() sourceNamespace?: NamespaceName[],
    @Query() yaml: boolean = false,
  ): Promise<TestDraftsResponse> {
    const testNamespace = requestNamespaceOf(request);
    if (namespace && namespace !== testNamespace) throw new Error('the query namespace differs from the resolved namespace');
    return this.api.drafts.draft({
      sourceNamespaces: sourceNamespace ?? [],
      testNamespace,
      caller: reviewedCaller((request as ExpressRequest & { user?: ApiUser }).user),
      yaml,
    });
  }

  /**
   * Creates the test draftTests drafts for one source namespace, as createTest creates a test: the
   * caller needs `create restoretests` in the test's namespace and the restore rights of decision
   * 0009 in the source namespace (else 403 naming them), and is recorded as its author. The draft's
   * checks are the server's own, never a request body's; a sqlQuery skeleton fails until its query
   * is written (edit the test, or generate YAML instead and complete it before applying).
   * @summary Create the drafted test of a namespace
   * @param sourceNamespace The backed-up namespace the test restores.
   * @param namespace Namespace of the new RestoreTest; default: the server's namespace.
   * @pattern sourceNamespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength sourceNamespace 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Post('test-drafts/{sourceNamespace}')
  @OperationId('createDraftedTest')
  @Extension(RBAC_EXTENSION, [
    CREATE_TEST,
    COVERAGE_VELERO_SCHEDULES,
    COVERAGE_VELERO_BACKUPS,
    COVERAGE_KASTEN_POLICIES,
    COVERAGE_KASTEN_RESTORE_POINTS,
    COVERAGE_TRILIO_BACKUP_PLANS,
    COVERAGE_TRILIO_POLICIES,
    COVERAGE_TRILIO_BACKUPS,
  ])
  @SuccessResponse<{
    /** Path of the new RestoreTest, e.g. /api/v1/tests/shop-restore?namespace=rehearsal-system */
    Location: string;
  }>(201, 'Created')
  @Response<ProblemDetails>(400, 'sourceNamespace or namespace is not an RFC 1123 label, or the test namespace does not exist')
  @Response<ProblemDetails>(404, 'No backup covers the source namespace')
  @Response<ProblemDetails>(409, 'A RestoreTest of the drafted name already exists in the namespace')
  @Response<ProblemDetails>(503, 'Caches still loading (not-ready), the backup tool (Velero, Kasten or Trilio) not installed or not reachable (backup-tool-unavailable), or the Kubernetes API unreachable')
  public async createDraftedTest(
    @Path() sourceNamespace: string,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): Promise<TestResponse> {
    const testNamespace = requestNamespaceOf(request);
    if (namespace && namespace !== testNamespace) throw new Error('the query namespace differs from the resolved namespace');
    const created = await this.api.drafts.apply(
      sourceNamespace,
      testNamespace,
      reviewedCaller((request as ExpressRequest & { user?: ApiUser }).user),
    );
    this.setStatus(201);
    this.setHeader('Location', created.location);
    return created.test;
  }
}
