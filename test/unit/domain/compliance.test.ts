import { describe, expect, it } from '@jest/globals';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import type { ReportSummary } from '../../../server/domain/read-models/report-summary.js';
import {
  FRAMEWORKS,
  FRAMEWORK_IDS,
  isFrameworkId,
  type FrameworkId,
} from '../../../server/domain/compliance/catalogue.js';
import {
  drainSteps,
  complianceOverviewSteps,
  evaluateCompliance,
  evaluateComplianceSteps,
  type ComplianceDetail,
  type ControlDetail,
  type TargetControlDetail,
} from '../../../server/domain/compliance/evaluation.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { daysBefore, makeReport, makeTest, type ReportOptions } from './fixtures.js';

const NOW = new Date('2026-03-31T00:00:00Z');
const ago = (days: number, hours = 0): string => daysBefore(NOW, days, hours);

interface Run extends Partial<ReportOptions> {
  /** Completed this many days (plus hours) before NOW. */
  days: number;
  hours?: number;
}

/** Reports of one test whose only source namespace has the test's name. */
function runsOf(test: string, runs: Run[], defaults: Partial<ReportOptions> = {}): RestoreReport[] {
  return runs.map(({ days, hours, ...rest }) =>
    makeReport({
      test,
      completedAt: ago(days, hours),
      rtoSeconds: 600,
      rtoTarget: '15m',
      ...defaults,
      ...rest,
    }),
  );
}

function evaluate(
  tests: RestoreTest[],
  reports: RestoreReport[],
  options: { framework?: FrameworkId; periodDays?: number; verify?: (report: ReportSummary) => boolean } = {},
): ComplianceDetail {
  return evaluateCompliance({
    framework: options.framework ?? 'soc2',
    periodDays: options.periodDays ?? 90,
    now: NOW,
    tests,
    reports,
    ...(options.verify ? { verify: options.verify } : {}),
  }).detail;
}

function control(detail: ComplianceDetail, id: string): ControlDetail {
  const found = detail.controls.find((each) => each.id === id);
  if (!found) throw new Error(`no control ${id}`);
  return found;
}

function target(detail: ComplianceDetail, id: string, namespace: string): TargetControlDetail {
  const found = control(detail, id).targets.find((each) => each.namespace === namespace);
  if (!found) throw new Error(`no target ${namespace}`);
  return found;
}

describe('catalogue', () => {
  it('has the five frameworks with the controls of the catalogue (decision 0006)', () => {
    expect(FRAMEWORK_IDS).toEqual(['soc2', 'iso27001', 'hipaa', 'dora', 'pcidss']);
    const table = Object.fromEntries(
      FRAMEWORK_IDS.map((id) => [id, FRAMEWORKS[id].controls.map((c) => `${c.id}:${c.role}`)]),
    );
    expect(table).toEqual({
      soc2: ['A1.3:primary', 'A1.2:supporting', 'CC7.5:supporting'],
      iso27001: ['8.13:primary', '5.30:primary', '5.29:supporting'],
      hipaa: [
        '164.308(a)(7)(ii)(B):primary',
        '164.308(a)(7)(ii)(D):primary',
        '164.308(a)(7)(ii)(A):supporting',
      ],
      dora: [
        'Art. 11(6)(a):primary',
        'Art. 12(2):primary',
        'Art. 12(6):supporting',
        'Art. 12(7):supporting',
        'Art. 12(3):supporting',
      ],
      pcidss: ['12.10.2:primary', '12.10.1:supporting'],
    });
    expect(FRAMEWORKS.soc2.label).toBe('SOC 2 (TSC 2017, rev. 2022)');
    expect(FRAMEWORKS.iso27001.label).toBe('ISO/IEC 27001:2022 Annex A');
    expect(FRAMEWORKS.hipaa.label).toBe('HIPAA Security Rule');
    expect(FRAMEWORKS.dora.label).toBe('DORA (EU 2022/2554) + RTS 2024/1774');
    expect(FRAMEWORKS.pcidss.label).toBe('PCI DSS v4.0.1');
  });

  it('marks only ISO 5.30 and DORA 12(6) as RTO-bound, every freshness 365 d, a not-evidenced list each', () => {
    const all = FRAMEWORK_IDS.flatMap((id) => FRAMEWORKS[id].controls.map((c) => ({ ...c, framework: id })));
    expect(all.filter((c) => c.rtoBound).map((c) => c.id)).toEqual(['5.30', 'Art. 12(6)']);
    expect(all.every((c) => c.freshnessDays === 365)).toBe(true);
    for (const id of FRAMEWORK_IDS) expect(FRAMEWORKS[id].notEvidenced.length).toBeGreaterThan(0);
  });

  it.each([
    ['soc2', true],
    ['pcidss', true],
    ['SOC2', false],
    ['nist', false],
    [undefined, false],
  ])('isFrameworkId(%j) = %s', (value, expected) => {
    expect(isFrameworkId(value)).toBe(expected);
  });
});

