// bench:footprint's reports: built and signed by the engine's own code (reportObject of the report
// writer, buildReportSpec, withEvidence chained per test with sequences), from run facts shaped like
// a real run of bench-data's tests (a restore of 31 objects, 6 Pods, three checks; some runs fail).
// Only the facts are made up; the report's shape is whatever the writer makes of them.
import { reportObject, type ReportFacts } from '../../server/engine/run/report-writer.js';
import type { CheckResult, CurrentRun, RestoreReport, RestoreTest } from '../../server/domain/resources/resources.js';
import { withEvidence } from '../../server/evidence/evidence.js';
import type { SigningKey } from '../../server/evidence/signing-key.js';
import { runId, type BenchTestShape } from './bench-data.js';

const DAY = 86_400_000;

function unit(a: number, b: number, salt: number): number {
  let h = Math.imul(a + 1, 0x9e3779b1) ^ Math.imul(b + 7, 0x85ebca77) ^ Math.imul(salt + 13, 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The run facts of run `run` (0 = oldest) of a test, as the run reconciler would hand them over. */
export function runFacts(
  shape: BenchTestShape,
  run: number,
  start: number,
): { run: CurrentRun; facts: ReportFacts; completedAt: Date } {
  const scheduled = start + run * DAY + shape.minuteOfDay * 60_000;
  const id = runId(shape, run);
  const requested = scheduled + 6_000;
  const rto = Math.round(300 + unit(shape.index, run, 3) * 2100);
  const roll = unit(shape.index, run, 2);
  const restoreFailed = roll < shape.failRate / 2;
  const checkFailed = !restoreFailed && roll < shape.failRate;
  const checks: CheckResult[] = restoreFailed
    ? []
    : [
        { name: 'all-pods-ready', kind: 'podsReady', status: 'pass', message: '6 of 6 Pods Ready', duration: '1s' },
        {
          name: 'api-health',
          kind: 'httpGet',
          status: checkFailed ? 'fail' : 'pass',
          message: checkFailed ? 'HTTP 503 after 20 attempts' : 'HTTP 200 after 3 attempts, body matched',
          duration: checkFailed ? '5m0s' : '12s',
        },
        { name: 'postgres-port', kind: 'tcpSocket', status: 'pass', message: 'connected', duration: '0s' },
      ];
  const current: CurrentRun = {
    id,
    trigger: 'schedule',
    scheduledAt: iso(scheduled),
    queuedAt: iso(scheduled),
    startedAt: iso(scheduled + 2_000),
    stage: 'Finalizing',
    sandboxNamespaces: shape.sources.map((source) => ({ source, sandbox: `rehearsal-${source}-${id}` })),
    backup: { name: `${shape.sources[0]}-daily-${iso(scheduled - 3 * 3600_000).slice(0, 10).replaceAll('-', '')}`, completedAt: iso(scheduled - 3 * 3600_000 + 600_000), totalItems: 31 },
    restore: { namespace: 'velero', name: `${shape.name}-${id}` },
    restoreRequestedAt: iso(requested),
    ...(restoreFailed
      ? {}
      : {
          restoreCompletedAt: iso(requested + Math.floor(rto * 0.6) * 1000),
          podsReadyAt: iso(requested + Math.floor(rto * 0.8) * 1000),
        }),
  };
  const facts: ReportFacts = restoreFailed
    ? {
        restore: { phase: 'Failed', succeeded: false, partiallyFailed: false, warnings: 0, errors: 3, itemsRestored: 0, totalItems: 31 },
        checks: [],
        failure: { reason: 'RestoreFailed', message: 'Velero restore finished in phase Failed with 3 errors' },
      }
    : {
        restore: { phase: 'Completed', succeeded: true, partiallyFailed: false, warnings: 0, errors: 0, itemsRestored: 31, totalItems: 31 },
        pods: { expected: 6, ready: 6 },
        checks,
        checksCompletedAt: new Date(requested + rto * 1000),
      };
  return { run: current, facts, completedAt: new Date(requested + rto * 1000 + 3_000) };
}

/** Signs reports of one test in run order, each chained to the one before (as ReportSigner does). */
export class ChainSigner {
  private previous: { digest: string; sequence: number } | undefined;
  constructor(private readonly key: SigningKey) {}

  next(test: RestoreTest, shape: BenchTestShape, run: number, start: number): RestoreReport {
    const { run: current, facts, completedAt } = runFacts(shape, run, start);
    const unsigned = reportObject(test, current, facts, completedAt);
    const sequence = (this.previous?.sequence ?? 0) + 1;
    const signed = withEvidence(unsigned, this.previous?.digest, this.key, sequence);
    this.previous = { digest: signed.spec.evidence!.digest, sequence };
    return signed;
  }
}
