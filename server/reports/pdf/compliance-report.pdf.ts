// The compliance evidence PDF (GET /api/v1/compliance/pdf), laid out for auditors as
// shared/guides/compliance-controls.md "PDF layout for auditors" describes. The statuses and
// evidence sentences are the compliance module's; this file only presents them. It never says
// "compliant": it says which controls the evidence supports, for which targets, over which period.

import type { EvidenceSigner } from '../../evidence/signing-key.js';
import {
  embedEvidence,
  renderAttestationPage,
  sealEvidence,
  type PdfAttestation,
  type SealedEvidence,
} from './attestation.js';
import {
  controlTargetsOf,
  createWriter,
  namesList,
  namesOf,
  periodText,
  renderCover,
  renderRtoTable,
  renderTestAggregates,
  unlistedLine,
} from './common.js';
import { percent, plural, utcDate, utcDateTime, utcShort } from './format.js';
import { COLOR, type Column, type StatusKey } from './layout-style.js';
import type { ComplianceReportData, ControlEntry, ExceptionEntry } from './report-data.js';

const STATUS_WORD: Record<ControlEntry['status'], string> = {
  satisfied: 'satisfied',
  at_risk: 'at risk',
  not_tested: 'not tested',
};

/** The standard rule text (shared/guides/compliance-controls.md), printed when the data has none. */
export function defaultStatusRules(data: ComplianceReportData): string[] {
  const w = data.statusRules.remediationWindowDays;
  const f = data.statusRules.freshnessDays;
  return [
    'A run is one RestoreReport: one restore of a backup into an isolated sandbox namespace, followed by health checks. Every run in the period counts, failures included.',
    'Qualifying pass: result pass, measured RTO within the RestoreTest\'s target, and evidence signature that verifies. For RTO-bound controls a run without an RTO target does not qualify ("RTO target undefined").',
    `Exception: any other run in the period. It is remediated when a qualifying pass of the same RestoreTest follows within ${w} days.`,
    'A target is a source namespace in scope. Not tested: no completed run in the period.',
    `Satisfied (per target): at least one qualifying pass in the period, the newest younger than ${f} days at evaluation time, the latest run is a qualifying pass, and every exception was remediated within ${w} days.`,
    'At risk (per target): anything else, with the reasons: stale evidence, latest run failed or partial, RTO over target, late remediation, no RTO target, evidence that does not verify.',
    'Per control: not tested if no target in scope was tested; satisfied if every target in scope is satisfied; otherwise at risk (partial coverage is at risk).',
  ];
}

const STANDARD_LIMITATIONS = [
  'A sandbox namespace in the same cluster is only logical segregation: the restores ran in the cluster that hosts the source namespaces, separated by namespace and network policy, not on segregated infrastructure.',
  'A measured RTO is the time one test restore took (restore request until the application was proven healthy). It is not a guarantee of recovery time in an incident, where data volume, load and people differ.',
  'A restore test shows that a backup of the listed namespaces could be restored and passed the configured health checks at that time. Health checks are only as deep as configured: where only the default checks ran, pods and service endpoints were verified, not the data.',
  'Cluster-scoped resources, data outside the cluster and systems other than the listed namespaces are not evidenced by this report.',
  'The population of runs is complete back to the oldest RestoreReport still retained (historyLimit). Removing the oldest reports cannot be told apart from pruning; removing or editing any other report is detected by the hash chain.',
  "Controls that are the customer's own duties (policies, business impact analysis, physical security, staff training) are never marked satisfied by this report.",
];

/** Renders the compliance evidence report. Deterministic for a given data object and signer. */
export async function renderComplianceReport(
  data: ComplianceReportData,
  signer: EvidenceSigner,
  runsFile?: Buffer,
): Promise<Buffer> {
  return renderSealedComplianceReport({ ...sealEvidence(data, signer), ...(runsFile ? { runsFile } : {}) });
}

