// The benchmark's population: N RestoreTests in one namespace, each with one run a day for D days
// (defaults 1,000 × 90 = 90,000 RestoreReports), shaped like crds/samples/restorereport-pass.yaml.
// Deterministic (a hash of test and run number decides results, scores and durations), so two
// loads of the same size are the same data, relative to the `now` they were built for.
import { createHash } from 'node:crypto';
import type {
  CheckResult,
  RestoreReport,
  RestoreTest,
  RestoreTestStatus,
  RunResult,
  ScoreLevel,
} from '../../server/domain/resources/resources.js';

export const BENCH_NAMESPACE = 'rehearsal-bench';
export const BENCH_LABEL = 'rehearsal.dev/bench';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A stable pseudo-random number in [0, 1) for (test, run, salt). */
function unit(test: number, run: number, salt: number): number {
  let h = Math.imul(test + 1, 0x9e3779b1) ^ Math.imul(run + 7, 0x85ebca77) ^ Math.imul(salt + 13, 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function seconds(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = Math.floor(total % 60);
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}

export interface BenchTestShape {
  index: number;
  name: string;
  sources: string[];
  /** Minutes after 00:00 UTC of the daily run. */
  minuteOfDay: number;
  cron: string;
  maxRtoSeconds: number | null;
  alertOnExceed: boolean;
  /** Share of runs that fail (a few tests are flaky). */
  failRate: number;
}

export function testShape(index: number, testCount: number): BenchTestShape {
  const minuteOfDay = Math.floor((index * 1440) / testCount) % 1440;
  const app = `app-${pad(index, 4)}`;
  const withSla = unit(index, -1, 1) < 0.7;
  return {
    index,
    name: `${app}-nightly`,
    sources: index % 3 === 0 ? [app, `${app}-db`] : [app],
    minuteOfDay,
    cron: `${minuteOfDay % 60} ${Math.floor(minuteOfDay / 60)} * * *`,
    maxRtoSeconds: withSla ? [900, 1200, 1800, 2700][index % 4]! : null,
    alertOnExceed: withSla && index % 2 === 0,
    failRate: index % 25 === 0 ? 0.3 : 0.03,
  };
}

export function restoreTest(shape: BenchTestShape): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name: shape.name, namespace: BENCH_NAMESPACE, labels: { [BENCH_LABEL]: 'true' } },
    spec: {
      provider: 'velero',
      backupSource: {
        backupName: 'latest',
        namespaces: shape.sources.map((name) => ({ name })),
        providerNamespace: 'velero',
      },
      schedule: { cron: shape.cron, timezone: 'UTC', suspend: false },
      sandbox: { namespacePrefix: 'rehearsal', ttl: '1h', networkIsolation: 'strict' },
      ...(shape.maxRtoSeconds !== null
        ? { sla: { maxRTO: seconds(shape.maxRtoSeconds), alertOnExceed: shape.alertOnExceed } }
        : {}),
      historyLimit: 90,
    },
  };
}

/** The scheduled instant of run `run` (0 = newest) of a test whose newest run has completed by `now`. */
function scheduledAt(shape: BenchTestShape, run: number, now: number): number {
  const today = Math.floor(now / DAY) * DAY + shape.minuteOfDay * MINUTE;
  // The newest run must be complete (its longest duration is under an hour) and not in the future.
  const newest = today + 60 * MINUTE <= now ? today : today - DAY;
  return newest - run * DAY;
}

interface RunOutcome {
  result: RunResult;
  score: number;
  failed: boolean;
  rtoSeconds: number;
  durationSeconds: number;
}

