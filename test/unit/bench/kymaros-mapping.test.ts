// The field-by-field mapping of bench:peer (test/bench/peer/kymaros-mapping.ts): Kymaros must see
// the same tests and runs as Rehearsal does, so the values its read API aggregates (score, result,
// RTO, timestamps, test status) are carried over unchanged for a whole generated population, and
// the scheduler-facing fields keep every test idle.
import { describe, expect, it } from '@jest/globals';
import { restoreReport, restoreTest, testShape, testStatus } from '../../bench/bench-data.js';
import {
  KYMAROS_FINALIZER,
  KYMAROS_NAMESPACE,
  goDuration,
  idleCron,
  kymarosReportName,
  mapReport,
  mapReportStatus,
  mapTest,
  mapTestStatus,
} from '../../bench/peer/kymaros-mapping.js';

const NOW = Date.parse('2026-11-25T17:00:00Z');
const TESTS = 100;
const DAYS = 7;

/** Go's time.ParseDuration for the forms goDuration writes (h, m, s). */
function parseGoDuration(text: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') throw new Error(`not a Go duration: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

describe('bench:peer mapping onto Kymaros v0.6.9 CRDs', () => {
  it('writes Go durations that read back to the same seconds', () => {
    for (const seconds of [0, 1, 59, 60, 61, 300, 2399, 3600, 3661, 86_399]) {
      expect(parseGoDuration(goDuration(seconds))).toBe(seconds);
    }
    expect(goDuration(3723)).toBe('1h2m3s');
    expect(goDuration(300)).toBe('5m0s');
  });

  it('pins the cron to a real far-off date with the same minute and hour', () => {
    expect(idleCron('17 3 * * *')).toBe('17 3 29 2 *');
    for (let index = 0; index < TESTS; index += 1) {
      const shape = testShape(index, TESTS);
      const [minute, hour] = shape.cron.split(' ');
      expect(mapTest(restoreTest(shape)).spec.schedule.cron).toBe(`${minute} ${hour} 29 2 *`);
    }
  });

  it('carries each test over field by field, idle and already finalized', () => {
    for (let index = 0; index < TESTS; index += 1) {
      const shape = testShape(index, TESTS);
      const ours = restoreTest(shape);
      const theirs = mapTest(ours);
      expect(theirs.metadata).toMatchObject({ name: shape.name, namespace: KYMAROS_NAMESPACE });
      expect(theirs.metadata.finalizers).toEqual([KYMAROS_FINALIZER]);
      expect(theirs.spec.backupSource.namespaces.map((ns) => ns.name)).toEqual(shape.sources);
      expect(theirs.spec.backupSource.provider).toBe('velero');
      expect(theirs.spec.historyLimit).toBe(ours.spec.historyLimit);
      expect(theirs.spec.sla?.maxRTO).toBe(ours.spec.sla?.maxRTO);
      if (theirs.spec.sla) expect(parseGoDuration(theirs.spec.sla.maxRTO)).toBe(shape.maxRtoSeconds);
      const status = testStatus(shape, NOW);
      const mapped = mapTestStatus(status, 'r');
      expect(mapped).toEqual({
        phase: 'Idle',
        lastRunAt: status.lastRunAt,
        lastScore: status.lastScore,
        lastResult: status.lastResult,
        lastReportRef: 'r',
        nextRunAt: status.nextRunAt,
      });
    }
  });

  it('carries every run over with its score, result, times, RTO and checks, under unique names', () => {
    const names = new Set<string>();
    for (let index = 0; index < TESTS; index += 1) {
      const shape = testShape(index, TESTS);
      for (let run = 0; run < DAYS; run += 1) {
        const ours = restoreReport(shape, run, NOW, { uid: `uid-${index}` });
        const report = mapReport(ours, `uid-${index}`);
        const status = mapReportStatus(ours);
        names.add(report.metadata.name);
        expect(report.spec.testRef).toBe(shape.name);
        expect(report.metadata.ownerReferences).toEqual([
          {
            apiVersion: 'restore.kymaros.io/v1alpha1',
            kind: 'RestoreTest',
            name: shape.name,
            uid: `uid-${index}`,
          },
        ]);
        expect(report.metadata.name).toMatch(new RegExp(`^${shape.name}-\\d{8}-\\d{6}$`));
        expect({ score: status.score, result: status.result }).toEqual({
          score: ours.spec.score,
          result: ours.spec.result,
        });
        expect([status.startedAt, status.completedAt]).toEqual([ours.spec.startedAt, ours.spec.completedAt]);
        expect(parseGoDuration(status.rto.measured)).toBe(ours.spec.rto.measuredSeconds ?? 0);
        expect(status.rto.withinSLA).toBe(ours.spec.rto.withinSLA === true);
        expect(status.rto.target).toBe(ours.spec.rto.target);
        expect(status.backup).toEqual({ name: ours.spec.backup.name, age: ours.spec.backup.age });
        expect(status.checks.map((check) => [check.name, check.status])).toEqual(
          ours.spec.checks.map((check) => [check.name, check.status]),
        );
        // Six levels each way; a level with every point passes, one with none fails.
        const levels = Object.values(status.validationLevels);
        expect(levels).toHaveLength(6);
        const full = ours.spec.levels.filter(
          (level) => level.tested && level.points === level.maxPoints,
        ).length;
        expect(levels.filter((level) => level.status === 'pass')).toHaveLength(full);
        const deployments = ours.spec.completeness.find((entry) => entry.kind === 'Deployment')!;
        expect(status.completeness.deployments).toBe(`${deployments.restored}/${deployments.backedUp}`);
      }
    }
    expect(names.size).toBe(TESTS * DAYS);
  });

  it('names a report as Kymaros does: test and completion time to the second', () => {
    expect(kymarosReportName('app-0001-nightly', '2026-11-24T03:17:09Z')).toBe(
      'app-0001-nightly-20261124-031709',
    );
    expect(kymarosReportName('a', '2026-01-02T03:04:05.678Z')).toBe('a-20260102-030405');
  });
});
