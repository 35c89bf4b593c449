import { describe, expect, it } from '@jest/globals';
import { buildReportSpec, type RunObservations } from '../../../server/domain/run/report-builder.js';
import type { CurrentRun, RestoreTest } from '../../../server/domain/resources/resources.js';

const test: RestoreTest = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreTest',
  metadata: { name: 'payments', namespace: 'team-a', uid: 'uid-1' },
  spec: {
    provider: 'velero',
    backupSource: { namespaces: [{ name: 'payments' }] },
    schedule: { cron: '@daily' },
    sla: { maxRTO: '10m' },
  },
};

const run: CurrentRun = {
  id: 'ab12c',
  trigger: 'schedule',
  scheduledAt: '2026-11-22T02:00:00.000Z',
  queuedAt: '2026-11-22T02:00:00.100Z',
  startedAt: '2026-11-22T02:00:00.200Z',
  stage: 'Validating',
  sandboxNamespaces: [{ source: 'payments', sandbox: 'rehearsal-payments-ab12c' }],
  backup: { name: 'nightly', completedAt: '2026-11-21T23:00:00Z', totalItems: 40 },
  restore: { namespace: 'velero', name: 'payments-ab12c' },
  restoreRequestedAt: '2026-11-22T02:00:01.000Z',
  restoreCompletedAt: '2026-11-22T02:03:00.000Z',
  podsReadyAt: '2026-11-22T02:05:00.000Z',
};

function observe(overrides: Partial<RunObservations> = {}): RunObservations {
  return {
    test,
    run,
    completedAt: new Date('2026-11-22T02:06:00.000Z'),
    restore: {
      phase: 'Completed',
      succeeded: true,
      partiallyFailed: false,
      warnings: 0,
      errors: 0,
      itemsRestored: 40,
      totalItems: 40,
    },
    pods: { expected: 3, ready: 3 },
    checks: [{ name: 'http', kind: 'httpGet', status: 'pass', message: 'HTTP 200', duration: '0.1s' }],
    checksCompletedAt: new Date('2026-11-22T02:05:41.000Z'),
    dependencies: [],
    ...overrides,
  };
}