function outcome(shape: BenchTestShape, run: number): RunOutcome {
  const roll = unit(shape.index, run, 2);
  const rtoSeconds = Math.round(300 + unit(shape.index, run, 3) * 2100);
  if (roll < shape.failRate) {
    const failed = unit(shape.index, run, 4) < 0.5; // half could not even finish the restore
    return {
      result: 'fail',
      score: failed ? 0 : 35 + Math.floor(unit(shape.index, run, 5) * 30),
      failed,
      rtoSeconds,
      durationSeconds: rtoSeconds + 30,
    };
  }
  if (roll < shape.failRate + 0.06) {
    return {
      result: 'partial',
      score: 70 + Math.floor(unit(shape.index, run, 5) * 20),
      failed: false,
      rtoSeconds,
      durationSeconds: rtoSeconds + 30,
    };
  }
  return {
    result: 'pass',
    score: 90 + Math.floor(unit(shape.index, run, 5) * 11),
    failed: false,
    rtoSeconds,
    durationSeconds: rtoSeconds + 30,
  };
}

export function runId(shape: BenchTestShape, run: number): string {
  return (shape.index * 1000 + run).toString(36).padStart(6, '0');
}

export function reportName(shape: BenchTestShape, run: number): string {
  return `${shape.name}-${runId(shape, run)}`;
}

/** The (illustrative) evidence digest of a loaded run; each links to the one of the run before. */
export function digestOf(shape: BenchTestShape, run: number): string {
  return `sha256:${createHash('sha256').update(`${shape.name}/${run}`).digest('hex')}`;
}

function levels(shape: BenchTestShape, o: RunOutcome, within: boolean | null): ScoreLevel[] {
  // Points that add up to the score: take what is missing from the score off the later levels.
  const max: [ScoreLevel['name'], number, string][] = [
    ['restoreIntegrity', 25, 'Restore Completed, 0 errors, 0 warnings'],
    ['completeness', 20, '31 of 31 objects restored'],
    ['podStartup', 20, '6 of 6 Pods Ready after 1m52s'],
    ['healthChecks', 20, '3 of 3 checks passed'],
    ['crossNamespace', 10, 'no references to namespaces outside the restore'],
    [
      'rtoWithinSLA',
      5,
      within === null ? 'no RTO target' : within ? 'RTO within target' : 'RTO exceeded target',
    ],
  ];
  let missing = 100 - o.score;
  return max
    .slice()
    .reverse()
    .map(([name, maxPoints, detail]) => {
      const taken = Math.min(missing, maxPoints);
      missing -= taken;
      return {
        name,
        points: maxPoints - taken,
        maxPoints,
        tested: !o.failed || name === 'restoreIntegrity',
        detail,
      };
    })
    .reverse();
}

function checks(o: RunOutcome): CheckResult[] {
  const failing = o.result === 'fail' && !o.failed;
  return [
    {
      name: 'all-pods-ready',
      kind: 'podsReady',
      status: 'pass',
      message: '6 of 6 Pods Ready',
      duration: '1s',
    },
    {
      name: 'api-health',
      kind: 'httpGet',
      status: failing ? 'fail' : 'pass',
      message: failing ? 'HTTP 503 after 20 attempts' : 'HTTP 200 after 3 attempts, body matched',
      duration: failing ? '5m0s' : '12s',
    },
    { name: 'postgres-port', kind: 'tcpSocket', status: 'pass', message: 'connected', duration: '0s' },
  ];
}