/** Renders from already sealed evidence (also used by the verifier to re-render). */
export async function renderSealedComplianceReport(
  sealed: SealedEvidence<ComplianceReportData>,
): Promise<Buffer> {
  const data = sealed.data;
  const attestation: PdfAttestation = sealed.attestation;
  const period = `${utcDate(data.period.from)}..${utcDate(data.period.to)} UTC`;
  const writer = createWriter(
    data,
    'Restore-test evidence report',
    `Restore-test evidence for ${data.framework.label}, ${period}`,
    `${data.framework.label}  |  ${period}`,
  );
  const counts = data.population;
  const byTestTotal = data.byTestTotal ?? data.byTest.length;
  const targetsTotal = data.scope.targetsTotal ?? data.scope.targets.length;
  const testsTotal = data.scope.testsTotal ?? data.scope.tests.length;
  const controlCounts = { satisfied: 0, at_risk: 0, not_tested: 0 };
  for (const c of data.controls) controlCounts[c.status] += 1;

  // ---------------------------------------------------------------- cover
  renderCover(writer, {
    kicker: 'Rehearsal  |  restore-test evidence',
    title: 'Restore-Test Evidence Report',
    subtitle: data.framework.label,
    rows: [
      ['Framework', `${data.framework.label} (${data.framework.id})`],
      ['Reporting period (UTC)', periodText(data)],
      ['Report ID', data.reportId],
      ['Generated at', utcDateTime(data.generatedAt)],
      ['Statuses evaluated at', utcDateTime(data.evaluatedAt)],
      ['Cluster', data.cluster ?? 'not named'],
      ['Generated by', `Rehearsal ${data.productVersion}`],
      [
        'Runs in period',
        `${counts.runs} (${counts.pass} pass, ${counts.partial} partial, ${counts.fail} fail)`,
      ],
    ],
    about:
      'This report sets out what scheduled restore tests performed by Rehearsal evidence for the controls of the framework named above: which backups were restored into isolated sandboxes, how the restored applications were checked, how long recovery took against the targets, and how failures were followed up. ' +
      'It is system-generated evidence, not an audit opinion, and it does not state compliance. The evidence it contains is signed; see the attestation page.',
    contentsEntries: 11,
  });

  // ---------------------------------------------------------------- 1. scope
  writer.section('Scope and RTO targets', { newPage: true });
  writer.paragraph(
    `In scope are ${plural(targetsTotal, 'source namespace')} (the targets of the status rules), tested by ${plural(testsTotal, 'RestoreTest')}. ` +
      `${data.summary.namespacesCovered} of ${data.summary.namespacesInScope} namespaces in scope had at least one run in the period.`,
  );
  writer.subheading('Targets (source namespaces)');
  writer.table(
    [
      { header: 'Namespace', width: 1.6, cell: (t) => ({ text: t.namespace, font: 'bold' }) },
      { header: 'Tested by', width: 2.4, cell: (t) => namesList(t.tests, 4) },
      {
        header: 'RTO target',
        width: 1.2,
        cell: (t) =>
          t.rtoTargets.length === 0 ? { text: 'none set', color: '#8A4B00' } : t.rtoTargets.join(', '),
      },
      {
        header: 'Runs in period',
        width: 1,
        align: 'right',
        cell: (t) => String(t.runs),
      },
    ],
    data.scope.targets,
    { empty: 'No source namespaces in scope.' },
  );
  unlistedLine(writer, targetsTotal, data.scope.targets.length, 'source namespace', 'source namespaces', [
    'GET /api/v1/tests (source namespaces per RestoreTest)',
    'kubectl restoretest list -A -o wide',
    'kubectl restoretest coverage',
  ]);
  writer.subheading('RestoreTests');
  writer.table(
    [
      { header: 'RestoreTest', width: 1.8, cell: (t) => ({ text: t.name, font: 'bold', sub: t.namespace }) },
      { header: 'Provider / backup', width: 1.3, cell: (t) => ({ text: t.provider, sub: t.backupName }) },
      { header: 'Schedule', width: 1.3, cell: (t) => ({ text: t.schedule, font: 'mono', sub: t.timezone }) },
      { header: 'Source namespaces', width: 1.8, cell: (t) => namesList(t.sourceNamespaces, 4) },
      {
        header: 'RTO target',
        width: 0.9,
        cell: (t) => (t.rtoTarget ? t.rtoTarget : { text: 'none set', color: '#8A4B00' }),
      },
    ],
    data.scope.tests,
    { empty: 'No RestoreTests.' },
  );
  unlistedLine(writer, testsTotal, data.scope.tests.length, 'RestoreTest', 'RestoreTests', [
    'GET /api/v1/tests',
    'kubectl restoretest list -A -o wide',
  ]);

  // ---------------------------------------------------------------- 2. executive summary
  writer.section('Executive summary', { newPage: true });
  writer.tiles([
    {
      value: String(data.summary.totalRuns),
      label: 'Runs',
      note: `${counts.pass} pass, ${counts.partial} partial, ${counts.fail} fail`,
    },
    { value: percent(data.summary.passRate), label: 'Pass rate', note: 'pass runs / all runs' },
    { value: String(data.summary.avgScore), label: 'Average score', note: 'of 100' },
    {
      value: percent(data.summary.slaCompliance),
      label: 'RTO within target',
      note: 'runs without target count as not within',
    },
    {
      value: `${data.summary.namespacesCovered}/${data.summary.namespacesInScope}`,
      label: 'Namespaces tested',
      note: 'with a run in the period',
    },
  ]);
  writer.paragraph(
    `${plural(data.controls.length, 'control')} of ${data.framework.label} can be evidenced by restore tests: ` +
      `${controlCounts.satisfied} satisfied, ${controlCounts.at_risk} at risk, ${controlCounts.not_tested} not tested, over ${period}.`,
  );
  writer.bullets(data.controls.map((c) => controlStatement(c, data, period)));
  if (data.chain) {
    writer.paragraph(
      data.chain.problems.length === 0
        ? `Evidence integrity: all ${data.chain.checkedReports} RestoreReports checked verify (Ed25519 signature and hash chain).`
        : `Evidence integrity: ${data.chain.verifiedReports} of ${data.chain.checkedReports} RestoreReports verify; ${plural(data.chain.problems.length, 'problem')} listed under Limitations. Runs whose evidence does not verify never count as qualifying passes.`,
    );
  }

  // ---------------------------------------------------------------- 3. status rules
  writer.section('Status rules used');
  writer.paragraph(
    `Statuses were evaluated at ${utcDateTime(data.evaluatedAt)} over the period ${period}, with a remediation window of ${data.statusRules.remediationWindowDays} days and a freshness window of ${data.statusRules.freshnessDays} days.`,
  );
  writer.bullets(data.statusRules.rules.length > 0 ? data.statusRules.rules : defaultStatusRules(data));
  writer.legend([
    ['satisfied', 'Evidence supports the control for every target in scope over the period.'],
    [
      'at_risk',
      'Some evidence exists, but a rule is not met for at least one target; the reasons are listed.',
    ],
    ['not_tested', 'No target in scope had a completed run in the period.'],
  ]);

  // ---------------------------------------------------------------- 4. controls
  writer.section('Control status and evidence', { minSpaceAfter: 160 });
  const controlColumns: Column<ControlEntry>[] = [
    {
      header: 'Control',
      width: 1.35,
      cell: (c) => ({ text: c.id, font: 'bold', sub: `${c.title} (${c.role})` }),
    },
    {
      header: 'Status',
      width: 0.95,
      cell: (c) => ({
        text: STATUS_WORD[c.status],
        status: c.status as StatusKey,
        note:
          c.remediatedExceptions > 0
            ? `${plural(c.remediatedExceptions, 'remediated exception')}`
            : undefined,
      }),
    },
    {
      header: 'Evidence',
      width: 2.9,
      cell: (c) => ({
        text: c.evidence,
        sub: c.reasons.length > 0 ? `Reasons: ${c.reasons.join('; ')}` : undefined,
      }),
    },
    {
      header: 'Not evidenced by this report',
      width: 1.8,
      cell: (c) => ({ text: c.notEvidenced, color: COLOR.muted }),
    },
  ];
  writer.table(controlColumns, data.controls, { fontSize: 7.8, empty: 'No controls.' });
  if (data.notEvidenced.length > 0) {
    writer.subheading('Not evidenced by this report (customer duties)', 30);
    writer.bullets(data.notEvidenced, { size: 8.5 });
  }

  // ---------------------------------------------------------------- 5. coverage
  writer.section('Coverage matrix', { minSpaceAfter: 150 });
  writer.paragraph(
    'Status per target (source namespace) and control over the period. A control is satisfied only when every target in scope is.' +
      (data.coverage.length < (data.coverageTotal ?? data.coverage.length)
        ? ` ${data.coverage.length} of ${data.coverageTotal} targets are listed, those not tested or at risk for the most controls first; the control statuses and the executive summary count all of them.`
        : ''),
  );
  const coverageColumns: Column<ComplianceReportData['coverage'][number]>[] = [
    { header: 'Namespace', width: 1.7, cell: (r) => ({ text: r.namespace, font: 'bold' }) },
    ...data.controls.map((c, i): Column<ComplianceReportData['coverage'][number]> => ({
      header: c.id,
      width: 1,
      align: 'center',
      cell: (r) => {
        const s = r.statuses[i] ?? 'not_tested';
        return { text: STATUS_WORD[s], status: s as StatusKey };
      },
    })),
  ];
  writer.table(coverageColumns, data.coverage, { empty: 'No targets in scope.' });
  unlistedLine(
    writer,
    data.coverageTotal ?? data.coverage.length,
    data.coverage.length,
    'target',
    'targets',
    [
      `GET /api/v1/reports?latest=true&days=${data.period.days} (the latest run per RestoreTest)`,
      `kubectl restoretest reports -A --latest`,
      'kubectl restoretest coverage',
    ],
  );

  // ---------------------------------------------------------------- 6. RTO
  writer.section('RTO analysis', { minSpaceAfter: 230 });
  writer.paragraph(
    `Measured RTO is the time from the restore request to the end of validation (application proven healthy). ${percent(data.summary.slaCompliance)} of runs met their RestoreTest's RTO target; a run of a test without a target counts as not within target, because a missing target is itself a gap.`,
  );
  const rtoRows = data.rtoByTest ?? data.byTest;
  renderRtoTable(writer, rtoRows);
  unlistedLine(writer, byTestTotal, rtoRows.length, 'RestoreTest', 'RestoreTests', [
    `GET /api/v1/reports?days=${data.period.days} (rto of every run)`,
    `kubectl restoretest reports -A --days ${data.period.days} -o wide`,
  ]);

  // ---------------------------------------------------------------- 7. exceptions
  writer.section('Exceptions and remediation', { minSpaceAfter: 160 });
  writer.paragraph(
    `Every run that was not a qualifying pass, and how it was followed up: remediated when a qualifying pass of the same RestoreTest followed within ${data.statusRules.remediationWindowDays} days, late when it followed later, pending while none has followed and the window is still open, unremediated when the window closed without one.`,
  );
  const exceptionColumns: Column<ExceptionEntry>[] = [
    {
      header: 'Run (UTC)',
      width: 1.9,
      cell: (e) => ({ text: e.test, font: 'bold', sub: `${utcShort(e.at)}; ${e.run}` }),
    },
    { header: 'Result', width: 0.75, cell: (e) => ({ text: e.result, status: e.result }) },
    { header: 'Reason', width: 2.3, cell: (e) => e.reason },
    {
      header: 'Follow-up',
      width: 1.8,
      cell: (e) => ({
        text: e.remediation,
        status: e.remediation,
        note: e.remediatedBy
          ? `by ${e.remediatedBy}${e.remediatedAt ? `, ${utcShort(e.remediatedAt)}` : ''}`
          : 'no qualifying pass since',
      }),
    },
  ];
  if (data.exceptionsTotal > data.exceptions.length) {
    writer.paragraph(
      `${plural(data.exceptionsTotal, 'exception')} in the period; the ${data.exceptions.length} listed are the unremediated, late and pending ones first, then the newest. ` +
        'Appendix A counts the runs per RestoreTest.',
    );
  }
  writer.table(exceptionColumns, data.exceptions, {
    empty: 'No exceptions: every run in the period was a qualifying pass.',
  });
  const unlisted = data.exceptionsTotal - data.exceptions.length;
  if (unlisted > 0) {
    writer.paragraph(
      `${unlisted} more ${unlisted === 1 ? 'exception is' : 'exceptions are'} not listed here. The full list: the API (GET /api/v1/reports?days=${data.period.days}) or kubectl restoretest reports.`,
    );
  }

  // ---------------------------------------------------------------- 8. limitations
  writer.section('Limitations');
  writer.bullets([...STANDARD_LIMITATIONS, ...data.limitations]);
  if (data.chain && data.chain.problems.length > 0) {
    writer.subheading('Evidence that did not verify', 30);
    writer.bullets(data.chain.problems, { size: 8.5 });
  }

  // ---------------------------------------------------------------- 9. attestation
  renderAttestationPage(writer, data, attestation, data.chain);

  // ---------------------------------------------------------------- appendix
  writer.section('Runs per RestoreTest', { newPage: true, label: 'Appendix A' });
  writer.paragraph(
    `All ${plural(data.population.runs, 'run')} in the period, failures included, counted per RestoreTest` +
      (byTestTotal > data.byTest.length
        ? ` (${data.byTest.length} of ${byTestTotal} RestoreTests listed, those whose latest run failed or was partial first; the totals above count all of them). `
        : '. ') +
      (data.runsFile
        ? `Every run of the period, failures included, is attached to this PDF as ${data.runsFile.name} (gzip'd CSV, ${plural(data.runsFile.rows, 'row')}: report, test, completion time, result, score, RTO, evidence verified, the report's evidence digest, failure reason); its SHA-256 ${data.runsFile.digest} is part of the signed evidence. Extract it with pdfdetach -list / -save. `
        : '') +
      'Individual runs are listed above only as exceptions; every run, with its evidence digest, is available from the API (GET /api/v1/reports) or kubectl restoretest reports. Times are UTC.',
  );
  renderTestAggregates(writer, data.byTest);
  unlistedLine(writer, byTestTotal, data.byTest.length, 'RestoreTest', 'RestoreTests', [
    `GET /api/v1/reports?days=${data.period.days}`,
    `kubectl restoretest reports -A --days ${data.period.days}`,
  ]);

  writer.finish();
  embedEvidence(writer, sealed);
  return writer.end();
}