describe('buildReportSpec', () => {
  it('measures the RTO from the restore request to the end of validation', () => {
    const spec = buildReportSpec(observe(), 'velero');
    expect(spec.rto).toEqual({
      measured: '5m40s',
      measuredSeconds: 340,
      target: '10m',
      withinSLA: true,
      phases: {
        restoreRequestedAt: run.restoreRequestedAt,
        restoreCompletedAt: run.restoreCompletedAt,
        podsReadyAt: run.podsReadyAt,
        checksCompletedAt: '2026-11-22T02:05:41.000Z',
      },
    });
    // Backup age = run start - backup completion.
    expect(spec.backup).toEqual({
      provider: 'velero',
      name: 'nightly',
      completedAt: '2026-11-21T23:00:00Z',
      age: '3h',
    });
    expect(spec.score).toBe(100);
    expect(spec.result).toBe('pass');
    expect(spec.completeness).toEqual([{ kind: 'all', backedUp: 40, restored: 40 }]);
  });

  it('flags an RTO over the target and takes points off', () => {
    const spec = buildReportSpec(
      observe({ checksCompletedAt: new Date('2026-11-22T02:20:01.000Z') }),
      'velero',
    );
    expect(spec.rto.measuredSeconds).toBe(1200);
    expect(spec.rto.withinSLA).toBe(false);
    expect(spec.levels.find((level) => level.name === 'rtoWithinSLA')!.points).toBe(2); // floor(5 * 600/1200)
  });

  it('scores a failed restore as untested and fail, with no measured RTO', () => {
    const spec = buildReportSpec(
      observe({
        restore: { phase: 'Failed', succeeded: false, partiallyFailed: false, warnings: 0, errors: 3 },
        pods: undefined,
        checks: [],
        checksCompletedAt: undefined,
        failure: { reason: 'RestoreFailed', message: 'the restore ended Failed' },
      }),
      'velero',
    );
    expect(spec.result).toBe('fail');
    expect(spec.score).toBe(0);
    expect(spec.levels.every((level) => !level.tested && level.points === 0)).toBe(true);
    expect(spec.rto.measuredSeconds).toBeUndefined();
    expect(spec.rto.withinSLA).toBeUndefined();
    expect(spec.restore?.phase).toBe('Failed');
    expect(spec.failure?.reason).toBe('RestoreFailed');
  });

  it('never passes a run that failed after its restore (TTL exceeded during checks)', () => {
    const spec = buildReportSpec(observe({ failure: { reason: 'TTLExceeded', message: 'ttl' } }), 'velero');
    expect(spec.result).toBe('fail');
    expect(spec.rto.measuredSeconds).toBeUndefined();
  });

  it('scores the dependencies found and reports them compactly, failed ones first', () => {
    const spec = buildReportSpec(
      observe({
        dependencies: [
          { from: 'ConfigMap/shop/app', to: 'db.shop-db', status: 'restored' },
          { from: 'Deployment/shop/web', to: 'web.shop', status: 'production', message: 'x'.repeat(300) },
        ],
      }),
      'velero',
    );
    expect(spec.levels.find((level) => level.name === 'crossNamespace')!.points).toBe(5);
    expect(spec.dependencies?.map((entry) => [entry.to, entry.status])).toEqual([
      ['web.shop', 'production'],
      ['db.shop-db', 'restored'],
    ]);
    expect(spec.dependencies?.[0]?.message?.length).toBe(256);
  });

  it('keeps the report free of a dependencies list when there are none, and full points', () => {
    const spec = buildReportSpec(observe({ dependencies: [] }), 'velero');
    expect(spec.dependencies).toBeUndefined();
    expect(spec.levels.find((level) => level.name === 'crossNamespace')!.points).toBe(10);
  });

  it('scores the level as not tested when the references could not be read', () => {
    const spec = buildReportSpec(observe({ dependencies: null }), 'velero');
    expect(spec.levels.find((level) => level.name === 'crossNamespace')).toMatchObject({ points: 0, tested: false });
  });

  it('caps the result when a check failed, and names the check; a critical one makes the run fail', () => {
    const checks = ['http', 'tcp', 'pods', 'orders'].map((name) => ({
      name,
      kind: 'httpGet' as const,
      status: name === 'orders' ? ('fail' as const) : ('pass' as const),
      message: '',
      duration: '0.1s',
    }));
    const capped = buildReportSpec(observe({ checks }), 'velero');
    expect(capped.score).toBe(95); // one of four checks failed: 15 of 20 health-check points
    expect(capped.result).toBe('partial');
    expect(capped.resultCap).toEqual({ check: 'orders', critical: false, result: 'partial' });
    const failed = buildReportSpec(observe({ checks, criticalChecks: ['orders'] }), 'velero');
    expect(failed.score).toBe(95);
    expect(failed.result).toBe('fail');
    expect(failed.resultCap).toEqual({ check: 'orders', critical: true, result: 'fail' });
    expect(buildReportSpec(observe(), 'velero').resultCap).toBeUndefined();
  });

  it('says until when the sandbox of a run that did not pass is kept; a passing run has none', () => {
    const expires = new Date('2026-11-22T03:00:00.200Z');
    const failedCheck = [{ name: 'http', kind: 'httpGet' as const, status: 'fail' as const, message: 'HTTP 500', duration: '0.1s' }];
    expect(buildReportSpec(observe({ checks: failedCheck, sandboxExpiresAt: expires }), 'velero').sandboxExpiresAt).toBe(
      '2026-11-22T03:00:00.200Z',
    );
    const failedRestore = observe({ restore: undefined, failure: { reason: 'RestoreFailed', message: 'no' }, sandboxExpiresAt: expires });
    expect(buildReportSpec(failedRestore, 'velero').sandboxExpiresAt).toBe('2026-11-22T03:00:00.200Z');
    expect(buildReportSpec(observe({ sandboxExpiresAt: expires }), 'velero').sandboxExpiresAt).toBeUndefined();
    const noSandbox = observe({ run: { ...run, sandboxNamespaces: [] }, checks: failedCheck, sandboxExpiresAt: expires });
    expect(buildReportSpec(noSandbox, 'velero').sandboxExpiresAt).toBeUndefined();
  });
});