export function restoreReport(
  shape: BenchTestShape,
  run: number,
  now: number,
  owner: { uid: string },
): RestoreReport {
  const o = outcome(shape, run);
  const scheduled = scheduledAt(shape, run, now);
  const started = scheduled + 2_000;
  const requested = started + 4_000;
  const completed = started + o.durationSeconds * 1000;
  const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const within = shape.maxRtoSeconds === null ? null : o.rtoSeconds <= shape.maxRtoSeconds;
  const id = runId(shape, run);
  const name = reportName(shape, run);
  const report: RestoreReport = {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreReport',
    // As the engine's report writer stores a report (engine/run/report-writer.ts reportObject): no
    // labels and no ownerReference (issue 17, footprint); the test is spec.testRef.
    metadata: { name, namespace: BENCH_NAMESPACE },
    spec: {
      testRef: { name: shape.name, namespace: BENCH_NAMESPACE, uid: owner.uid },
      runId: id,
      trigger: 'schedule',
      scheduledAt: iso(scheduled),
      startedAt: iso(started),
      completedAt: iso(completed),
      sourceNamespaces: shape.sources,
      backup: {
        provider: 'velero',
        name: `${shape.sources[0]}-daily-${new Date(scheduled - 3 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '')}`,
        completedAt: iso(scheduled - 3 * 3600_000 + 600_000),
        age: '2h50m2s',
      },
      sandboxNamespaces: shape.sources.map((source) => `rehearsal-${source}-${id}`),
      restore: o.failed
        ? { name, namespace: 'velero', phase: 'Failed', warnings: 0, errors: 3, itemsRestored: 0 }
        : { name, namespace: 'velero', phase: 'Completed', warnings: 0, errors: 0, itemsRestored: 31 },
      score: o.score,
      result: o.result,
      levels: levels(shape, o, within),
      checks: o.failed ? [] : checks(o),
      completeness: [
        { kind: 'Deployment', backedUp: 3, restored: o.failed ? 0 : 3 },
        { kind: 'Service', backedUp: 4, restored: o.failed ? 0 : 4 },
        { kind: 'ConfigMap', backedUp: 6, restored: o.failed ? 0 : 6 },
        { kind: 'Secret', backedUp: 8, restored: o.failed ? 0 : 8 },
        { kind: 'PersistentVolumeClaim', backedUp: 2, restored: o.failed ? 0 : 2 },
        { kind: 'ServiceAccount', backedUp: 8, restored: o.failed ? 0 : 8 },
      ],
      rto: o.failed
        ? {
            ...(shape.maxRtoSeconds !== null ? { target: seconds(shape.maxRtoSeconds) } : {}),
            phases: { restoreRequestedAt: iso(requested) },
          }
        : {
            measured: seconds(o.rtoSeconds),
            measuredSeconds: o.rtoSeconds,
            ...(shape.maxRtoSeconds !== null
              ? { target: seconds(shape.maxRtoSeconds), withinSLA: within === true }
              : {}),
            phases: {
              restoreRequestedAt: iso(requested),
              restoreCompletedAt: iso(requested + Math.floor(o.rtoSeconds * 0.6) * 1000),
              podsReadyAt: iso(requested + Math.floor(o.rtoSeconds * 0.8) * 1000),
              checksCompletedAt: iso(requested + o.rtoSeconds * 1000),
            },
          },
      ...(o.failed
        ? {
            failure: {
              reason: 'RestoreFailed',
              message: 'Velero restore finished in phase Failed with 3 errors',
            },
          }
        : {}),
      evidence: {
        digest: digestOf(shape, run),
        ...(run < 89 ? { previousDigest: digestOf(shape, run + 1) } : {}),
        signature: createHash('sha512').update(`${shape.name}/${run}/sig`).digest('base64url'),
        keyId: 'rehearsal-2025-01',
        algorithm: 'Ed25519',
        canonicalization: 'RFC8785',
      },
    },
  };
  return report;
}

/** The status an engine would have written after the newest run. */
export function testStatus(shape: BenchTestShape, now: number): RestoreTestStatus {
  const o = outcome(shape, 0);
  const scheduled = scheduledAt(shape, 0, now);
  const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    observedGeneration: 1,
    phase: o.result === 'fail' ? 'Failed' : 'Completed',
    lastScore: o.score,
    lastResult: o.result,
    lastRunAt: iso(scheduled + 2_000 + o.durationSeconds * 1000),
    lastReport: reportName(shape, 0),
    lastScheduleTime: iso(scheduled),
    nextRunAt: iso(scheduled + DAY),
  };
}
