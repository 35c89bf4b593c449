// The services one app's controllers work with. createApp() builds a context per Express app and
// attaches it to the app; the IoC container and the authentication hook find it from the
// request, so several apps (tests build one per fake) never share state through module globals.
// A new controller (license, PDF reports) gets its services by adding a field here.
import type { Application, Request } from 'express';
import type { Logger } from 'pino';
import type { RequestAuthorizer } from './auth/authorizer.js';
import type { ResponseCache } from './responses/response-cache.js';
import type { CoverageService } from './services/coverage.service.js';
import type { RunDetailsService } from './services/run-details.service.js';
import type { ComplianceService } from './services/compliance.service.js';
import type { DashboardService } from './services/dashboard.service.js';
import type { EvidenceService } from './services/evidence.service.js';
import type { LicenseService } from './services/license.service.js';
import type { PdfService } from './services/pdf.service.js';
import type { ReportsService } from './services/reports.service.js';
import type { SandboxesService } from './services/sandboxes.service.js';
import type { SchedulesService } from './services/schedules.service.js';
import type { TestsService } from './services/tests.service.js';
import type { TestDraftsService } from './services/test-drafts.service.js';

export interface HealthResponse {
  /** ok: caches loaded and serving; starting: still loading (read endpoints answer 503). */
  status: 'ok' | 'starting';
}

export interface ApiContext {
  health(): HealthResponse;
  tests: TestsService;
  reports: ReportsService;
  dashboard: DashboardService;
  compliance: ComplianceService;
  schedules: SchedulesService;
  sandboxes: SandboxesService;
  coverage: CoverageService;
  /** RestoreTests drafted for untested, backed-up namespaces (issue 32). */
  drafts: TestDraftsService;
  runs: RunDetailsService;
  license: LicenseService;
  evidence: EvidenceService;
  pdf: PdfService;
  authorizer: RequestAuthorizer;
  /** Prepared bodies of the read endpoints, reused between requests. */
  responses: ResponseCache;
  log: Logger;
}

const contexts = new WeakMap<Application, ApiContext>();

export function attachApiContext(app: Application, context: ApiContext): void {
  contexts.set(app, context);
}

export function apiContextOf(request: Request): ApiContext {
  const context = contexts.get(request.app);
  if (!context) throw new Error('no API context attached to this Express app');
  return context;
}
