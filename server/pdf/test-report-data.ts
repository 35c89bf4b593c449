// TestReportData (the input of the per-test PDF) from the resources: the RestoreTest with the
// defaults of decision 0003 made explicit, its HealthCheckPolicy, and its runs of the period as
// RunRecords, oldest first, and the volumes the latest run restored. Pure mapping.
import type { HealthCheckPolicy, RestoreReport, RestoreTest } from '../domain/resources/resources.js';
import { resolveSubset } from '../domain/run/restore-subset.js';
import { scheduleSummary } from '../domain/run/schedule-summary.js';
import { parseDuration } from './format.js';
import {
  plainJson,
  type ChainSummary,
  type ReportIdentity,
  type TestDefinition,
  type RunRecord,
  type TestReportData,
  type TestRunRecord,
} from './report-data.js';

/** A RunRecord from a RestoreReport. `verified` is that report's verifyReportChain outcome. */
export function runRecordFromReport(report: RestoreReport, verified?: boolean): RunRecord {
  const s = report.spec;
  const record: RunRecord = {
    name: report.metadata.name,
    test: s.testRef.name,
    testNamespace: s.testRef.namespace,
    runId: s.runId,
    trigger: s.trigger,
    sourceNamespaces: [...s.sourceNamespaces],
    provider: s.backup.provider,
    backupName: s.backup.name,
    ...(s.backup.selection
      ? { backupChoice: s.backup.selection.fallback ? 'fallback' : `#${s.backup.selection.chosen ?? '?'} of ${s.backup.selection.candidates}` }
      : {}),
    backupCompletedAt: s.backup.completedAt,
    backupAge: s.backup.age,
    scheduledAt: s.scheduledAt,
    startedAt: s.startedAt,
    completedAt: s.completedAt,
    result: s.result,
    score: s.score,
    rto: s.rto.measured,
    rtoSeconds: s.rto.measuredSeconds ?? parseDuration(s.rto.measured),
    rtoTarget: s.rto.target,
    withinSLA: s.rto.withinSLA,
    checksPassed: s.checks.filter((c) => c.status === 'pass').length,
    checksTotal: s.checks.length,
    failure: s.failure,
    evidenceDigest: s.evidence?.digest,
    evidenceVerified: verified,
  };
  return plainJson(record);
}

export interface TestReportInput extends ReportIdentity {
  test: RestoreTest;
  /** The HealthCheckPolicy the test names, when it names one. */
  policy?: HealthCheckPolicy;
  /** The test's reports in the period (any order). */
  reports: RestoreReport[];
  /** report name → verified, from verifyReportChain. */
  verified?: ReadonlyMap<string, boolean>;
  chain?: ChainSummary;
}

/** The restored subset as the test states it, or undefined when it restores the whole namespaces. */
function subsetOf(backupSource: RestoreTest['spec']['backupSource']): TestDefinition['backupSource']['subset'] {
  const resolved = resolveSubset(backupSource);
  if (!resolved) return undefined;
  return {
    ...(resolved.labelSelector ? { labelSelector: resolved.labelSelector } : {}),
    ...(backupSource.includedResources?.length ? { includedResources: backupSource.includedResources } : {}),
  };
}

/** Oldest first; the name breaks a tie. */
function byStart(a: RestoreReport, b: RestoreReport): number {
  return a.spec.startedAt.localeCompare(b.spec.startedAt) || a.metadata.name.localeCompare(b.metadata.name);
}

/** TestReportData from the resources, with the defaults of decision 0003 made explicit. */
export function buildTestReportData(input: TestReportInput): TestReportData {
  const { test, policy } = input;
  const spec = test.spec;
  const inline = spec.healthChecks?.checks ?? [];
  const healthChecks: TestReportData['healthChecks'] = spec.healthCheckPolicy
    ? {
        source: 'policy',
        policyName: spec.healthCheckPolicy,
        description: policy?.spec.description,
        checks: policy?.spec.checks ?? [],
      }
    : inline.length > 0
      ? { source: 'inline', checks: inline }
      : { source: 'default', checks: [] };
  const subset = subsetOf(spec.backupSource);
  const sorted = [...input.reports].sort(byStart);
  const latest = sorted.at(-1);
  const runs = sorted.map((r): TestRunRecord => ({
      ...runRecordFromReport(r, input.verified?.get(r.metadata.name)),
      checks: r.spec.checks,
      levels: r.spec.levels,
      ...(r.spec.rpo ? { rpo: r.spec.rpo } : {}),
    }));
  return plainJson({
    kind: 'test',
    reportId: input.reportId,
    generatedAt: input.generatedAt,
    productVersion: input.productVersion,
    cluster: input.cluster,
    period: input.period,
    test: {
      name: test.metadata.name,
      namespace: test.metadata.namespace ?? '',
      uid: test.metadata.uid,
      provider: spec.provider,
      schedule: {
        cron: scheduleSummary(spec.schedule),
        timezone: spec.schedule.timezone ?? 'UTC',
        suspend: spec.schedule.suspend ?? false,
      },
      backupSource: {
        backupName: spec.backupSource.backupName || 'latest',
        namespaces: spec.backupSource.namespaces.map((n) => n.name),
        providerNamespace: spec.backupSource.providerNamespace,
        ...(spec.backupSource.select?.strategy === 'randomWithin' ? { randomWithin: spec.backupSource.select.within } : {}),
        ...(subset ? { subset } : {}),
      },
      sandbox: {
        namespacePrefix: spec.sandbox?.namespacePrefix ?? 'rehearsal',
        ttl: spec.sandbox?.ttl ?? '1h',
        networkIsolation: spec.sandbox?.networkIsolation ?? 'strict',
        resourceQuota: spec.sandbox?.resourceQuota?.hard,
      },
      sla: { maxRTO: spec.sla?.maxRTO, maxRPO: spec.sla?.maxRPO, alertOnExceed: spec.sla?.alertOnExceed ?? false },
      historyLimit: spec.historyLimit ?? 90,
    },
    healthChecks,
    runs,
    ...(latest?.spec.volumes?.length ? { latestVolumes: { run: latest.metadata.name, volumes: latest.spec.volumes } } : {}),
    chain: input.chain,
  } satisfies TestReportData);
}