describe('per-target status (SOC 2 A1.3: not RTO-bound, freshness 365 d, W = 30 d)', () => {
  const pay = makeTest({ name: 'pay', maxRTO: '15m' });

  type Case = [string, Run[], 'satisfied' | 'at_risk' | 'not_tested', string[], number?];
  const cases: Case[] = [
    ['two qualifying passes', [{ days: 10 }, { days: 3 }], 'satisfied', []],
    ['no run in the period', [], 'not_tested', []],
    ['a run before the period only', [{ days: 91 }], 'not_tested', []],
    ['only aborted attempts', [{ days: 5, aborted: true, result: 'fail' }], 'not_tested', []],
    ['latest run failed', [{ days: 10 }, { days: 1, result: 'fail' }], 'at_risk', ['latest_run_failed']],
    ['latest run partial', [{ days: 10 }, { days: 1, result: 'partial' }], 'at_risk', ['latest_run_partial']],
    [
      'latest run an aborted attempt',
      [{ days: 10 }, { days: 1, result: 'fail', aborted: true }],
      'at_risk',
      ['latest_run_failed'],
    ],
    [
      'an exception remediated 5 d later',
      [{ days: 20, result: 'fail' }, { days: 15 }, { days: 1 }],
      'satisfied',
      [],
      1,
    ],
    ['remediated exactly at W', [{ days: 40, result: 'partial' }, { days: 10 }], 'satisfied', [], 1],
    [
      'remediated one second after W',
      [
        { days: 40, result: 'partial' },
        { days: 10, hours: -1 / 3600 },
      ],
      'at_risk',
      ['late_remediation'],
    ],
    [
      'remediated 40 d later',
      [{ days: 80, result: 'fail' }, { days: 40 }, { days: 1 }],
      'at_risk',
      ['late_remediation'],
    ],
    [
      'only partial runs',
      [{ days: 1, result: 'partial' }],
      'at_risk',
      ['no_qualifying_pass', 'latest_run_partial'],
    ],
    [
      'old partial never followed by a pass',
      [
        { days: 60, result: 'partial' },
        { days: 2, result: 'partial' },
      ],
      'at_risk',
      ['no_qualifying_pass', 'latest_run_partial', 'unremediated_exception'],
    ],
    [
      'latest pass breached its RTO target',
      [{ days: 10 }, { days: 1, rtoSeconds: 1200 }],
      'at_risk',
      ['rto_breach'],
    ],
    [
      'a pass without an RTO target qualifies for a control that is not RTO-bound',
      [{ days: 1, rtoTarget: undefined }],
      'satisfied',
      [],
    ],
    [
      'a breach remediated by the next pass',
      [{ days: 10, rtoSeconds: 1200 }, { days: 9 }],
      'satisfied',
      [],
      1,
    ],
  ];

  it.each(cases)('%s', (_title, runs, status, reasons, remediated = 0) => {
    // runsOf gives every run a 15m target; a row with `rtoTarget: undefined` has none.
    const reports = runsOf('pay', runs);
    const result = target(evaluate([pay], reports), 'A1.3', 'pay');
    expect(result.status).toBe(status);
    expect(result.reasons.map((reason) => reason.code)).toEqual(reasons);
    expect(result.remediatedExceptions).toBe(remediated);
  });

  it('counts aborted attempts of an untested target', () => {
    const reports = runsOf('pay', [
      { days: 5, aborted: true, result: 'fail' },
      { days: 4, aborted: true, result: 'fail' },
    ]);
    const result = target(evaluate([pay], reports), 'A1.3', 'pay');
    expect(result).toMatchObject({ status: 'not_tested', runs: 2, abortedAttempts: 2, qualifyingPasses: 0 });
  });

  describe('freshness (the newest qualifying pass must be younger than 365 d)', () => {
    it.each([
      [364.9, 'satisfied', []],
      [365, 'at_risk', ['stale']],
      [400, 'at_risk', ['stale']],
    ])('a single pass %d d old -> %s', (days, status, reasons) => {
      const reports = runsOf('pay', [{ days: Number(days) }]);
      const result = target(evaluate([pay], reports, { periodDays: 730 }), 'A1.3', 'pay');
      expect(result.status).toBe(status);
      expect(result.reasons.map((reason) => reason.code)).toEqual(reasons);
    });

    it('says how old the pass is', () => {
      const reports = runsOf('pay', [{ days: 400 }]);
      const result = target(evaluate([pay], reports, { periodDays: 730 }), 'A1.3', 'pay');
      expect(result.reasons[0]!.message).toBe('newest qualifying pass is 400 d old (freshness 365 d)');
    });
  });

  describe('remediation belongs to the same test', () => {
    const other = makeTest({ name: 'pay-b', sources: ['pay'], maxRTO: '15m' });

    it('a pass of another test does not remediate: unremediated after W', () => {
      const reports = [
        ...runsOf('pay', [{ days: 60, result: 'fail' }]),
        ...runsOf('pay-b', [{ days: 2 }], { sources: ['pay'] }),
      ];
      const result = target(evaluate([pay, other], reports), 'A1.3', 'pay');
      expect(result.status).toBe('at_risk');
      expect(result.reasons.map((reason) => reason.code)).toEqual(['unremediated_exception']);
      expect(result.exceptions).toHaveLength(1);
      expect(result.exceptions[0]).toMatchObject({
        test: 'rehearsal-system/pay',
        remediation: 'unremediated',
      });
      expect(result.reasons[0]!.message).toMatch(
        /^1 exception not remediated within 30 d: fail 2026-01-30 \(rehearsal-system\/pay run /,
      );
    });

    it('within W the exception is pending, which is still at risk', () => {
      const reports = [
        ...runsOf('pay', [{ days: 5, result: 'fail' }]),
        ...runsOf('pay-b', [{ days: 1 }], { sources: ['pay'] }),
      ];
      const result = target(evaluate([pay, other], reports), 'A1.3', 'pay');
      expect(result.status).toBe('at_risk');
      expect(result.reasons.map((reason) => reason.code)).toEqual(['remediation_pending']);
      expect(result.exceptions[0]!.remediation).toBe('pending');
    });

    it('records which pass remediated an exception', () => {
      const reports = runsOf('pay', [
        { days: 20, result: 'fail', runId: 'bad' },
        { days: 15, runId: 'fix' },
      ]);
      const result = target(evaluate([pay], reports), 'A1.3', 'pay');
      expect(result.exceptions).toEqual([
        expect.objectContaining({
          runId: 'bad',
          causes: ['fail'],
          remediation: 'remediated',
          remediatedBy: expect.objectContaining({ runId: 'fix', result: 'pass' }),
        }),
      ]);
    });
  });

  describe('evidence verification', () => {
    it('a report whose signature does not verify is not a qualifying pass', () => {
      const reports = runsOf('pay', [{ days: 10 }, { days: 1, runId: 'forged' }]);
      const detail = evaluate([pay], reports, { verify: (report) => report.spec.runId !== 'forged' });
      const result = target(detail, 'A1.3', 'pay');
      expect(result.reasons.map((reason) => reason.code)).toEqual(['evidence_unverified']);
      expect(result.exceptions[0]!.causes).toEqual(['evidence_unverified']);
      expect(detail.signaturesChecked).toBe(true);
      expect(detail.runs.map((run) => run.evidenceVerified)).toEqual([true, false]);
    });

    it('without a verifier signatures count as verifying and the output says they were not checked', () => {
      const detail = evaluate([pay], runsOf('pay', [{ days: 1 }]));
      expect(detail.signaturesChecked).toBe(false);
      expect(detail.limitations).toContain('Evidence signatures were not verified for this output.');
      expect(target(detail, 'A1.3', 'pay').status).toBe('satisfied');
    });

    it('calls the verifier once per report', () => {
      let calls = 0;
      evaluate([pay], runsOf('pay', [{ days: 3 }, { days: 2 }, { days: 1 }]), {
        verify: () => {
          calls += 1;
          return true;
        },
      });
      expect(calls).toBe(3);
    });
  });
});

describe('missing tail (the newest reports of a test deleted)', () => {
  const pay = makeTest({ name: 'pay', maxRTO: '15m' });
  const other = makeTest({ name: 'other', maxRTO: '15m' });
  const tail = {
    test: 'rehearsal-system/pay',
    sourceNamespaces: ['pay'],
    problem: "rehearsal-system/pay: missing tail: the test's evidence anchor names pay-run-9 (sequence 9)",
  };
  const reports = [
    ...runsOf('pay', [{ days: 10 }, { days: 3 }]),
    ...runsOf('other', [{ days: 10 }, { days: 3 }]),
  ];

  it("is an evidence exception of the test's namespaces in every control, named in the evidence", () => {
    const intact = evaluate([pay, other], reports);
    expect(target(intact, 'A1.3', 'pay').status).toBe('satisfied');
    const detail = evaluateCompliance({
      framework: 'soc2',
      periodDays: 90,
      now: NOW,
      tests: [pay, other],
      reports,
      missingTails: [tail],
    }).detail;
    for (const each of detail.controls) {
      const pays = each.targets.find((t) => t.namespace === 'pay')!;
      expect(pays.status).toBe('at_risk');
      expect(pays.reasons).toContainEqual({ code: 'evidence_unverified', message: tail.problem });
      expect(each.targets.find((t) => t.namespace === 'other')!.status).toBe('satisfied');
      expect(each.evidence).toContain(
        'evidence exception: missing tail (newest reports deleted) of rehearsal-system/pay',
      );
    }
  });

  it('a chain that disagrees with an evidence anchor is an exception of its own kind, named apart from a missing tail', () => {
    const rewritten = {
      test: 'rehearsal-system/other',
      sourceNamespaces: ['other'],
      problem: 'rehearsal-system/other: rewritten after it was anchored: other-run-2 (sequence 2) has digest sha256:aaaaaaaaaaaa',
      kind: 'anchor' as const,
    };
    const detail = evaluateCompliance({
      framework: 'soc2',
      periodDays: 90,
      now: NOW,
      tests: [pay, other],
      reports,
      missingTails: [tail, rewritten],
    }).detail;
    for (const each of detail.controls) {
      const others = each.targets.find((t) => t.namespace === 'other')!;
      expect(others.status).toBe('at_risk');
      expect(others.reasons).toContainEqual({ code: 'evidence_unverified', message: rewritten.problem });
      expect(each.evidence).toContain('evidence exception: missing tail (newest reports deleted) of rehearsal-system/pay');
      expect(each.evidence).toContain('evidence exception: changed after it was anchored (disagrees with write-once evidence anchors) of rehearsal-system/other');
      expect(each.evidence).not.toContain('missing tail (newest reports deleted) of rehearsal-system/other');
    }
  });

  it('keeps a target whose reports were all deleted at risk, not merely untested', () => {
    const detail = evaluateCompliance({
      framework: 'soc2',
      periodDays: 90,
      now: NOW,
      tests: [pay, other],
      reports: runsOf('other', [{ days: 3 }]),
      missingTails: [tail],
    }).detail;
    expect(target(detail, 'A1.3', 'pay')).toMatchObject({
      status: 'at_risk',
      reasons: [{ code: 'evidence_unverified' }],
    });
  });
});

describe('RTO-bound controls (ISO 5.30)', () => {
  it('a pass without an RTO target qualifies for 8.13 but not for 5.30', () => {
    const test = makeTest({ name: 'pay' });
    const reports = runsOf('pay', [{ days: 10 }, { days: 1 }]);
    for (const report of reports) delete report.spec.rto.target;
    const detail = evaluate([test], reports, { framework: 'iso27001' });
    expect(target(detail, '8.13', 'pay').status).toBe('satisfied');
    const bound = target(detail, '5.30', 'pay');
    expect(bound.status).toBe('at_risk');
    expect(bound.reasons.map((reason) => reason.code)).toEqual([
      'no_qualifying_pass',
      'rto_target_undefined',
      'remediation_pending',
    ]);
    expect(bound.exceptions.map((exception) => exception.causes)).toEqual([
      ['rto_target_undefined'],
      ['rto_target_undefined'],
    ]);
    expect(control(detail, '5.30').evidence).toMatch(
      /^5\.30 at risk \(no qualifying pass: pay; RTO target undefined: pay; remediation pending: pay\): 0\/1 namespaces/,
    );
  });

  it('a pass within its target qualifies for both', () => {
    const detail = evaluate([makeTest({ name: 'pay', maxRTO: '15m' })], runsOf('pay', [{ days: 1 }]), {
      framework: 'iso27001',
    });
    expect(detail.controls.map((each) => each.status)).toEqual(['satisfied', 'satisfied', 'satisfied']);
  });
});

describe('RPO evidence (ISO 5.30, DORA 12(6)): named beside the status, never a reason', () => {
  const iso = (tests: RestoreTest[], reports: RestoreReport[]) => evaluate(tests, reports, { framework: 'iso27001' });

  it('carries the RPO target and the latest measured RPO, within its target', () => {
    const detail = iso(
      [makeTest({ name: 'pay', maxRTO: '15m', maxRPO: '1h' })],
      runsOf('pay', [{ days: 5, rpoSeconds: 4_000, rpoTarget: '1h' }, { days: 1, rpoSeconds: 1_200, rpoTarget: '1h' }]),
    );
    const bound = target(detail, '5.30', 'pay');
    expect(bound.status).toBe('satisfied');
    expect(bound.rpo).toEqual({
      target: '1h',
      latest: expect.objectContaining({ test: 'rehearsal-system/pay', completedAt: ago(1), measured: '20m', measuredSeconds: 1_200, withinSLA: true }),
      notes: [],
    });
    expect(control(detail, '5.30').evidence).toContain('; worst latest RPO 20m vs target 1h (pay, 2026-03-30).');
  });

  it('notes "RPO target undefined" and "RPO not measured" without changing a status', () => {
    const detail = iso([makeTest({ name: 'pay', maxRTO: '15m' })], runsOf('pay', [{ days: 1 }]));
    const bound = target(detail, '5.30', 'pay');
    expect(bound.status).toBe('satisfied');
    expect(bound.reasons).toEqual([]);
    expect(bound.rpo).toEqual({
      target: null,
      notes: [
        { code: 'rpo_target_undefined', message: 'no RPO target (spec.sla.maxRPO) for rehearsal-system/pay' },
        { code: 'rpo_not_measured', message: expect.stringContaining('latest run measured no RPO') },
      ],
    });
    expect(control(detail, '5.30').evidence).toMatch(
      /^5\.30 satisfied: .*; no RPO measured; RPO target undefined: pay; RPO not measured: pay\.$/,
    );
  });

  it("takes the target of a run that measured none from its test's maxRPO", () => {
    const detail = iso([makeTest({ name: 'pay', maxRTO: '15m', maxRPO: '4h' })], runsOf('pay', [{ days: 1 }]));
    expect(target(detail, '5.30', 'pay').rpo).toEqual({
      target: '4h',
      notes: [{ code: 'rpo_not_measured', message: expect.any(String) }],
    });
  });

  it('names an RPO over its target, and the target stays satisfied', () => {
    const detail = evaluate(
      [makeTest({ name: 'pay', maxRTO: '15m', maxRPO: '30m' }), makeTest({ name: 'shop', maxRTO: '15m', maxRPO: '30m' })],
      [
        ...runsOf('pay', [{ days: 2, rpoSeconds: 3_349, rpoTarget: '30m' }]),
        ...runsOf('shop', [{ days: 1, rpoSeconds: 600, rpoTarget: '30m' }]),
      ],
      { framework: 'dora' },
    );
    const pay = target(detail, 'Art. 12(6)', 'pay');
    expect(pay.status).toBe('satisfied');
    expect(pay.rpo?.latest).toMatchObject({ measured: '55m49s', withinSLA: false });
    expect(pay.rpo?.notes).toEqual([
      { code: 'rpo_over_target', message: expect.stringMatching(/^latest RPO 55m49s over target 30m: rehearsal-system\/pay run r\d+, 2026-03-29$/) },
    ]);
    expect(control(detail, 'Art. 12(6)').status).toBe('satisfied');
    expect(control(detail, 'Art. 12(6)').evidence).toContain('; worst latest RPO 55m49s vs target 30m (pay, 2026-03-29); RPO over target: pay.');
  });

  it('reads the latest completed run: an aborted attempt after it measured nothing', () => {
    const detail = iso(
      [makeTest({ name: 'pay', maxRTO: '15m', maxRPO: '1h' })],
      runsOf('pay', [{ days: 3, rpoSeconds: 900, rpoTarget: '1h' }, { days: 1, aborted: true }]),
    );
    expect(target(detail, '5.30', 'pay').rpo?.latest).toMatchObject({ completedAt: ago(3), measured: '15m' });
  });

  it('is absent from the other controls, and from a target with no completed run', () => {
    const detail = iso(
      [makeTest({ name: 'pay', maxRTO: '15m' }), makeTest({ name: 'idle', maxRTO: '15m' })],
      runsOf('pay', [{ days: 1, rpoSeconds: 900 }]),
    );
    expect(target(detail, '8.13', 'pay').rpo).toBeUndefined();
    expect(control(detail, '8.13').evidence).not.toContain('RPO');
    expect(target(detail, '5.30', 'idle').rpo).toBeUndefined();
    expect(target(detail, '5.30', 'pay').rpo).toMatchObject({ target: null, latest: { measured: '15m' } });
    expect(control(detail, '5.30').evidence).toContain('worst latest RPO 15m with no RPO target (pay, 2026-03-30); RPO target undefined: pay');
  });
});

describe('per-control aggregation', () => {
  const tests = [makeTest({ name: 'pay', maxRTO: '15m' }), makeTest({ name: 'orders', maxRTO: '15m' })];

  it.each<[string, RestoreReport[], 'satisfied' | 'at_risk' | 'not_tested']>([
    [
      'every target satisfied',
      [...runsOf('pay', [{ days: 1 }]), ...runsOf('orders', [{ days: 2 }])],
      'satisfied',
    ],
    ['one target untested: partial coverage is at risk', runsOf('pay', [{ days: 1 }]), 'at_risk'],
    [
      'one target at risk',
      [...runsOf('pay', [{ days: 1 }]), ...runsOf('orders', [{ days: 2, result: 'fail' }])],
      'at_risk',
    ],
    ['no target tested', [], 'not_tested'],
    ['only aborted attempts', runsOf('pay', [{ days: 1, aborted: true, result: 'fail' }]), 'not_tested'],
  ])('%s -> %s', (_title, reports, status) => {
    expect(control(evaluate(tests, reports), 'A1.3').status).toBe(status);
  });

  it('a run of several source namespaces counts for each of them', () => {
    const multi = makeTest({ name: 'shop', sources: ['web', 'db'], maxRTO: '15m' });
    const detail = evaluate([multi], runsOf('shop', [{ days: 1 }], { sources: ['web', 'db'] }));
    expect(detail.scope.namespaces).toEqual(['db', 'web']);
    expect(control(detail, 'A1.3').targets.map((each) => [each.namespace, each.status])).toEqual([
      ['db', 'satisfied'],
      ['web', 'satisfied'],
    ]);
  });

  it('scope includes namespaces restored in the period by tests that no longer exist', () => {
    const detail = evaluate(
      [tests[0]!],
      [...runsOf('pay', [{ days: 1 }]), ...runsOf('legacy', [{ days: 3 }])],
    );
    expect(detail.scope.namespaces).toEqual(['legacy', 'pay']);
  });
});

describe('evidence sentences', () => {
  // Two namespaces, six runs; built to reproduce the example line of the product's compliance guide.
  const tests = [makeTest({ name: 'payments', maxRTO: '15m' }), makeTest({ name: 'orders', maxRTO: '15m' })];
  const reports = [
    makeReport({
      test: 'payments',
      completedAt: '2026-02-10T00:00:00Z',
      result: 'fail',
      failure: { reason: 'ChecksFailed', message: 'db' },
      rtoTarget: '15m',
    }),
    makeReport({ test: 'payments', completedAt: '2026-02-11T00:00:00Z', rtoSeconds: 700, rtoTarget: '15m' }),
    makeReport({ test: 'payments', completedAt: '2026-03-25T00:00:00Z', rtoSeconds: 600, rtoTarget: '15m' }),
    makeReport({
      test: 'orders',
      completedAt: '2026-03-01T00:00:00Z',
      result: 'partial',
      rtoSeconds: 300,
      rtoTarget: '15m',
    }),
    makeReport({ test: 'orders', completedAt: '2026-03-05T00:00:00Z', rtoSeconds: 400, rtoTarget: '15m' }),
    makeReport({ test: 'orders', completedAt: '2026-03-27T00:00:00Z', rtoSeconds: 500, rtoTarget: '15m' }),
  ];

  it('follows the format of the example line', () => {
    const detail = evaluate(tests, reports);
    expect(control(detail, 'A1.3').evidence).toBe(
      'A1.3 satisfied (2 remediated exceptions): 2/2 namespaces restored and verified 2025-12-31..2026-03-31 UTC; ' +
        '6 runs (4 pass, 1 partial, 1 fail); newest qualifying pass per namespace ≤ 6 d old; ' +
        'worst RTO 11m40s vs target 15m (payments, 2026-02-11).',
    );
  });

  it('names the reasons and namespaces of an at-risk control', () => {
    const detail = evaluate(tests, [
      ...reports,
      makeReport({
        test: 'orders',
        completedAt: '2026-03-30T00:00:00Z',
        result: 'fail',
        score: 20,
        rtoSeconds: 1000,
        rtoTarget: '15m',
      }),
    ]);
    expect(control(detail, 'A1.3').evidence).toBe(
      'A1.3 at risk (latest run failed: orders; RTO breach: orders; 2 remediated exceptions): ' +
        '2/2 namespaces restored and verified 2025-12-31..2026-03-31 UTC; 7 runs (4 pass, 1 partial, 2 fail); ' +
        'newest qualifying pass per namespace ≤ 6 d old; worst RTO 16m40s vs target 15m (orders, 2026-03-30).',
    );
  });

  it('mentions aborted attempts when nothing was tested', () => {
    const detail = evaluate(
      tests,
      runsOf('payments', [
        { days: 2, aborted: true, result: 'fail' },
        { days: 1, aborted: true, result: 'fail' },
      ]),
    );
    expect(control(detail, 'A1.3').evidence).toBe(
      'A1.3 not tested: 0/2 namespaces restored and verified 2025-12-31..2026-03-31 UTC; ' +
        'no completed run in the period (2 aborted attempts: BackupNotFound).',
    );
  });

  it('says so when there are no runs at all', () => {
    expect(control(evaluate(tests, []), 'A1.3').evidence).toBe(
      'A1.3 not tested: 0/2 namespaces restored and verified 2025-12-31..2026-03-31 UTC; no completed run in the period.',
    );
  });

  it('lists an untested namespace and a run without RTO target', () => {
    const detail = evaluate(tests, runsOf('payments', [{ days: 1, rtoSeconds: 90, rtoTarget: undefined }]));
    expect(control(detail, 'A1.3').evidence).toBe(
      'A1.3 at risk (not tested: orders): 1/2 namespaces restored and verified 2025-12-31..2026-03-31 UTC; ' +
        '1 run (1 pass, 0 partial, 0 fail); newest qualifying pass per namespace ≤ 1 d old; ' +
        'worst RTO 1m30s with no RTO target (payments, 2026-03-30).',
    );
  });

  it('carries the DORA 12(3) caveat on logical segregation', () => {
    const detail = evaluate(tests, reports, { framework: 'dora' });
    expect(control(detail, 'Art. 12(3)').evidence).toMatch(
      /; the sandbox is a namespace in the same cluster: logical segregation only\.$/,
    );
  });

  it('never says "compliant"', () => {
    for (const framework of FRAMEWORK_IDS) {
      for (const set of [reports, [], runsOf('payments', [{ days: 1, result: 'fail' }])]) {
        const evaluation = evaluateCompliance({ framework, periodDays: 90, now: NOW, tests, reports: set });
        expect(JSON.stringify(evaluation.detail)).not.toMatch(/compliant/i);
        expect(JSON.stringify(evaluation.response.controls)).not.toMatch(/compliant/i);
      }
    }
  });
});

describe('headline figures (decision 0006)', () => {
  const tests = [makeTest({ name: 'a', maxRTO: '15m' }), makeTest({ name: 'b' }), makeTest({ name: 'c' })];
  const reports = [
    makeReport({ test: 'a', completedAt: ago(1), score: 95, rtoSeconds: 600, rtoTarget: '15m' }), // met
    makeReport({ test: 'b', completedAt: ago(2), score: 93, rtoSeconds: 600 }), // no target: not compliant
    makeReport({
      test: 'a',
      completedAt: ago(3),
      score: 80,
      result: 'partial',
      rtoSeconds: 900,
      rtoTarget: '15m',
    }), // met
    makeReport({ test: 'a', completedAt: ago(4), score: 0, result: 'fail', aborted: true, rtoTarget: '15m' }), // unmeasured
    makeReport({ test: 'b', completedAt: ago(5), score: 91, rtoSeconds: 1200, rtoTarget: '15m' }), // breached
    makeReport({ test: 'c', completedAt: ago(91), score: 10, result: 'fail' }), // outside the period
  ];

  it.each([
    ['an array', reports],
    ['an index', ReportIndex.from(reports)],
  ])('from %s', (_how, source) => {
    const { response } = evaluateCompliance({
      framework: 'hipaa',
      periodDays: 90,
      now: NOW,
      tests,
      reports: source,
    });
    expect(response).toMatchObject({
      framework: 'hipaa',
      period: 90,
      generatedAt: '2026-03-31T00:00:00.000Z',
      totalTests: 5,
      passRate: 0.6, // 3/5
      avgScore: 72, // 359/5 = 71.8
      slaCompliance: 0.4, // 2/5
      namespacesCovered: 2, // a, b (c only outside the period)
    });
    expect(response.controls.map((each) => Object.keys(each))).toEqual(
      FRAMEWORKS.hipaa.controls.map(() => ['id', 'title', 'status', 'evidence']),
    );
  });

  it('rounds fractions to 4 decimals', () => {
    const three = [
      makeReport({ test: 'a', completedAt: ago(1), rtoSeconds: 1, rtoTarget: '1m' }),
      makeReport({ test: 'a', completedAt: ago(2), result: 'fail', score: 30 }),
      makeReport({ test: 'a', completedAt: ago(3), result: 'fail', score: 30 }),
    ];
    const { response } = evaluateCompliance({
      framework: 'soc2',
      periodDays: 90,
      now: NOW,
      tests,
      reports: three,
    });
    expect(response.passRate).toBe(0.3333);
    expect(response.slaCompliance).toBe(0.3333);
    expect(response.avgScore).toBe(52); // (95 + 30 + 30) / 3 = 51.67
  });

  it('is zero without runs', () => {
    const { response } = evaluateCompliance({
      framework: 'soc2',
      periodDays: 30,
      now: NOW,
      tests,
      reports: [],
    });
    expect(response).toMatchObject({
      totalTests: 0,
      passRate: 0,
      avgScore: 0,
      slaCompliance: 0,
      namespacesCovered: 0,
    });
    expect(response.controls.every((each) => each.status === 'not_tested')).toBe(true);
  });
});

describe('detail for the PDF', () => {
  const tests = [makeTest({ name: 'pay', maxRTO: '15m' })];
  const reports = runsOf('pay', [
    { days: 20, rtoSeconds: 1000 },
    { days: 10, rtoSeconds: 800 },
    { days: 5, rtoSeconds: 1000, result: 'partial' },
    { days: 3, aborted: true, result: 'fail', rtoSeconds: undefined },
  ]);

  it('analyses RTO per namespace: the worst (latest on a tie) vs its target', () => {
    const detail = evaluate(tests, reports);
    expect(detail.rto).toEqual([
      {
        namespace: 'pay',
        runsMeasured: 3,
        runsWithTarget: 3,
        runsWithinTarget: 1,
        runsBreached: 2,
        runsWithoutTarget: 0,
        worst: expect.objectContaining({
          completedAt: ago(5),
          rtoSeconds: 1000,
          rto: '16m40s',
          targetSeconds: 900,
          target: '15m',
          verdict: 'breached',
        }),
      },
    ]);
  });

  it('lists the whole population and the totals', () => {
    const detail = evaluate(tests, reports);
    expect(detail.totals).toEqual({ runs: 4, pass: 2, partial: 1, fail: 1, aborted: 1 });
    expect(detail.runs.map((run) => [run.rtoVerdict, run.aborted])).toEqual([
      ['breached', false],
      ['met', false],
      ['breached', false],
      ['unmeasured', true],
    ]);
    expect(detail.runs[3]!.failure).toEqual({ reason: 'BackupNotFound', message: 'no backup' });
    expect(detail.period).toEqual({
      days: 90,
      from: '2025-12-31T00:00:00.000Z',
      to: '2026-03-31T00:00:00.000Z',
    });
    expect(detail.scope.tests).toEqual([
      {
        name: 'pay',
        namespace: 'rehearsal-system',
        schedule: '0 2 * * *',
        sourceNamespaces: ['pay'],
        rtoTarget: '15m',
        rpoTarget: '',
      },
    ]);
    expect(detail.notEvidenced).toEqual([...FRAMEWORKS.soc2.notEvidenced]);
    expect(detail.remediationWindowDays).toBe(30);
  });

  it('classifies every exception', () => {
    const result = target(evaluate(tests, reports), 'A1.3', 'pay');
    expect(result.exceptions.map((each) => [each.causes, each.remediation])).toEqual([
      [['rto_breach'], 'remediated'],
      [['partial', 'rto_breach'], 'pending'],
      [['aborted'], 'pending'],
    ]);
    expect(result.reasons.map((reason) => reason.code)).toEqual(['latest_run_failed', 'remediation_pending']);
    expect(result.latestRun).toMatchObject({ result: 'fail', qualifying: false });
  });
});

describe('complianceOverview (dashboard path)', () => {
  it('gives every framework and each test pass rate and run count', () => {
    const tests = [makeTest({ name: 'a', maxRTO: '15m' }), makeTest({ name: 'idle' })];
    const reports = runsOf('a', [{ days: 1 }, { days: 2, result: 'fail' }, { days: 3 }]);
    const overview = drainSteps(complianceOverviewSteps(30, NOW, tests, reports));
    expect(overview.period).toBe(30);
    expect(overview.generatedAt).toBe('2026-03-31T00:00:00.000Z');
    expect(overview.frameworks.map((each) => each.framework)).toEqual([
      'soc2',
      'iso27001',
      'hipaa',
      'dora',
      'pcidss',
    ]);
    expect(overview.frameworks.every((each) => each.totalTests === 3 && each.passRate === 0.6667)).toBe(true);
    expect(overview.tests).toEqual([
      { name: 'a', namespace: 'rehearsal-system', passRate: 0.6667, runs: 3 },
      { name: 'idle', namespace: 'rehearsal-system', passRate: 0, runs: 0 },
    ]);
    const single = evaluateCompliance({
      framework: 'dora',
      periodDays: 30,
      now: NOW,
      tests,
      reports,
    }).response;
    expect(overview.frameworks[3]).toEqual(single);
  });
});

describe('stepwise evaluation (what the API runs between other requests)', () => {
  // 120 tests x 40 runs = 4,800 runs: more than one step of runs, and more than one step of targets.
  const tests = Array.from({ length: 120 }, (_, index) => makeTest({ name: `app-${index}`, maxRTO: '15m' }));
  const reports = tests.flatMap((test, index) =>
    runsOf(
      test.metadata.name!,
      Array.from({ length: 40 }, (_, day) => ({
        days: day,
        hours: index % 24,
        ...(day % 7 === 3 ? { result: 'fail' as const } : {}),
      })),
    ),
  );
  const index = ReportIndex.from(reports);

  function drainCounting<T>(steps: Generator<void, T>): { value: T; yields: number } {
    let yields = 0;
    for (;;) {
      const step = steps.next();
      if (step.done) return { value: step.value, yields };
      yields += 1;
    }
  }

  it('yields between steps and ends with the same answer as the one-go evaluation', () => {
    const input = { framework: 'soc2' as const, periodDays: 30, now: NOW, tests, reports: index };
    const stepwise = drainCounting(evaluateComplianceSteps(input));
    // In the 30-day window: days 0-29 of every test (3,600 runs) plus day 30 of the five tests whose
    // hour offset is 0 (exactly on the window's start): 3,605 runs, one yield per 2,000 while
    // collecting and one per 2,000 while grouping, plus the target steps and one after each control.
    expect(stepwise.yields).toBeGreaterThanOrEqual(4 + FRAMEWORKS.soc2.controls.length);
    expect(stepwise.value.response).toEqual(evaluateCompliance(input).response);
    expect(stepwise.value.response.totalTests).toBe(3605);
  });

  it('gives the same overview stepwise', () => {
    const stepwise = drainCounting(complianceOverviewSteps(30, NOW, tests, index));
    expect(stepwise.yields).toBeGreaterThan(FRAMEWORK_IDS.length);
    // Each framework's part is the framework's own evaluation over the same period.
    for (const framework of FRAMEWORK_IDS) {
      const own = evaluateCompliance({ framework, periodDays: 30, now: NOW, tests, reports: index }).response;
      expect(stepwise.value.frameworks.find((entry) => entry.framework === own.framework)).toEqual(own);
    }
  });
});
