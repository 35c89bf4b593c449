// The server's PDFs checked as far as they can be: the attestation as every verifier checks it
// (protocol/pdf/attestation-check.ts, the plugin's `verify --pdf`), and then the pages, re-rendered
// from the signed evidence with this build's renderers and compared byte for byte, so an edit to
// the visible pages is detected too. Only the server's renderers can do the second, and nothing in
// production needs it (the plugin has no renderer): the renderers' determinism is a property the
// tests hold them to, so the comparison lives here.
import type { KeyObject } from 'node:crypto';
import { verifyPdfAttestation, type PdfVerification } from '../../protocol/pdf/attestation-check.js';
import { PDF_LAYOUT_VERSION, type SealedEvidence } from '../../server/pdf/attestation.js';
import { renderSealedComplianceReport } from '../../server/pdf/compliance-report.pdf.js';
import type { ComplianceReportData, ReportData, TestReportData } from '../../server/pdf/report-data.js';
import { renderSealedTestReport } from '../../server/pdf/test-report.pdf.js';

export interface PdfAndPagesVerification extends PdfVerification {
  /** identical: the pages are exactly what the signed evidence renders to. */
  contentCheck: 'identical' | 'differs' | 'skipped';
}

/** Renders sealed evidence with the renderer its kind names. */
function renderSealedReport(sealed: SealedEvidence<ReportData>): Promise<Buffer> {
  return sealed.data.kind === 'compliance'
    ? renderSealedComplianceReport(sealed as SealedEvidence<ComplianceReportData>)
    : renderSealedTestReport(sealed as SealedEvidence<TestReportData>);
}

export async function verifyPdfAndPages(
  pdf: Buffer,
  publicKeys: ReadonlyMap<string, KeyObject>,
  options: { rerender?: boolean } = {},
): Promise<PdfAndPagesVerification> {
  const result = verifyPdfAttestation(pdf, publicKeys);
  const { attestation, evidence, evidenceBytes, runsFile } = result;
  if (!attestation || !evidenceBytes) return { ...result, contentCheck: 'skipped' };
  const problems = [...result.problems];
  const notes = [...result.notes];
  let contentCheck: PdfAndPagesVerification['contentCheck'] = 'skipped';
  if (options.rerender === false) {
    notes.push('page content was not compared (re-rendering disabled)');
  } else if (!evidence) {
    notes.push('page content was not compared: no usable evidence');
  } else if (evidence.layout !== PDF_LAYOUT_VERSION) {
    notes.push(
      `page content was not compared: the report was rendered with layout ${evidence.layout}, this verifier renders layout ${PDF_LAYOUT_VERSION}; use the Rehearsal version that generated it (${attestation.version})`,
    );
  } else {
    try {
      const data = evidence.report as unknown as ReportData;
      const rendered = await renderSealedReport({ data, bytes: evidenceBytes, attestation, ...(runsFile ? { runsFile } : {}) });
      contentCheck = rendered.equals(pdf) ? 'identical' : 'differs';
      if (contentCheck === 'differs') {
        problems.push('the pages differ from what the signed evidence renders to: the document was changed after signing');
      }
    } catch (error) {
      contentCheck = 'differs';
      problems.push(`the signed evidence cannot be rendered: ${(error as Error).message}`);
    }
  }
  return { ...result, ok: problems.length === 0, problems, notes, contentCheck };
}
