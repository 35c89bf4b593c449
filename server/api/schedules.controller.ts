// GET /api/v1/schedules: the backup tool's schedules (Velero only), for choosing what to test.
import { Controller, Extension, Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ScheduleInfo } from '../domain/read-models/views.js';
import { LIST_VELERO_SCHEDULES, RBAC_EXTENSION } from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';

@Route('api/v1')
@Tags('Schedules')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
export class SchedulesController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Velero Schedules in the Velero namespace, by name. Read live from the cluster (not served from
   * the cache: it is rarely called and Velero is optional).
   * @summary List backup schedules
   */
  @Get('schedules')
  @OperationId('listSchedules')
  @Extension(RBAC_EXTENSION, [LIST_VELERO_SCHEDULES])
  @Response<ProblemDetails>(503, 'Velero is not installed or not reachable (backup-tool-unavailable)')
  public async listSchedules(): Promise<ScheduleInfo[]> {
    return this.api.schedules.list();
  }
}