/** One executive-summary sentence per control, in the guide's wording ("evidence supports ..."). */
function controlStatement(control: ControlEntry, data: ComplianceReportData, period: string): string {
  const targets = control.targets ?? controlTargetsOf(data, control);
  const inScope = targets.inScope;
  const satisfiedCount = targets.satisfied;
  const satisfiedNames = namesOf(targets.satisfiedNames, satisfiedCount, 5);
  switch (control.status) {
    case 'satisfied': {
      const which =
        satisfiedCount === inScope
          ? inScope === 1
            ? 'the only target'
            : `all ${inScope} targets`
          : `${satisfiedCount} of ${inScope} targets`;
      return `${control.id} (${control.title}): evidence supports the control for ${which} (${satisfiedNames}) over ${period}${control.remediatedExceptions > 0 ? `, with ${plural(control.remediatedExceptions, 'remediated exception')}` : ''}.`;
    }
    case 'at_risk':
      return `${control.id} (${control.title}): at risk. Evidence supports it for ${satisfiedCount} of ${inScope} targets${satisfiedCount > 0 ? ` (${satisfiedNames})` : ''}; ${control.reasons.length > 0 ? control.reasons.join('; ') : 'see the control table'}.`;
    case 'not_tested':
      return `${control.id} (${control.title}): not tested. No target in scope had a completed run in the period.`;
  }
}
