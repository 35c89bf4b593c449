// The HTTP server: the REST API (tsoa controllers, routes generated into generated/routes.ts),
// /metrics, the OpenAPI document at /openapi.json, Swagger UI at /docs and the dashboard at /
// (dashboard-assets.ts). Binds the configured
// host. Unauthenticated: /api/v1/health, /openapi.json, /docs; /metrics needs a token allowed to
// `get /metrics` in auth mode kubernetes (metrics-access.ts); everything else goes through the
// authorizer (REHEARSAL_AUTH_MODE).
//
// Adding endpoints: write a *.controller.ts in this directory (tsoa finds it
// by glob), give it what it needs through a field of ApiContext (built in createApp from a new
// optional HttpDeps port), declare its RBAC with @Extension(RBAC_EXTENSION, ...), and run
// `npm run openapi:generate`. A binary answer is a Readable returned with @Produces.
import { createServer, type Server } from 'node:http';
import express from 'express';
import swaggerUi from 'swagger-ui-express';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KubeClients } from '../kube/client.js';
import type { Metrics } from '../metrics/metrics.js';
import { KubeAccessReviewer, type AccessReviewer } from './auth/access-review.js';
import { requireMetricsAccess, type MetricsReviewer } from './auth/metrics-access.js';
import { RequestAuthorizer, type ApiUser } from './auth/authorizer.js';
import { PermissionTable } from './auth/permissions.js';
import { RestoreAccess } from './auth/restore-access.js';
import { attachApiContext, type ApiContext } from './context.js';
import { dashboardAssets, dashboardDirectory } from './dashboard-assets.js';
import { contentSecurityPolicy, securityHeaders, SWAGGER_UI_POLICY } from './security-headers.js';
import { errorHandler, noSuchRoute } from './error-handler.js';
import { RegisterRoutes } from './generated/routes.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { loadOpenApiDocument, withoutSecurityRequirements, type OpenApiDocument } from './openapi-document.js';
import { PRODUCT_VERSION } from '../product-version.js';
import type { RestoreTest } from '../domain/resources/resources.js';
import type {
  ApiCache,
  EvidenceKeySource,
  EvidenceProblems,
  EvidenceVerifier,
  LicenseSource,
  SandboxAdmin,
  ScheduleSource,
  TestWriter,
  CoverageSource,
  DiagnosisSource,
  WorkloadSource,
} from './ports.js';
import { jsonBody, refuseBodyOnBodilessMethods, requireJsonWhenBody } from './request-body.js';
import { ResponseCache } from './responses/response-cache.js';
import { ComplianceService } from './services/compliance.service.js';
import { CoverageService } from './services/coverage.service.js';
import { namespacesWithObjects } from './services/scoped-reads.js';
import { RunDetailsService } from './services/run-details.service.js';
import { DashboardService } from './services/dashboard.service.js';
import type { ClusterDefaults } from '../domain/run/cluster-defaults.js';
import { EvidenceService } from './services/evidence.service.js';
import { LicenseService } from './services/license.service.js';
import { PdfService, type PdfServiceDeps } from './services/pdf.service.js';
import type { AnchorWriter } from '../evidence/anchor/anchor-writer.js';
import { ReportsService } from './services/reports.service.js';
import { SandboxesService } from './services/sandboxes.service.js';
import { SchedulesService } from './services/schedules.service.js';
import { TestsService } from './services/tests.service.js';
import { TestDraftsService } from './services/test-drafts.service.js';
import { TriggerWatch } from './services/trigger-watch.js';

