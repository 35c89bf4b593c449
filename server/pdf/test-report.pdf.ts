// The per-RestoreTest PDF (GET /api/restore-tests/{name}/report.pdf): test metadata, the full
// health-check configuration, run history with UTC timestamps, scores, RTO and RPO, the volumes the
// latest run restored, a pass/fail breakdown per check, and a signed attestation page (decision 0006).

import type { CheckStatus, HealthCheck, ScoreLevelName } from '../domain/resources/resources.js';
import type { EvidenceSigner } from '../evidence/signing-key.js';
import { embedEvidence, renderAttestationPage, sealEvidence, type SealedEvidence } from './attestation.js';
import {
  createWriter,
  periodText,
  renderCover,
  renderDigestAppendix,
  renderRtoTable,
  renderRunHistory,
  rtoRows,
} from './common.js';
import { durationText, median, percent, plural, utcDate, utcDateTime, utcShort } from './format.js';
import { COLOR, type Column } from './layout/style.js';
import { renderRecoveryPoint, renderVolumeTable, rpoTargetText, rpoText } from './recovery-point.js';
import {
  resultCounts,
  type CheckBreakdownRow,
  type TestReportData,
  type TestRunRecord,
} from './report-data.js';

const LEVEL_TITLES: Record<ScoreLevelName, string> = {
  restoreIntegrity: 'Restore integrity',
  completeness: 'Completeness',
  podStartup: 'Pod startup',
  healthChecks: 'Health checks',
  crossNamespace: 'Cross-namespace dependencies',
  rtoWithinSLA: 'RTO within SLA',
};

const DEFAULT_TIMEOUT = '30s';

/** One line describing what a check does, from its configuration block. */
export function describeCheck(check: HealthCheck): string {
  const selector = (s: Record<string, string> | undefined): string =>
    s && Object.keys(s).length > 0
      ? Object.entries(s)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')
      : 'all pods';
  switch (check.kind) {
    case 'podsReady': {
      const c = check.podsReady ?? {};
      return `Pods ${selector(c.selector)}: ${c.minReady !== undefined ? `at least ${c.minReady} Ready` : 'every selected pod Ready'}.`;
    }
    case 'httpGet': {
      const c = check.httpGet;
      if (!c) return 'HTTP GET (configuration missing).';
      return `GET ${c.scheme ?? 'http'}://${c.service}:${c.port}${c.path ?? '/'} expects status ${c.expectedStatus ?? 200}${c.bodyMatch ? `; body matches /${c.bodyMatch}/` : ''}.`;
    }
    case 'tcpSocket': {
      const c = check.tcpSocket;
      return c
        ? `TCP connection to ${c.service}:${c.port} succeeds.`
        : 'TCP connect (configuration missing).';
    }
    case 'sqlQuery': {
      const c = check.sqlQuery;
      if (!c) return 'SQL query (configuration missing).';
      const port = c.port ?? (c.engine === 'postgres' ? 5432 : 3306);
      const expectation =
        c.expectedValue !== undefined
          ? `first value equals "${c.expectedValue}"`
          : `at least ${plural(c.expectedMinRows ?? 1, 'row')}`;
      return `${c.engine} ${c.service}:${port}, database ${c.database}, credentials from restored Secret ${c.credentialsSecret.name}; query: ${c.query}; expects ${expectation}.`;
    }
    case 'resourceExists': {
      const c = check.resourceExists;
      return c
        ? `${c.apiVersion} ${c.kind} "${c.name}" exists in the sandbox.`
        : 'Resource exists (configuration missing).';
    }
    case 'exec': {
      const c = check.exec;
      if (!c) return 'Exec (configuration missing).';
      return `Run ${JSON.stringify(c.command)} in pods ${selector(c.selector)}${c.container ? `, container ${c.container}` : ''}; expects exit code ${c.expectedExitCode ?? 0}.`;
    }
    case 'file': {
      const c = check.file;
      if (!c) return 'File (configuration missing).';
      if (c.exists === false) return `File ${c.path} on restored claim ${c.claim} does not exist.`;
      const expects = [
        ...(c.size !== undefined ? [`${plural(c.size, 'byte')}`] : []),
        ...(c.sha256 !== undefined ? [`SHA-256 ${c.sha256.slice(0, 12)}…`] : []),
        ...(c.contains !== undefined ? [`contains "${c.contains}"`] : []),
        ...(c.freshness ? [`newest data from its ${c.freshnessSource === 'content' ? 'content' : 'modification time'}`] : []),
      ];
      return `File ${c.path} on restored claim ${c.claim} exists${expects.length > 0 ? `; ${expects.join(', ')}` : ''}.`;
    }
  }
}

