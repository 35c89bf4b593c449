// The benchmark's population (test/bench/bench-data.ts) mapped field by field onto Kymaros
// v0.6.9's CRDs (group restore.kymaros.io, api/v1alpha1/restoretest_types.go and
// restorereport_types.go in its source tree), so both servers answer over the same data.
//
// RestoreTest                          → Kymaros RestoreTest
//   metadata.name                      → metadata.name (namespace: KYMAROS_NAMESPACE)
//   spec.provider                      → spec.backupSource.provider
//   spec.backupSource.backupName       → spec.backupSource.backupName
//   spec.backupSource.namespaces[].name→ spec.backupSource.namespaces[].name
//   spec.schedule.cron                 → spec.schedule.cron, minute and hour kept, day pinned to
//                                        29 February (see idleCron); timezone → timezone
//   spec.sandbox.{namespacePrefix,ttl,networkIsolation} → spec.sandbox.* (same names)
//   spec.sla.{maxRTO,alertOnExceed}    → spec.sla.* (Go durations accept "15m", "45m")
//   spec.historyLimit                  → spec.historyLimit
//   (providerNamespace, suspend: no Kymaros field; it reads the Velero namespace from its env)
// RestoreTest status                   → Kymaros status (written through the status subresource)
//   phase Completed|Failed             → Idle (Kymaros moves a finished test to Idle at once)
//   lastScore, lastResult, lastRunAt, nextRunAt → same names
//   lastReport                         → lastReportRef (the mapped report's name)
//   (observedGeneration, lastScheduleTime: no Kymaros field)
// RestoreReport                        → Kymaros RestoreReport (spec at create, status patched)
//   metadata.name                      → <test>-<completedAt as YYYYMMDD-HHMMSS> (Kymaros's names)
//   ownerReferences (the test)         → the same reference, without controller (as Kymaros writes)
//   spec.testRef.name                  → spec.testRef
//   spec.score, spec.result            → status.score, status.result (same values)
//   spec.startedAt, spec.completedAt   → status.startedAt, status.completedAt
//   spec.rto.measuredSeconds           → status.rto.measured (Go duration; 0s for a failed restore)
//   spec.rto.target, spec.rto.withinSLA→ status.rto.target, status.rto.withinSLA (false if absent)
//   spec.backup.name, spec.backup.age  → status.backup.name, status.backup.age
//   spec.checks[] {name,status,message,duration} → status.checks[] (kind has no Kymaros field)
//   spec.completeness[] per kind       → status.completeness "restored/backedUp" for deployments,
//                                        services, secrets, configMaps, pvcs (other kinds: none)
//   spec.levels[] (six levels)         → status.validationLevels: restoreIntegrity, completeness,
//                                        podStartup, internalHealth (healthChecks),
//                                        crossNamespaceDeps (crossNamespace), rtoCompliance
//                                        (rtoWithinSLA); status pass (full points), fail (none),
//                                        partial, or not_tested; detail → detail
//   (runId, trigger, scheduledAt, sourceNamespaces, sandboxNamespaces, restore, rto.phases,
//    failure, evidence, labels: no Kymaros field; podLogs/events: our data has none)
// Kymaros dates a report by metadata.creationTimestamp, which the apiserver sets at create: loaded
// data all carries the load's time, so its day-windowed views (daily, last-night counts, alerts)
// see every report as recent. The bench loads oldest first so their order is kept.
import type {
  RestoreReport,
  RestoreTest,
  RestoreTestStatus,
  ScoreLevel,
} from '../../../server/domain/resources/resources.js';

export const KYMAROS_GROUP_VERSION = 'restore.kymaros.io/v1alpha1';
export const KYMAROS_NAMESPACE = 'kymaros-bench';
export const KYMAROS_BENCH_LABEL = 'kymaros.io/bench';
/** Kymaros's finalizer (internal/controller): present on every test it has reconciled once. */
export const KYMAROS_FINALIZER = 'kymaros.io/sandbox-cleanup';

