// GET /api/v1/license: the license in effect (decision 0007). The license is read from the Secret
// rehearsal-license and verified offline; anything wrong with it (absent, bad signature, expired)
// answers community, with the reason in the server log.
import { Controller, Extension, Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { LicenseResponse } from '../domain/read-models/views.js';
import { LIST_TESTS, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';

@Route('api/v1')
@Tags('License')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
export class LicenseController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * The tier in effect (community, pro or enterprise), expiry and trial dates, and the feature
   * flags it enables. No license, a license whose signature does not verify, or an expired one
   * means community (isExpired is true for an expired one). A changed license Secret takes effect
   * without a restart. Asks for the dashboard's own permission (list restoretests), since the
   * license decides which dashboard pages work.
   * @summary The license in effect
   */
  @Get('license')
  @OperationId('getLicense')
  @Extension(RBAC_EXTENSION, [LIST_TESTS])
  public getLicense(): LicenseResponse {
    return this.api.license.license();
  }
}