export interface HttpDeps {
  config: Readonly<Config>;
  /** Informer caches (RehearsalCache): every read endpoint answers from them. */
  cache: ApiCache;
  /** Writes to RestoreTests (RehearsalClient). */
  client: TestWriter;
  /** TokenReview and SubjectAccessReview clients; needed in auth mode kubernetes. */
  kube?: Pick<KubeClients, 'authentication' | 'authorization'>;
  metrics: Pick<Metrics, 'registry'>;
  log: Logger;
  now: () => Date;
  /** Backup schedules (the Velero provider); absent → /api/v1/schedules answers 503. */
  schedules?: ScheduleSource;
  /** Sandbox namespaces for administrators; absent → /api/v1/sandboxes answers 503. */
  sandboxes?: SandboxAdmin;
  /** Backup coverage (the Velero provider's inventory); absent → /api/v1/coverage answers 503. */
  coverage?: CoverageSource;
  /** Source namespaces' workloads, for test drafts; absent (or no coverage) → /api/v1/test-drafts answers 503. */
  workloads?: WorkloadSource;
  /** Diagnoses of failed runs (ConfigMaps beside the reports); absent → diagnosis answers 404. */
  diagnoses?: DiagnosisSource;
  /** Evidence signature check for compliance; absent → signatures are not checked. */
  verifyEvidence?: EvidenceVerifier;
  /** Why a report's evidence does not verify (PDF integrity summaries); absent → derived from keys. */
  evidenceProblems?: EvidenceProblems;
  /** The license in effect; absent → community (every gated feature answers 402). */
  license?: LicenseSource;
  /** The evidence signing key and published public keys; absent → PDFs and keys answer 503. */
  evidenceKeys?: EvidenceKeySource;
  /** The evidence anchors (issue 33), stated on the PDFs' attestation pages; absent → "not anchored". */
  anchors?: PdfServiceDeps['anchors'] & Pick<AnchorWriter, 'audit'>;
  /** The cluster-wide defaults in effect (ConfigMap rehearsal-cluster-defaults); absent → the built-in ones. */
  clusterDefaults?: () => Readonly<ClusterDefaults>;
  /** Replaces the Kubernetes reviewer (tests). */
  accessReviewer?: AccessReviewer;
  /** Replaces the reviewer of /metrics tokens (tests). */
  metricsReviewer?: MetricsReviewer;
  /** How long POST .../trigger waits for the engine (default 5000 ms). */
  triggerWaitMs?: number;
  /** Replaces openapi/openapi.json (tests). */
  openApiDocument?: OpenApiDocument;
  /** The built dashboard (default: web/dist next to the sources or the compiled output). */
  dashboardDirectory?: string;
}

export const DEFAULT_TRIGGER_WAIT_MS = 5_000;

/**
 * The reviewer of callers. In auth mode none too whenever there are Kubernetes clients: the
 * aggregation port reviews the callers kube-apiserver names in every mode (issue 26).
 */
function createReviewer(deps: HttpDeps): AccessReviewer | undefined {
  if (deps.accessReviewer) return deps.accessReviewer;
  if (!deps.kube) {
    if (deps.config.authMode === 'kubernetes') throw new Error('REHEARSAL_AUTH_MODE=kubernetes needs Kubernetes clients for the reviews');
    return undefined;
  }
  return new KubeAccessReviewer(deps.kube.authentication, deps.kube.authorization, deps.config.tokenAudiences);
}

/**
 * Whether a caller may read the restored data of namespaces: `get secrets` in each (the right that
 * lets one author a test restoring them, decision 0009). No reviewed caller (auth mode none on
 * port 8080, where everything is allowed): `unreviewedMayRead`. No reviewer: no.
 */
function sourceReader(reviewer: AccessReviewer | undefined, unreviewedMayRead: boolean) {
  return async (caller: ApiUser | undefined, namespaces: readonly string[]): Promise<boolean> => {
    if (!caller) return unreviewedMayRead;
    if (!reviewer || namespaces.length === 0) return false;
    const decisions = await Promise.all(
      namespaces.map((namespace) => reviewer.reviewAccess(caller, { verb: 'get', group: '', resource: 'secrets', namespace })),
    );
    return decisions.every((decision) => decision.allowed);
  };
}

/** Who reviews /metrics tokens: the apiserver, asked for REHEARSAL_METRICS_TOKEN_AUDIENCES. */
export function createMetricsReviewer(deps: Pick<HttpDeps, 'metricsReviewer' | 'kube' | 'config'>): MetricsReviewer | undefined {
  if (deps.metricsReviewer) return deps.metricsReviewer;
  if (!deps.kube) return undefined;
  return new KubeAccessReviewer(deps.kube.authentication, deps.kube.authorization, deps.config.metricsTokenAudiences);
}

function createAuthorizer(deps: HttpDeps, document: OpenApiDocument, reviewer: AccessReviewer | undefined): RequestAuthorizer {
  const mode = deps.config.authMode;
  return new RequestAuthorizer({
    mode,
    ...(reviewer ? { reviewer } : {}),
    permissions: new PermissionTable(document),
    defaults: { namespace: deps.config.namespace, veleroNamespace: deps.config.veleroNamespace, backupTool: deps.config.backupTool },
    // Lists without a namespace review the caller's rights only where there is something to show.
    readable: { candidates: namespacesWithObjects(deps.cache) },
  });
}