export interface KymarosTest {
  apiVersion: typeof KYMAROS_GROUP_VERSION;
  kind: 'RestoreTest';
  metadata: { name: string; namespace: string; labels: Record<string, string>; finalizers: string[] };
  spec: {
    backupSource: { provider: string; backupName: string; namespaces: { name: string }[] };
    schedule: { cron: string; timezone?: string };
    sandbox: { namespacePrefix?: string; ttl?: string; networkIsolation?: string };
    sla?: { maxRTO: string; alertOnExceed?: boolean };
    historyLimit?: number;
  };
}

export interface KymarosTestStatus {
  phase: 'Idle';
  lastRunAt?: string;
  lastScore?: number;
  lastResult?: string;
  lastReportRef?: string;
  nextRunAt?: string;
}

type LevelStatus = 'pass' | 'fail' | 'partial' | 'not_tested';
interface KymarosLevel {
  status: LevelStatus;
  detail?: string;
}

export interface KymarosReportStatus {
  score: number;
  result: string;
  startedAt: string;
  completedAt: string;
  rto: { measured: string; target?: string; withinSLA: boolean };
  backup: { name: string; age: string };
  checks: { name: string; status: string; duration?: string; message?: string }[];
  completeness: Partial<Record<'deployments' | 'services' | 'secrets' | 'configMaps' | 'pvcs', string>>;
  validationLevels: Record<
    | 'restoreIntegrity'
    | 'completeness'
    | 'podStartup'
    | 'internalHealth'
    | 'crossNamespaceDeps'
    | 'rtoCompliance',
    KymarosLevel
  >;
}

export interface KymarosReport {
  apiVersion: typeof KYMAROS_GROUP_VERSION;
  kind: 'RestoreReport';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  spec: { testRef: string };
}

/**
 * Kymaros's scheduler (reconcileIdle) starts a run when the cron's next time after lastRunAt has
 * passed, and robfig/cron's Next returns the zero time for an impossible date (`0 0 31 2 *`), which
 * is always due. A real but far-off date keeps every test idle for the whole benchmark (a daily
 * cron would start real runs — sandboxes, Velero restores — for the tests due meanwhile).
 */
export function idleCron(cron: string): string {
  const [minute = '0', hour = '0'] = cron.trim().split(/\s+/);
  return `${minute} ${hour} 29 2 *`;
}

/** Go's time.Duration.String() for whole seconds: 0s, 45s, 5m0s, 1h2m3s. */
export function goDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h) return `${h}h${m}m${rest}s`;
  if (m) return `${m}m${rest}s`;
  return `${rest}s`;
}

/** Kymaros names a report after its test and the run's completion time (UTC, to the second). */
export function kymarosReportName(testName: string, completedAt: string): string {
  const compact = completedAt.replace(/[-:]/g, '').replace(/\.\d+Z$|Z$/, '');
  return `${testName}-${compact.replace('T', '-')}`;
}

export function mapTest(test: RestoreTest): KymarosTest {
  const { spec } = test;
  return {
    apiVersion: KYMAROS_GROUP_VERSION,
    kind: 'RestoreTest',
    metadata: {
      name: test.metadata.name!,
      namespace: KYMAROS_NAMESPACE,
      labels: { [KYMAROS_BENCH_LABEL]: 'true' },
      finalizers: [KYMAROS_FINALIZER],
    },
    spec: {
      backupSource: {
        provider: spec.provider,
        backupName: spec.backupSource.backupName ?? 'latest',
        namespaces: spec.backupSource.namespaces.map(({ name }) => ({ name })),
      },
      schedule: {
        cron: idleCron(spec.schedule.cron ?? '0 0 * * *'),
        ...(spec.schedule.timezone ? { timezone: spec.schedule.timezone } : {}),
      },
      sandbox: {
        ...(spec.sandbox?.namespacePrefix ? { namespacePrefix: spec.sandbox.namespacePrefix } : {}),
        ...(spec.sandbox?.ttl ? { ttl: spec.sandbox.ttl } : {}),
        ...(spec.sandbox?.networkIsolation ? { networkIsolation: spec.sandbox.networkIsolation } : {}),
      },
      ...(spec.sla?.maxRTO
        ? { sla: { maxRTO: spec.sla.maxRTO, alertOnExceed: spec.sla.alertOnExceed ?? false } }
        : {}),
      ...(spec.historyLimit !== undefined ? { historyLimit: spec.historyLimit } : {}),
    },
  };
}

