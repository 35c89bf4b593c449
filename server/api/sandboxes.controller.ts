// Administrators' operations on sandbox namespaces (issue 26): list them, and remove the orphans
// (sandboxes whose RestoreTest was deleted) before the janitor would at their expiry. Both need
// `administer restoretests.rehearsal.dev` cluster-wide: sandboxes of every namespace's tests.
import {
  Controller,
  Delete,
  Extension,
  Get,
  OperationId,
  Path,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { ADMINISTER_CLUSTER, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { SandboxInfo } from './dto.js';
import type { ProblemDetails } from './problem.js';

@Route('api/v1/sandboxes')
@Tags('Sandboxes')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<ProblemDetails>(503, 'The Kubernetes API is unreachable (kubernetes-unavailable)')
export class SandboxesController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Every namespace carrying Rehearsal's sandbox label, sorted by name, with what the server makes
   * of it (state) and why (message). Read live from the cluster: an administrator's rare call.
   * @summary List sandbox namespaces
   * @param orphaned Only sandboxes whose RestoreTest is gone.
   * @isBoolean orphaned must be true or false
   */
  @Get()
  @OperationId('listSandboxes')
  @Extension(RBAC_EXTENSION, [ADMINISTER_CLUSTER])
  @Response<ProblemDetails>(400, 'orphaned is not true or false')
  public async listSandboxes(@Query() orphaned: boolean = false): Promise<SandboxInfo[]> {
    return this.api.sandboxes.list(orphaned);
  }

  /**
   * Removes an orphaned sandbox now (the janitor would at its expiry). Refused for any other
   * state: the engine removes its own sandboxes, and the server never deletes a namespace no record
   * or label vouches for. With `uid`, only the namespace with that UID is removed; the delete
   * carries the UID read at the decision as a precondition in any case.
   * @summary Remove an orphaned sandbox
   * @param name Name of the sandbox namespace.
   * @param uid The namespace's UID as listSandboxes showed it.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern uid ^[0-9a-fA-F-]+$ must be a UID (hexadecimal digits and "-")
   * @maxLength uid 64 must be at most 64 characters
   */
  @Delete('{name}')
  @OperationId('removeOrphanedSandbox')
  @Extension(RBAC_EXTENSION, [ADMINISTER_CLUSTER])
  @SuccessResponse(204, 'Removal started (the namespace is being deleted)')
  @Response<ProblemDetails>(400, 'name is not an RFC 1123 label, or uid is malformed')
  @Response<ProblemDetails>(404, 'No sandbox namespace of that name')
  @Response<ProblemDetails>(409, 'The sandbox is not orphaned, or its UID is not the one given (conflict)')
  public async removeOrphanedSandbox(@Path() name: string, @Query() uid?: string): Promise<void> {
    await this.api.sandboxes.removeOrphan(name, uid);
    this.setStatus(204);
  }
}
