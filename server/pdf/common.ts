// Pieces both PDF reports share: the document set-up, the cover, run tables, RTO statistics and
// the appendix of run evidence digests.

import { durationText, shortDigest, utcDateTime, utcShort } from './format.js';
import { PdfWriter } from './layout/layout.js';
import { A4, COLOR, MARGIN, type Column, type StatusKey } from './layout/style.js';
import { aggregateByTest, aggregatedRun } from './test-aggregates.js';
import {
  type ReportData,
  type RtoRow,
  type TestAggregate,
  type ComplianceReportData,
  type ControlEntry,
  type RunRecord,
} from './report-data.js';

export function createWriter(
  data: ReportData,
  title: string,
  subject: string,
  headerRight: string,
): PdfWriter {
  const keywords = [
    'Rehearsal',
    'restore test',
    'backup restore evidence',
    data.kind === 'compliance' ? data.framework.id : `test ${data.test.namespace}/${data.test.name}`,
    data.reportId,
  ].join(', ');
  return new PdfWriter(
    {
      title,
      author: `Rehearsal ${data.productVersion} (system-generated)`,
      subject,
      keywords,
      creator: `Rehearsal ${data.productVersion}`,
      producer: `Rehearsal ${data.productVersion} (PDFKit)`,
      createdAt: new Date(data.generatedAt),
    },
    {
      headerLeft: `Rehearsal  |  ${title}`,
      headerRight,
      footerLeft: `Report ${data.reportId}`,
      footerNote: 'System-generated evidence; not an audit opinion',
    },
  );
}

export function periodText(data: ReportData): string {
  return `${utcDateTime(data.period.from)} to ${utcDateTime(data.period.to)} (${data.period.days} days)`;
}

/** Cover page: title block, identification table, a note on what the document is, contents. */
export function renderCover(
  writer: PdfWriter,
  opts: {
    kicker: string;
    title: string;
    subtitle: string;
    rows: ReadonlyArray<[string, string]>;
    about: string;
    contentsEntries: number;
  },
): void {
  const doc = writer.doc;
  doc.rect(0, 0, A4.width, 10).fill(COLOR.accent);
  writer.y = MARGIN.top + 18;
  writer.text(opts.kicker.toUpperCase(), { font: 'bold', size: 9, color: COLOR.accent, gapAfter: 10 });
  writer.text(opts.title, { font: 'bold', size: 24, color: COLOR.ink, gapAfter: 4, lineGap: 1 });
  writer.text(opts.subtitle, { size: 13, color: COLOR.muted, gapAfter: 20 });
  writer.keyValues(opts.rows, { labelWidth: 150, size: 10 });
  writer.space(4);
  writer.callout(opts.about, { title: 'About this document' });
  writer.space(6);
  writer.text('Contents', { font: 'bold', size: 11, color: COLOR.accent, gapAfter: 8 });
  writer.reserveContents(opts.contentsEntries * 15);
}

export function resultStatus(result: RunRecord['result']): StatusKey {
  return result;
}

export function rtoCell(run: RunRecord): string {
  const measured = run.rto ?? durationText(run.rtoSeconds);
  return `${measured} / ${run.rtoTarget ?? 'none'}`;
}

