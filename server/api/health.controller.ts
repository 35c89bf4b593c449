// GET /api/v1/health: liveness and cache readiness. Unauthenticated (probes carry no token).
import { Controller, Get, OperationId, Route, Tags } from '@tsoa/runtime';
import type { ApiContext, HealthResponse } from './context.js';

@Route('api/v1')
@Tags('Health')
export class HealthController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * Always 200 while the process serves HTTP; `status` says whether the caches have loaded
   * (until then the read endpoints answer 503 not-ready). Needs no credentials.
   * @summary Health of the API server
   */
  @Get('health')
  @OperationId('getHealth')
  public getHealth(): HealthResponse {
    return this.api.health();
  }
}
