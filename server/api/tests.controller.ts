// RestoreTests: list, read, create, replace, delete, trigger (openapi/openapi.json, decisions 0003, 0012).
// `namespace` (query) defaults to the server's namespace on every operation that names a test.
import {
  Body,
  Controller,
  Delete,
  Extension,
  Get,
  Middlewares,
  OperationId,
  Path,
  Post,
  Put,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { TestResponse } from '../domain/read-models/views.js';
import type { CreateTestInput } from '../../protocol/test-input.js';
import {
  CREATE_TEST,
  DELETE_TEST,
  GET_TEST,
  LIST_TESTS_READABLE,
  RBAC_EXTENSION,
  TRIGGER_TEST,
  UPDATE_TEST,
} from './auth/permissions.js';
import { reviewedCaller, type ApiUser } from './auth/authorizer.js';
import { listScopeOf, scopeKey } from './auth/namespace-scope.js';
import { requestNamespaceOf } from './auth/request-namespace.js';
import type { ApiContext } from './context.js';
import { sendPreparedJson } from './responses/prepared-json.js';
import type { ProblemDetails } from './problem.js';
import { validateTestBody } from './request-body.js';

/** The caller whose rights the service reviews (none in auth mode none on port 8080). */
function callerOf(request: ExpressRequest): ApiUser | undefined {
  return reviewedCaller((request as ExpressRequest & { user?: ApiUser }).user);
}

/**
 * The namespace resolved once for this request (request-namespace.ts). The query parameter is
 * declared for the OpenAPI document; it is the source of the resolved value, never a second one.
 */
function namespaceFor(request: ExpressRequest, query: string | undefined): string {
  const resolved = requestNamespaceOf(request);
  if (query && query !== resolved) throw new Error('the query namespace differs from the resolved namespace');
  return resolved;
}

/** The list depends on the tests alone: reused until one changes (a bound for safety). */
const TEST_LIST_TTL_MS = 60_000;

@Route('api/v1/tests')
@Tags('Tests')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'Caches still loading (not-ready) or the Kubernetes API unreachable')
export class TestsController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * The RestoreTests in every namespace the caller may list (all of them for a caller who may list
   * cluster-wide), or in `namespace`; ordered by namespace and name.
   * @summary List RestoreTests
   * @param namespace Only this namespace (403 when the caller may not list there). Without it: every namespace the caller may list; the headers Rehearsal-Omitted-Namespaces and Rehearsal-Omitted-Namespace-Names report those left out.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get()
  @OperationId('listTests')
  @SuccessResponse<{
    /** How many namespaces holding Rehearsal objects the answer leaves out (the caller may not list there); absent when none. */
    'Rehearsal-Omitted-Namespaces'?: string;
    /** Those namespaces, comma-separated; only to callers who may list namespaces cluster-wide. */
    'Rehearsal-Omitted-Namespace-Names'?: string;
  }>(200, 'RestoreTests')
  @Response<void>(304, 'Not Modified: If-None-Match names the current ETag of this answer')
  @Extension(RBAC_EXTENSION, [LIST_TESTS_READABLE])
  @Response<ProblemDetails>(400, 'namespace is not an RFC 1123 label')
  public listTests(@Request() request: ExpressRequest, @Query() namespace?: string): Promise<TestResponse[]> {
    const scope = listScopeOf(request, namespace);
    return sendPreparedJson(
      request,
      this.api.responses.json(`tests${scopeKey(scope)}`, TEST_LIST_TTL_MS, () => this.api.tests.list(scope)),
    );
  }

  /**
   * One RestoreTest (the target of the Location header of createTest).
   * @summary Read a RestoreTest
   * @param name Name of the RestoreTest.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Get('{name}')
  @OperationId('getTest')
  @Extension(RBAC_EXTENSION, [GET_TEST])
  @Response<ProblemDetails>(400, 'name or namespace is not an RFC 1123 label')
  @Response<ProblemDetails>(404, 'No such RestoreTest')
  public getTest(
    @Path() name: string,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): TestResponse {
    return this.api.tests.get(name, namespaceFor(request, namespace));
  }

  /**
   * Creates a RestoreTest from CreateTestInput; omitted optional fields take their defaults
   * (decision 0003). Every invalid field is listed in one 400. The namespace is the query's, else
   * the body's, else the server's; a body namespace that differs from the query's is a 400. The
   * caller must also be allowed to read Secrets in every source namespace (decision 0009), else 403.
   * @summary Create a RestoreTest
   * @param namespace Namespace of the new RestoreTest; default: the body's namespace, else the server's.
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Post()
  @OperationId('createTest')
  @Extension(RBAC_EXTENSION, [CREATE_TEST])
  @Middlewares(validateTestBody)
  @SuccessResponse<{
    /** Path of the new RestoreTest, e.g. /api/v1/tests/payments?namespace=rehearsal-system */
    Location: string;
  }>(201, 'Created')
  @Response<ProblemDetails>(400, 'Invalid body: every offending field is listed in errors')
  @Response<ProblemDetails>(403, 'The caller may not read Secrets in a source namespace, or set an admin-only field')
  @Response<ProblemDetails>(409, 'A RestoreTest with that name already exists in the namespace')
  @Response<ProblemDetails>(413, 'Body larger than 64 KiB')
  @Response<ProblemDetails>(415, 'Body is not application/json')
  public async createTest(
    @Body() body: CreateTestInput,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): Promise<TestResponse> {
    const created = await this.api.tests.create(body, namespaceFor(request, namespace), callerOf(request));
    this.setStatus(201);
    this.setHeader('Location', created.location);
    return created.test;
  }

  /**
   * Replaces every field CreateTestInput can express (an omitted optional field returns to its
   * default: an omitted maxRTO or maxRPO removes that target) and keeps what it cannot express:
   * inline health checks, notifications, sandbox quota and limit range, schedule.suspend, the
   * provider namespace. A body name or namespace that differs from the request's is a 400.
   * @summary Replace a RestoreTest
   * @param name Name of the RestoreTest.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Put('{name}')
  @OperationId('replaceTest')
  @Extension(RBAC_EXTENSION, [UPDATE_TEST])
  @Middlewares(validateTestBody)
  @Response<ProblemDetails>(400, 'Invalid body, or a name/namespace that differs from the request')
  @Response<ProblemDetails>(404, 'No such RestoreTest')
  @Response<ProblemDetails>(409, 'The RestoreTest kept changing concurrently; retry')
  @Response<ProblemDetails>(413, 'Body larger than 64 KiB')
  @Response<ProblemDetails>(415, 'Body is not application/json')
  public async replaceTest(
    @Path() name: string,
    @Body() body: CreateTestInput,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): Promise<TestResponse> {
    return this.api.tests.replace(name, namespaceFor(request, namespace), body, callerOf(request));
  }

  /**
   * Deletes a RestoreTest; the server then removes its RestoreReports (archived first when the evidence archive is on).
   * @summary Delete a RestoreTest
   * @param name Name of the RestoreTest.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Delete('{name}')
  @OperationId('deleteTest')
  @Extension(RBAC_EXTENSION, [DELETE_TEST])
  @SuccessResponse(204, 'Deleted')
  @Response<ProblemDetails>(400, 'name or namespace is not an RFC 1123 label')
  @Response<ProblemDetails>(404, 'No such RestoreTest')
  public async deleteTest(
    @Path() name: string,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): Promise<void> {
    await this.api.tests.delete(name, namespaceFor(request, namespace));
    this.setStatus(204);
  }

  /**
   * Starts a run now, whatever the schedule. Refused with 409 while a run is in progress or an
   * earlier trigger has not been picked up yet. The API writes a fresh value to the
   * rehearsal.dev/trigger-request annotation and waits up to ~5 s for the engine to acknowledge
   * it (status.handledTrigger); the answer then shows phase Running and
   * Rehearsal-Trigger-State: started. If the engine does not pick it up in time (for example no
   * leader is elected), the answer is still 200 with the current state and
   * Rehearsal-Trigger-State: pending: the request stays recorded and runs when the engine sees it.
   * @summary Trigger a run now
   * @param name Name of the RestoreTest.
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   */
  @Post('{name}/trigger')
  @OperationId('triggerTest')
  @Extension(RBAC_EXTENSION, [TRIGGER_TEST])
  @SuccessResponse<{
    /** The value written to the rehearsal.dev/trigger-request annotation. */
    'Rehearsal-Trigger-Request': string;
    /** started: the engine took the request (phase Running); pending: not within the wait. */
    'Rehearsal-Trigger-State': 'started' | 'pending';
  }>(200, 'Triggered')
  @Response<ProblemDetails>(400, 'name or namespace is not an RFC 1123 label')
  @Response<ProblemDetails>(404, 'No such RestoreTest')
  @Response<ProblemDetails>(409, 'A run is already in progress (or a trigger is pending)')
  public async triggerTest(
    @Path() name: string,
    @Request() request: ExpressRequest,
    @Query() namespace?: string,
  ): Promise<TestResponse> {
    const outcome = await this.api.tests.trigger(name, namespaceFor(request, namespace));
    this.setHeader('Rehearsal-Trigger-Request', outcome.request);
    this.setHeader('Rehearsal-Trigger-State', outcome.state);
    return outcome.test;
  }
}