describe('completeness against the restore’s own count', () => {
  it('uses the objects the restore set out to restore, not the backup total (real Velero: 14 of 19)', () => {
    const spec = buildReportSpec(
      observe({
        run: { ...run, backup: { name: 'nightly', totalItems: 19 } },
        restore: {
          phase: 'Completed',
          succeeded: true,
          partiallyFailed: false,
          warnings: 1,
          errors: 0,
          itemsRestored: 14,
          totalItems: 14,
        },
      }),
      'velero',
    );
    expect(spec.completeness).toEqual([{ kind: 'all', backedUp: 14, restored: 14 }]);
  });

  it('falls back to the backup total when the restore gives no count', () => {
    const spec = buildReportSpec(
      observe({
        run: { ...run, backup: { name: 'nightly', totalItems: 19 } },
        restore: {
          phase: 'Completed',
          succeeded: true,
          partiallyFailed: false,
          warnings: 0,
          errors: 0,
          itemsRestored: 12,
        },
      }),
      'velero',
    );
    expect(spec.completeness).toEqual([{ kind: 'all', backedUp: 19, restored: 12 }]);
  });
});

describe('completeness per kind', () => {
  const level = (spec: ReturnType<typeof buildReportSpec>) =>
    spec.levels.find((entry) => entry.name === 'completeness')!;

  it('reports the per-kind comparison and scores it (a kind short costs its share)', () => {
    const spec = buildReportSpec(
      observe({
        kinds: {
          completeness: [
            { kind: 'ConfigMap', backedUp: 2, restored: 2 },
            { kind: 'Secret', backedUp: 1, restored: 0 },
          ],
        },
      }),
      'velero',
    );
    expect(spec.completeness).toEqual([
      { kind: 'ConfigMap', backedUp: 2, restored: 2 },
      { kind: 'Secret', backedUp: 1, restored: 0 },
    ]);
    expect(level(spec).points).toBe(10);
    expect(level(spec).detail).toBe('1/2 kinds complete; incomplete: Secret 0/1');
  });

  it('degrades to the restore’s own totals with the reason when the list was unavailable', () => {
    const spec = buildReportSpec(observe({ kinds: { unavailable: 'the object store answered HTTP 403' } }), 'velero');
    expect(spec.completeness).toEqual([{ kind: 'all', backedUp: 40, restored: 40 }]);
    expect(level(spec).points).toBe(20);
    expect(level(spec).detail).toBe(
      '1/1 kinds complete; per-kind list unavailable: the object store answered HTTP 403',
    );
  });

  it('a run failed for its volume data shows the claim without data as not restored, and fails', () => {
    const spec = buildReportSpec(
      observe({
        restore: {
          phase: 'Completed', succeeded: true, partiallyFailed: false, warnings: 0, errors: 0, itemsRestored: 40, totalItems: 40,
          volumes: [{ namespace: 'sb', claim: 'data-db-0', method: 'csi-data-mover', phase: 'Failed', dataRestored: false }],
        },
        kinds: { completeness: [{ kind: 'ConfigMap', backedUp: 2, restored: 2 }, { kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 }] },
        failure: { reason: 'VolumeDataNotRestored', message: 'the data of 1 volume was not restored' },
      }),
      'velero',
    );
    expect(spec.completeness).toContainEqual({ kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 });
    expect(level(spec).detail).toBe('1/2 kinds complete; incomplete: PersistentVolumeClaim 0/1');
    expect(spec.result).toBe('fail');
  });

  it('a failed restore has no completeness, whatever the kinds say', () => {
    const spec = buildReportSpec(
      observe({
        restore: { phase: 'Failed', succeeded: false, partiallyFailed: false, warnings: 0, errors: 1 },
        kinds: { completeness: [{ kind: 'Secret', backedUp: 1, restored: 1 }] },
      }),
      'velero',
    );
    expect(level(spec).points).toBe(0);
    expect(level(spec).tested).toBe(false);
  });
});

describe('the backup choice of a randomWithin test (issue 32)', () => {
  it('copies the run\'s selection record into spec.backup.selection; a latest run has none', () => {
    const selection = {
      strategy: 'randomWithin' as const,
      within: '720h',
      windowStart: '2026-10-23T00:00:00.000Z',
      windowEnd: '2026-11-22T00:00:00.000Z',
      seed: '0a1b2c3d',
      candidates: 7,
      chosen: 3,
      reason: 'random within 720h: 7 candidate(s), chose #3 newest first (backup nightly)',
    };
    const sampled = buildReportSpec(observe({ run: { ...run, backup: { name: 'nightly', selection } } }), 'velero');
    expect(sampled.backup).toMatchObject({ name: 'nightly', selection });
    expect(buildReportSpec(observe(), 'velero').backup).not.toHaveProperty('selection');
  });
});