export function createApp(deps: HttpDeps): express.Express {
  const document = deps.openApiDocument ?? loadOpenApiDocument();
  const log = deps.log;
  const coverage = new CoverageService(deps.cache, deps.coverage);
  const compliance = new ComplianceService(
    deps.cache,
    deps.now,
    deps.verifyEvidence,
    () => coverage.untestedNamespaces(),
    () => deps.anchors?.audit?.byTest ?? [],
  );
  const license = new LicenseService(deps.license);
  const reviewer = createReviewer(deps);
  const restoreAccess = new RestoreAccess(
    {
      providerNamespace: deps.config.veleroNamespace,
      maxSandboxTtlSeconds: deps.config.maxSandboxTtlSeconds,
      podSecurityFloor: deps.config.podSecurityFloor,
    },
    reviewer,
  );
  const tests = new TestsService({
    cache: deps.cache,
    writer: deps.client,
    triggers: new TriggerWatch(deps.cache),
    restoreAccess,
    triggerWaitMs: deps.triggerWaitMs ?? DEFAULT_TRIGGER_WAIT_MS,
  });
  const context: ApiContext = {
    health: () => ({ status: deps.cache.synced ? 'ok' : 'starting' }),
    tests,
    reports: new ReportsService(deps.cache, deps.config.namespace, deps.now),
    dashboard: new DashboardService(deps.cache, deps.now, (scope) => coverage.untestedCount(scope), deps.clusterDefaults),
    compliance,
    schedules: new SchedulesService(deps.schedules),
    sandboxes: new SandboxesService(deps.sandboxes),
    coverage,
    drafts: new TestDraftsService({
      cache: deps.cache,
      coverage: deps.coverage,
      workloads: deps.workloads,
      reviewer,
      now: deps.now,
      createTest: (test, caller) => tests.createDrafted(test as RestoreTest, caller),
    }),
    runs: new RunDetailsService(
      deps.cache,
      deps.config.namespace,
      deps.diagnoses,
      sourceReader(reviewer, deps.config.authMode === 'none'),
    ),
    license,
    evidence: new EvidenceService(deps.evidenceKeys),
    pdf: new PdfService({
      cache: deps.cache,
      compliance,
      license,
      ...(deps.evidenceKeys ? { keys: deps.evidenceKeys } : {}),
      ...(deps.evidenceProblems ? { evidenceProblems: deps.evidenceProblems } : {}),
      ...(deps.verifyEvidence ? { verifyEvidence: deps.verifyEvidence } : {}),
      ...(deps.anchors ? { anchors: deps.anchors } : {}),
      now: deps.now,
      namespace: deps.config.namespace,
      productVersion: PRODUCT_VERSION,
      ...(deps.config.clusterName ? { cluster: deps.config.clusterName } : {}),
    }),
    authorizer: createAuthorizer(deps, document, reviewer),
    responses: new ResponseCache(deps.cache, () => deps.now().getTime()),
    log,
  };
  if (deps.config.authMode === 'none') {
    log.warn(
      'REHEARSAL_AUTH_MODE=none: port 8080 accepts every request without authentication (development only); the aggregation port still reviews every caller',
    );
  }

  const app = express();
  app.disable('x-powered-by');
  app.use(securityHeaders);
  attachApiContext(app, context);

  const metricsGate =
    deps.config.authMode === 'kubernetes'
      ? requireMetricsAccess(createMetricsReviewer(deps), log)
      : (_req: express.Request, _res: express.Response, next: express.NextFunction) => next();
  app.get('/metrics', metricsGate, async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  const published = deps.config.authMode === 'none' ? withoutSecurityRequirements(document) : document;
  app.get('/openapi.json', (_req, res) => {
    res.json(published);
  });
  // Swagger UI's assets come from the swagger-ui-dist package (no CDN); it loads /openapi.json.
  app.use(
    '/docs',
    contentSecurityPolicy(SWAGGER_UI_POLICY),
    swaggerUi.serve,
    swaggerUi.setup(undefined, {
      customSiteTitle: 'Rehearsal API',
      swaggerOptions: { url: '/openapi.json' },
    }),
  );

  app.use(dashboardAssets(deps.dashboardDirectory ?? dashboardDirectory()));

  app.use(methodNotAllowed(document));
  app.use('/api', refuseBodyOnBodilessMethods, requireJsonWhenBody, jsonBody);
  const api = express.Router();
  RegisterRoutes(api);
  app.use(api);

  app.use(noSuchRoute);
  app.use(errorHandler(log));
  return app;
}

/** Serves `app` (default: a new createApp(deps)) on the configured host and port. */
export function startHttpServer(deps: HttpDeps, app: express.Express = createApp(deps)): Promise<Server> {
  const server = createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => {
      deps.log.info(
        { host: deps.config.host, port: deps.config.port, authMode: deps.config.authMode },
        'HTTP API listening',
      );
      resolve(server);
    });
  });
}
