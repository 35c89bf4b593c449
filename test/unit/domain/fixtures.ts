// Builders for RestoreTests and RestoreReports with fixed dates, so every expectation in the domain
// tests can be computed by hand from the few fields a table row sets.
import {
  API_VERSION,
  type RestoreReport,
  type RestoreTest,
  type RestoreTestSpec,
  type RunResult,
} from '../../../server/domain/resources/resources.js';

export interface TestOptions {
  name: string;
  namespace?: string;
  sources?: string[];
  cron?: string;
  maxRTO?: string;
  maxRPO?: string;
  alertOnExceed?: boolean;
  suspend?: boolean;
  status?: RestoreTest['status'];
  spec?: Partial<RestoreTestSpec>;
}

export function makeTest(options: TestOptions): RestoreTest {
  const spec: RestoreTestSpec = {
    provider: 'velero',
    backupSource: {
      backupName: 'latest',
      namespaces: (options.sources ?? [options.name]).map((name) => ({ name })),
    },
    schedule: {
      cron: options.cron ?? '0 2 * * *',
      timezone: 'UTC',
      ...(options.suspend ? { suspend: true } : {}),
    },
    ...(options.maxRTO !== undefined || options.maxRPO !== undefined
      ? {
          sla: {
            ...(options.maxRTO !== undefined ? { maxRTO: options.maxRTO } : {}),
            ...(options.maxRPO !== undefined ? { maxRPO: options.maxRPO } : {}),
            alertOnExceed: options.alertOnExceed ?? false,
          },
        }
      : {}),
    ...options.spec,
  };
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: { name: options.name, namespace: options.namespace ?? 'rehearsal-system' },
    spec,
    ...(options.status ? { status: options.status } : {}),
  };
}

export interface ReportOptions {
  test: string;
  testNamespace?: string;
  runId?: string;
  completedAt: string;
  score?: number;
  result?: RunResult;
  sources?: string[];
  rtoSeconds?: number;
  rtoTarget?: string;
  /** The measured RPO (a freshness check found the newest data this long before the restore request). */
  rpoSeconds?: number;
  rpoTarget?: string;
  /** A run that never requested a restore (an aborted attempt). */
  aborted?: boolean;
  failure?: { reason: string; message: string };
  /** spec.backup.age: run start − backup completion (a duration string). */
  backupAge?: string;
}

let counter = 0;

export function makeReport(options: ReportOptions): RestoreReport {
  counter += 1;
  const runId = options.runId ?? `r${String(counter).padStart(4, '0')}`;
  const namespace = options.testNamespace ?? 'rehearsal-system';
  const result = options.result ?? 'pass';
  const score = options.score ?? (result === 'pass' ? 95 : result === 'partial' ? 80 : 30);
  const failure =
    options.failure ?? (options.aborted ? { reason: 'BackupNotFound', message: 'no backup' } : undefined);
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreReport',
    metadata: { name: `${options.test}-${runId}`, namespace },
    spec: {
      testRef: { name: options.test, namespace },
      runId,
      trigger: 'schedule',
      scheduledAt: options.completedAt,
      startedAt: options.completedAt,
      completedAt: options.completedAt,
      sourceNamespaces: options.sources ?? [options.test],
      backup: { provider: 'velero', name: 'nightly', ...(options.backupAge ? { age: options.backupAge } : {}) },
      sandboxNamespaces: [],
      ...(options.aborted
        ? {}
        : {
            restore: {
              name: `${options.test}-${runId}`,
              namespace: 'velero',
              phase: 'Completed',
              warnings: 0,
              errors: 0,
            },
          }),
      score,
      result,
      levels: [],
      checks: [],
      completeness: [],
      rto: {
        ...(options.rtoSeconds !== undefined ? { measuredSeconds: options.rtoSeconds } : {}),
        ...(options.rtoTarget !== undefined ? { target: options.rtoTarget } : {}),
        phases: {},
      },
      ...(options.rpoSeconds !== undefined ? { rpo: rpoOf(options.rpoSeconds, options.rpoTarget, options.completedAt) } : {}),
      ...(failure ? { failure } : {}),
    },
  };
}

/** spec.rpo as measureRpo writes it (targets here are whole minutes or hours: "30m", "2h"). */
function rpoOf(seconds: number, target: string | undefined, restoreRequestedAt: string): NonNullable<RestoreReport['spec']['rpo']> {
  const targetSeconds = target === undefined ? undefined : Number(target.slice(0, -1)) * (target.endsWith('h') ? 3600 : 60);
  const minutes = Math.floor(seconds / 60);
  return {
    check: 'newest-order',
    newestData: new Date(Date.parse(restoreRequestedAt) - seconds * 1000).toISOString(),
    measured: `${minutes > 0 ? `${minutes}m` : ''}${seconds % 60 > 0 || minutes === 0 ? `${seconds % 60}s` : ''}`,
    measuredSeconds: seconds,
    ...(target !== undefined ? { target, withinSLA: seconds <= targetSeconds! } : {}),
  };
}

/** An instant `days` days (and optional hours) before `now`. */
export function daysBefore(now: Date, days: number, hours = 0): string {
  return new Date(now.getTime() - days * 86_400_000 - hours * 3_600_000).toISOString();
}