export function namesList(names: readonly string[], max = 6): string {
  if (names.length === 0) return '-';
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/** RTO statistics per test, from the runs that measured an RTO. */
export function rtoRows(runs: readonly RunRecord[]): RtoRow[] {
  return aggregateByTest(runs.map(aggregatedRun));
}

export function renderRtoTable(writer: PdfWriter, rows: readonly RtoRow[]): void {
  const columns: Column<RtoRow>[] = [
    {
      header: 'RestoreTest',
      width: 2.2,
      cell: (r) => ({
        text: r.test,
        font: 'bold',
        sub: `${r.testNamespace}; sources: ${namesList(r.sourceNamespaces, 3)}`,
      }),
    },
    { header: 'Target', width: 0.9, cell: (r) => r.target ?? 'none set' },
    { header: 'Runs (measured)', width: 0.9, align: 'right', cell: (r) => `${r.runs} (${r.measured})` },
    { header: 'Median', width: 0.85, align: 'right', cell: (r) => durationText(r.medianSeconds) },
    { header: 'p95', width: 0.85, align: 'right', cell: (r) => durationText(r.p95Seconds) },
    {
      header: 'Worst (when, UTC)',
      width: 1.5,
      cell: (r) => ({ text: durationText(r.worstSeconds), sub: r.worstAt ? utcShort(r.worstAt) : undefined }),
    },
    {
      header: 'Over target',
      width: 0.9,
      align: 'right',
      cell: (r) =>
        r.target === undefined
          ? { text: 'n/a', color: COLOR.muted }
          : {
              text: String(r.breaches),
              font: r.breaches > 0 ? 'bold' : 'regular',
              color: r.breaches > 0 ? '#8A4B00' : COLOR.ink,
            },
    },
  ];
  writer.table(columns, rows, { empty: 'No runs in the period.' });
}

/** Appendix: every run in the period, oldest first, one line per run where possible. */
export function renderRunHistory(
  writer: PdfWriter,
  runs: readonly RunRecord[],
  opts: { showTest: boolean },
): void {
  const columns: Column<RunRecord>[] = [
    {
      header: '#',
      width: 22,
      align: 'right',
      cell: (_r, i) => ({ text: String(i + 1), color: COLOR.muted }),
    },
    {
      header: 'Started (UTC)',
      width: 66,
      cell: (r) => ({
        text: utcShort(r.startedAt),
        sub: r.trigger === 'manual' ? 'manual trigger' : r.trigger === 'backup' ? 'after a new backup' : undefined,
      }),
    },
  ];
  if (opts.showTest) columns.push({ header: 'RestoreTest', width: 80, cell: (r) => r.test });
  columns.push(
    { header: 'Backup', width: opts.showTest ? 82 : 122, cell: (r) => (r.backupChoice ? `${r.backupName} (${r.backupChoice})` : r.backupName) },
    {
      header: 'Result',
      width: 46,
      cell: (r) => ({ text: r.result, status: resultStatus(r.result), note: r.failure?.reason }),
    },
    { header: 'Score', width: 27, align: 'right', cell: (r) => String(r.score) },
    { header: 'RTO / target', width: 66, cell: (r) => rtoCell(r) },
    { header: 'Checks', width: 32, align: 'right', cell: (r) => `${r.checksPassed}/${r.checksTotal}` },
    {
      header: 'Evidence',
      width: 62,
      cell: (r) => ({
        text: shortDigest(r.evidenceDigest, 8),
        font: 'mono',
        sub: r.evidenceDigest && r.evidenceVerified === false ? 'NOT VERIFIED' : undefined,
      }),
    },
  );
  if (!opts.showTest) {
    columns.splice(3, 0, {
      header: 'Backup age',
      width: 40,
      align: 'right',
      cell: (r) => r.backupAge ?? '-',
    });
  }
  writer.table(columns, runs, { fontSize: 7, compact: true, empty: 'No runs in the period.' });
}

/** Appendix: full evidence digests, to tie each run to its RestoreReport in the cluster. */
export function renderDigestAppendix(writer: PdfWriter, runs: readonly RunRecord[]): void {
  writer.paragraph(
    'The full spec.evidence.digest of every RestoreReport included above, in the same order. Compare with kubectl get restorereports -o yaml.',
  );
  writer.table(
    [
      {
        header: '#',
        width: 0.45,
        align: 'right',
        cell: (_r: RunRecord, i: number) => ({ text: String(i + 1), color: COLOR.muted }),
      },
      {
        header: 'RestoreReport (namespace)',
        width: 2.6,
        cell: (r: RunRecord) => ({ text: r.name, sub: r.testNamespace }),
      },
      {
        header: 'Evidence digest (SHA-256)',
        width: 4.1,
        cell: (r: RunRecord) => ({
          text: r.evidenceDigest ? r.evidenceDigest.slice(7) : 'unsigned',
          font: 'mono',
        }),
      },
    ],
    runs,
    { fontSize: 7, empty: 'No runs in the period.' },
  );
}

/** namesList for `total` names of which only the first few are known. */
export function namesOf(known: readonly string[], total: number, max: number): string {
  if (total === 0) return '-';
  const shown = known.slice(0, max);
  return total <= shown.length ? shown.join(', ') : `${shown.join(', ')} and ${total - shown.length} more`;
}

/** "N more ... not listed here; the complete list: ..." under a capped table. */
export function unlistedLine(
  writer: PdfWriter,
  total: number,
  listed: number,
  one: string,
  many: string,
  where: readonly string[],
): void {
  const more = total - listed;
  if (more <= 0) return;
  writer.paragraph(
    `${more} more ${more === 1 ? `${one} is` : `${many} are`} not listed here; the complete list: ${where.join('; ')}.`,
  );
}

/** Appendix A of the compliance report: one row of run counts per RestoreTest. */
export function renderTestAggregates(writer: PdfWriter, rows: readonly TestAggregate[]): void {
  const columns: Column<TestAggregate>[] = [
    {
      header: 'RestoreTest',
      width: 2.2,
      cell: (r) => ({
        text: r.test,
        font: 'bold',
        sub: `${r.testNamespace}; sources: ${namesList(r.sourceNamespaces, 3)}`,
      }),
    },
    { header: 'Runs', width: 0.7, align: 'right', cell: (r) => String(r.runs) },
    {
      header: 'Pass / partial / fail',
      width: 1.3,
      align: 'right',
      cell: (r) => `${r.pass} / ${r.partial} / ${r.fail}`,
    },
    { header: 'Avg score', width: 0.7, align: 'right', cell: (r) => String(r.avgScore) },
    {
      header: 'Latest run (UTC)',
      width: 1.4,
      cell: (r) => ({ text: r.latestResult, status: r.latestResult, note: utcShort(r.latestAt) }),
    },
    {
      header: 'Evidence not verified',
      width: 1,
      align: 'right',
      cell: (r) =>
        r.notVerified === undefined
          ? { text: 'not checked', color: COLOR.muted }
          : { text: String(r.notVerified), font: r.notVerified > 0 ? 'bold' : 'regular' },
    },
  ];
  writer.table(columns, rows, { fontSize: 7.5, empty: 'No runs in the period.' });
}

/** Data without per-control counts (older evidence): the coverage matrix is then complete. */
export function controlTargetsOf(
  data: ComplianceReportData,
  control: ControlEntry,
): NonNullable<ControlEntry['targets']> {
  const index = data.controls.indexOf(control);
  const names = data.coverage
    .filter((row) => row.statuses[index] === 'satisfied')
    .map((row) => row.namespace);
  return { inScope: data.coverage.length, satisfied: names.length, satisfiedNames: names.slice(0, 5) };
}