export function mapTestStatus(status: RestoreTestStatus, lastReportRef?: string): KymarosTestStatus {
  return {
    phase: 'Idle',
    ...(status.lastRunAt ? { lastRunAt: status.lastRunAt } : {}),
    ...(status.lastScore !== undefined ? { lastScore: status.lastScore } : {}),
    ...(status.lastResult ? { lastResult: status.lastResult } : {}),
    ...(lastReportRef ? { lastReportRef } : {}),
    ...(status.nextRunAt ? { nextRunAt: status.nextRunAt } : {}),
  };
}

export function mapReport(report: RestoreReport, ownerUid: string): KymarosReport {
  const testName = report.spec.testRef.name;
  return {
    apiVersion: KYMAROS_GROUP_VERSION,
    kind: 'RestoreReport',
    metadata: {
      name: kymarosReportName(testName, report.spec.completedAt),
      namespace: KYMAROS_NAMESPACE,
      labels: { [KYMAROS_BENCH_LABEL]: 'true' },
      ownerReferences: [
        { apiVersion: KYMAROS_GROUP_VERSION, kind: 'RestoreTest', name: testName, uid: ownerUid },
      ],
    },
    spec: { testRef: testName },
  };
}

const LEVELS: Record<ScoreLevel['name'], keyof KymarosReportStatus['validationLevels']> = {
  restoreIntegrity: 'restoreIntegrity',
  completeness: 'completeness',
  podStartup: 'podStartup',
  healthChecks: 'internalHealth',
  crossNamespace: 'crossNamespaceDeps',
  rtoWithinSLA: 'rtoCompliance',
};

const COMPLETENESS: Record<string, keyof KymarosReportStatus['completeness']> = {
  Deployment: 'deployments',
  Service: 'services',
  Secret: 'secrets',
  ConfigMap: 'configMaps',
  PersistentVolumeClaim: 'pvcs',
};

function levelStatus(level: ScoreLevel): LevelStatus {
  if (!level.tested) return 'not_tested';
  if (level.points >= level.maxPoints) return 'pass';
  return level.points === 0 ? 'fail' : 'partial';
}

export function mapReportStatus(report: RestoreReport): KymarosReportStatus {
  const { spec } = report;
  const validationLevels = Object.fromEntries(
    Object.values(LEVELS).map((name) => [name, { status: 'not_tested' } as KymarosLevel]),
  ) as KymarosReportStatus['validationLevels'];
  for (const level of spec.levels) {
    validationLevels[LEVELS[level.name]] = { status: levelStatus(level), detail: level.detail };
  }
  const completeness: KymarosReportStatus['completeness'] = {};
  for (const entry of spec.completeness) {
    const field = COMPLETENESS[entry.kind];
    if (field) completeness[field] = `${entry.restored}/${entry.backedUp}`;
  }
  return {
    score: spec.score,
    result: spec.result,
    startedAt: spec.startedAt,
    completedAt: spec.completedAt,
    rto: {
      measured: goDuration(spec.rto.measuredSeconds ?? 0),
      ...(spec.rto.target ? { target: spec.rto.target } : {}),
      withinSLA: spec.rto.withinSLA ?? false,
    },
    backup: { name: spec.backup.name, age: spec.backup.age ?? '' },
    checks: spec.checks.map(({ name, status, message, duration }) => ({ name, status, message, duration })),
    completeness,
    validationLevels,
  };
}