/** Pass/fail counts per check over the runs, configured checks first (in configuration order). */
export function checkBreakdown(data: TestReportData): CheckBreakdownRow[] {
  const rows = new Map<string, CheckBreakdownRow>();
  const row = (name: string, kind: HealthCheck['kind']): CheckBreakdownRow => {
    let r = rows.get(name);
    if (!r) {
      r = { name, kind, counts: { pass: 0, fail: 0, error: 0, skip: 0 } };
      rows.set(name, r);
    }
    return r;
  };
  for (const check of data.healthChecks.checks) row(check.name, check.kind);
  for (const run of data.runs) {
    for (const result of run.checks) {
      const r = row(result.name, result.kind);
      r.counts[result.status] += 1;
      r.lastStatus = result.status;
      if (result.status === 'fail' || result.status === 'error') {
        r.lastFailureAt = run.completedAt;
        r.lastFailureMessage = result.message;
      }
    }
  }
  return [...rows.values()];
}

export async function renderTestReport(data: TestReportData, signer: EvidenceSigner): Promise<Buffer> {
  return renderSealedTestReport(sealEvidence(data, signer));
}

export async function renderSealedTestReport(sealed: SealedEvidence<TestReportData>): Promise<Buffer> {
  const data = sealed.data;
  const test = data.test;
  const period = `${utcDate(data.period.from)}..${utcDate(data.period.to)} UTC`;
  const writer = createWriter(
    data,
    'Restore test report',
    `Restore test report for ${test.namespace}/${test.name}, ${period}`,
    `${test.name}  |  ${period}`,
  );
  const counts = resultCounts(data.runs);
  const latest: TestRunRecord | undefined = data.runs[data.runs.length - 1];

  // ---------------------------------------------------------------- cover
  renderCover(writer, {
    kicker: 'Rehearsal  |  restore test report',
    title: 'Restore Test Report',
    subtitle: `${test.name}  (namespace ${test.namespace})`,
    rows: [
      ['RestoreTest', `${test.name} in ${test.namespace}`],
      [
        'Backup source',
        `${test.provider}, backup ${test.backupSource.backupName}; namespaces ${test.backupSource.namespaces.join(', ')}`,
      ],
      ['Reporting period (UTC)', periodText(data)],
      ['Report ID', data.reportId],
      ['Generated at', utcDateTime(data.generatedAt)],
      ['Cluster', data.cluster ?? 'not named'],
      ['Generated by', `Rehearsal ${data.productVersion}`],
      [
        'Runs in period',
        `${data.runs.length} (${counts.pass} pass, ${counts.partial} partial, ${counts.fail} fail)`,
      ],
    ],
    about:
      'This report documents one RestoreTest: what it restores and on which schedule, how the restored application is checked, and every run in the period with its result, score and measured recovery time. ' +
      'It is system-generated evidence, not an audit opinion. The evidence it contains is signed; see the attestation page.',
    contentsEntries: 10,
  });

  // ---------------------------------------------------------------- 1. definition
  writer.section('Test definition', { newPage: true });
  const quota = test.sandbox.resourceQuota;
  writer.keyValues([
    ['Name', test.name],
    ['Namespace', test.namespace],
    ['UID', test.uid ?? '-', 'mono'],
    ['Provider', test.provider],
    [
      'Schedule',
      `${test.schedule.cron}  (time zone ${test.schedule.timezone})${test.schedule.suspend ? '; SUSPENDED' : ''}`,
    ],
    [
      'Backup',
      test.backupSource.backupName === 'latest'
        ? 'latest (newest completed backup covering the source namespaces)'
        : test.backupSource.backupName,
    ],
    ['Source namespaces', test.backupSource.namespaces.join(', ')],
    ...(test.backupSource.providerNamespace
      ? ([['Provider namespace', test.backupSource.providerNamespace]] as [string, string][])
      : []),
    [
      'Sandbox',
      `prefix ${test.sandbox.namespacePrefix}, lifetime at most ${test.sandbox.ttl}, network isolation ${test.sandbox.networkIsolation}`,
    ],
    ...(quota && Object.keys(quota).length > 0
      ? ([
          [
            'Resource quota',
            Object.entries(quota)
              .map(([k, v]) => `${k}=${v}`)
              .join(', '),
          ],
        ] as [string, string][])
      : []),
    [
      'RTO target (SLA)',
      test.sla.maxRTO
        ? `${test.sla.maxRTO}${test.sla.alertOnExceed ? ', alert when exceeded' : ', no alert'}`
        : 'none set (no RTO target is itself a gap)',
    ],
    ['RPO target (SLA)', rpoTargetText(test.sla.maxRPO)],
    ['History limit', `${test.historyLimit} reports kept`],
  ]);

  // ---------------------------------------------------------------- 2. health checks
  writer.section('Health-check configuration');
  const source =
    data.healthChecks.source === 'policy'
      ? `Checks come from HealthCheckPolicy ${data.healthChecks.policyName ?? ''}${data.healthChecks.description ? `: ${data.healthChecks.description}` : '.'}`
      : data.healthChecks.source === 'inline'
        ? 'Checks are configured inline in the RestoreTest.'
        : 'No checks are configured, so the default checks apply: every restored pod is Ready, and every restored Service has a ready endpoint.';
  writer.paragraph(
    `${source} Probes run against the sandbox namespaces only; copying files alone never counts as success.`,
  );
  if (data.healthChecks.checks.length > 0) {
    const checkColumns: Column<HealthCheck>[] = [
      { header: 'Check', width: 1.4, cell: (c) => ({ text: c.name, font: 'bold', sub: c.kind }) },
      {
        header: 'Sandbox of',
        width: 1.05,
        cell: (c) => c.sourceNamespace ?? test.backupSource.namespaces[0] ?? '-',
      },
      { header: 'Timeout', width: 0.65, cell: (c) => c.timeout ?? `${DEFAULT_TIMEOUT} (default)` },
      { header: 'Configuration', width: 4, cell: (c) => describeCheck(c) },
    ];
    writer.table(checkColumns, data.healthChecks.checks);
  }

  // ---------------------------------------------------------------- 3. summary
  writer.section('Summary of the period');
  const rtoSeconds = data.runs.map((r) => r.rtoSeconds).filter((s): s is number => s !== undefined);
  const withinTarget = data.runs.filter((r) => r.withinSLA === true).length;
  const avgScore =
    data.runs.length === 0 ? 0 : Math.round(data.runs.reduce((s, r) => s + r.score, 0) / data.runs.length);
  writer.tiles([
    {
      value: String(data.runs.length),
      label: 'Runs',
      note: `${counts.pass} pass, ${counts.partial} partial, ${counts.fail} fail`,
    },
    {
      value: percent(data.runs.length === 0 ? undefined : counts.pass / data.runs.length),
      label: 'Pass rate',
    },
    { value: String(avgScore), label: 'Average score', note: 'of 100' },
    {
      value: durationText(median(rtoSeconds)),
      label: 'Median RTO',
      note: test.sla.maxRTO ? `target ${test.sla.maxRTO}` : 'no target set',
    },
    { value: `${withinTarget}/${data.runs.length}`, label: 'RTO within target' },
  ]);
  if (latest) {
    writer.paragraph(
      `Latest run: ${latest.name}, started ${utcDateTime(latest.startedAt)}, result ${latest.result} with score ${latest.score}, ` +
        `RTO ${latest.rto ?? durationText(latest.rtoSeconds)}${latest.rtoTarget ? ` against a target of ${latest.rtoTarget}` : ''}` +
        `${latest.rpo ? `, RPO ${rpoText(latest.rpo)}` : ''}; ${latest.checksPassed} of ${latest.checksTotal} checks passed.`,
    );
  } else {
    writer.paragraph('No run completed in the period.');
  }
  writer.subheading('Recovery time');
  renderRtoTable(writer, rtoRows(data.runs));
  writer.subheading('Recovery point (RPO)');
  renderRecoveryPoint(writer, data);
  if (data.latestVolumes) {
    writer.subheading('Volume data restored');
    renderVolumeTable(writer, data.latestVolumes);
  }

  // ---------------------------------------------------------------- 4. run history
  writer.section('Run history');
  writer.paragraph(
    `All ${plural(data.runs.length, 'run')} of ${test.name} in the period, oldest first, failures included. Times are UTC; the evidence column is the start of each RestoreReport's signed digest (full values in Appendix A).`,
  );
  renderRunHistory(writer, data.runs, { showTest: false });

  // ---------------------------------------------------------------- 5. per check
  writer.section('Pass/fail breakdown per check');
  const breakdownColumns: Column<CheckBreakdownRow>[] = [
    { header: 'Check', width: 1.5, cell: (r) => ({ text: r.name, font: 'bold', sub: r.kind }) },
    ...(['pass', 'fail', 'error', 'skip'] as CheckStatus[]).map((status): Column<CheckBreakdownRow> => ({
      header: status[0]!.toUpperCase() + status.slice(1),
      width: 0.5,
      align: 'right',
      cell: (r) => ({
        text: String(r.counts[status]),
        font: r.counts[status] > 0 && status !== 'pass' && status !== 'skip' ? 'bold' : 'regular',
        color: r.counts[status] > 0 && (status === 'fail' || status === 'error') ? '#9E2A24' : COLOR.ink,
      }),
    })),
    {
      header: 'Pass rate',
      width: 0.7,
      align: 'right',
      cell: (r) => {
        const total = r.counts.pass + r.counts.fail + r.counts.error;
        return total === 0 ? '-' : percent(r.counts.pass / total);
      },
    },
    {
      header: 'Latest',
      width: 0.8,
      cell: (r) => (r.lastStatus ? { text: r.lastStatus, status: r.lastStatus } : '-'),
    },
    {
      header: 'Last failure (UTC)',
      width: 2.6,
      cell: (r) =>
        r.lastFailureAt
          ? { text: r.lastFailureMessage ?? '', sub: utcShort(r.lastFailureAt) }
          : { text: 'none in the period', color: COLOR.muted },
    },
  ];
  writer.table(breakdownColumns, checkBreakdown(data), { empty: 'No check results in the period.' });
  writer.subheading('Score levels (average over the period)', 150);
  const levelNames = Object.keys(LEVEL_TITLES) as ScoreLevelName[];
  writer.table(
    [
      { header: 'Level', width: 2, cell: (n: ScoreLevelName) => LEVEL_TITLES[n] },
      {
        header: 'Average points',
        width: 1,
        align: 'right',
        cell: (n: ScoreLevelName) => {
          const levels = data.runs.flatMap((r) => r.levels.filter((l) => l.name === n));
          if (levels.length === 0) return '-';
          const avg = levels.reduce((s, l) => s + l.points, 0) / levels.length;
          return `${avg.toFixed(1)} / ${levels[0]!.maxPoints}`;
        },
      },
      {
        header: 'Runs where not tested',
        width: 1.2,
        align: 'right',
        cell: (n: ScoreLevelName) =>
          String(data.runs.filter((r) => r.levels.some((l) => l.name === n && !l.tested)).length),
      },
    ],
    levelNames,
  );

  // ---------------------------------------------------------------- 6. failures
  writer.section('Failed and partial runs');
  const problems = data.runs.filter((r) => r.result !== 'pass');
  writer.table(
    [
      {
        header: 'Run (UTC)',
        width: 1.7,
        cell: (r: TestRunRecord) => ({ text: utcShort(r.startedAt), font: 'bold', sub: r.name }),
      },
      {
        header: 'Result',
        width: 0.75,
        cell: (r: TestRunRecord) => ({ text: r.result, status: r.result, note: `score ${r.score}` }),
      },
      {
        header: 'What failed',
        width: 4,
        cell: (r: TestRunRecord) => {
          const failed = r.checks
            .filter((c) => c.status === 'fail' || c.status === 'error')
            .map((c) => `${c.name} (${c.status}): ${c.message}`);
          return {
            text: r.failure ? `${r.failure.reason}: ${r.failure.message}` : (failed[0] ?? 'see score levels'),
            sub: failed.length > (r.failure ? 0 : 1) ? failed.slice(r.failure ? 0 : 1).join('; ') : undefined,
          };
        },
      },
    ],
    problems,
    { empty: 'None: every run in the period passed.' },
  );

  // ---------------------------------------------------------------- 7. limitations
  writer.section('Limitations');
  writer.bullets([
    'The sandbox namespaces are in the same cluster as the source: this is logical segregation (namespace and network policy), not segregated infrastructure.',
    'A measured RTO is the time of one test restore (restore request until the application was proven healthy), not a guarantee for an incident.',
    'The checks above are the depth of verification: where only default checks ran, pods and endpoints were verified, not the data.',
    `Runs are listed back to the oldest RestoreReport retained (history limit ${test.historyLimit}).`,
    ...(data.chain && data.chain.problems.length > 0
      ? data.chain.problems.map((p) => `Evidence problem: ${p}`)
      : []),
  ]);

  // ---------------------------------------------------------------- 8. attestation
  renderAttestationPage(writer, data, sealed.attestation, data.chain);

  // ---------------------------------------------------------------- appendix
  writer.section('Run evidence digests', { newPage: true, label: 'Appendix A' });
  renderDigestAppendix(writer, data.runs);

  writer.finish();
  embedEvidence(writer, sealed);
  return writer.end();
}
