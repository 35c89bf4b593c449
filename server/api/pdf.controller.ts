// The PDF exports (openapi/openapi.json, decision 0006): the compliance evidence report of one framework
// (enterprise, flag pdfExport) and the report of one RestoreTest (enterprise, flag pdfReports).
// Both are signed with the evidence signing key; a verifier checks them offline.
import { Readable } from 'node:stream';
import {
  Controller,
  Extension,
  Get,
  OperationId,
  Path,
  Produces,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { FrameworkId } from '../domain/compliance/catalogue.js';
import {
  GET_TEST,
  LIST_REPORTS,
  LIST_REPORTS_OF_TEST,
  LIST_TESTS,
  RBAC_EXTENSION,
} from './auth/permissions.js';
import type { ApiContext } from './context.js';
import type { ProblemDetails } from './problem.js';
import { attachment, type PdfDocument } from './services/pdf.service.js';

function send(controller: Controller, document: PdfDocument): Readable {
  controller.setHeader('Content-Type', 'application/pdf');
  controller.setHeader('Content-Disposition', attachment(document.filename));
  const length = document.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  controller.setHeader('Content-Length', String(length));
  controller.setHeader('Cache-Control', 'no-store');
  return Readable.from(document.chunks);
}

@Route('api/v1')
@Tags('Compliance')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<
  ProblemDetails,
  {
    /** Seconds to wait before retrying (pdf-busy, signing-key-unavailable). */
    'Retry-After'?: string;
  }
>(
  503,
  'Caches still loading (not-ready), the Kubernetes API unreachable, no signing key yet (signing-key-unavailable), or too many PDFs being rendered at once (pdf-busy); Retry-After says when to retry',
)
export class CompliancePdfController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * The compliance evidence of one framework as a signed PDF for auditors: cover, scope and RTO
   * targets, executive summary, status rules, control table with evidence and what is not
   * evidenced, coverage matrix, RTO analysis, exceptions and remediation, limitations, the
   * attestation page (Ed25519 signature over the embedded evidence, key id, product version,
   * generation time) and the run counts per RestoreTest. Runs are listed individually only as
   * exceptions, at most 100 (the unremediated, late and pending ones first), followed by "N more"
   * (the full list: GET /api/v1/reports), so the document is bounded for any history. Same
   * evaluation as GET /api/v1/compliance.
   * Needs the enterprise tier with the feature flag pdfExport (402 otherwise). Served as an
   * attachment named rehearsal-compliance-<framework>-<period>d.pdf.
   * @summary Compliance evidence as a signed PDF
   * @param framework soc2, iso27001, hipaa, dora or pcidss.
   * @param period Reporting period in days.
   * @isInt period must be an integer
   * @minimum period 1 must be between 1 and 3650
   * @maximum period 3650 must be between 1 and 3650
   */
  @Get('compliance/pdf')
  @OperationId('getCompliancePdf')
  @Produces('application/pdf')
  @SuccessResponse<{
    /** attachment; filename="rehearsal-compliance-<framework>-<period>d.pdf" */
    'Content-Disposition': string;
  }>(200, 'The signed PDF', 'application/pdf')
  @Extension(RBAC_EXTENSION, [LIST_TESTS, LIST_REPORTS])
  @Response<ProblemDetails>(400, 'framework unknown or missing, or period missing or out of range')
  @Response<ProblemDetails>(402, 'The license in effect lacks PDF export (enterprise tier, flag pdfExport)')
  public async getCompliancePdf(@Query() framework: FrameworkId, @Query() period: number): Promise<Readable> {
    return send(this, await this.api.pdf.compliance(framework, period));
  }
}

@Route('api/restore-tests')
@Tags('Reports')
@Security('kubernetes')
@Response<ProblemDetails>(401, 'No bearer token, or the cluster rejected it')
@Response<ProblemDetails>(403, 'The caller lacks a permission; missingPermissions names it')
@Response<ProblemDetails>(500, 'Unexpected server error (details are only logged)')
@Response<
  ProblemDetails,
  {
    /** Seconds to wait before retrying (pdf-busy, signing-key-unavailable). */
    'Retry-After'?: string;
  }
>(
  503,
  'Caches still loading (not-ready), the Kubernetes API unreachable, no signing key yet (signing-key-unavailable), or too many PDFs being rendered at once (pdf-busy); Retry-After says when to retry',
)
export class TestReportPdfController extends Controller {
  constructor(private readonly api: ApiContext) {
    super();
  }

  /**
   * The report of one RestoreTest as a signed PDF: test metadata (name, schedule, backup source),
   * the full health-check configuration, the run history of the period with UTC timestamps,
   * scores and RTO, a pass/fail breakdown per check, and the attestation page (signature, key id,
   * product version, generation time). Needs the enterprise tier with the feature flag pdfReports
   * (402 otherwise).
   * @summary One RestoreTest's report as a signed PDF
   * @param name Name of the RestoreTest.
   * @param period Period in days (runs completed in the last `period` days).
   * @param namespace Namespace of the RestoreTest; default: the server's namespace.
   * @pattern name ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength name 63 must be at most 63 characters
   * @pattern namespace ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit
   * @maxLength namespace 63 must be at most 63 characters
   * @isInt period must be an integer
   * @minimum period 1 must be between 1 and 3650
   * @maximum period 3650 must be between 1 and 3650
   */
  @Get('{name}/report.pdf')
  @OperationId('getTestReportPdf')
  @Produces('application/pdf')
  @SuccessResponse<{
    /** attachment; filename="rehearsal-test-<namespace>-<name>-<period>d.pdf" */
    'Content-Disposition': string;
  }>(200, 'The signed PDF', 'application/pdf')
  @Extension(RBAC_EXTENSION, [GET_TEST, LIST_REPORTS_OF_TEST])
  @Response<ProblemDetails>(400, 'name, namespace or period is malformed or out of range')
  @Response<ProblemDetails>(
    402,
    'The license in effect lacks PDF test reports (enterprise tier, flag pdfReports)',
  )
  @Response<ProblemDetails>(404, 'No such RestoreTest')
  public async getTestReportPdf(
    @Path() name: string,
    @Query() period: number = 90,
    @Query() namespace?: string,
  ): Promise<Readable> {
    return send(this, await this.api.pdf.testReport(name, namespace, period));
  }
}
