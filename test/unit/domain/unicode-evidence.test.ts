// Arbitrary Unicode in what a run observed (check messages from apps and databases, failure
// messages from providers) must never stop a report from being signed: a seeded property test
// through truncation, the report builder, RFC 8785 canonicalisation, signing and verification,
// including the JSON round trip the apiserver does.
import { describe, expect, it } from '@jest/globals';
import { truncate } from '../../../server/checks/check.js';
import { buildReportSpec, type RunObservations } from '../../../server/domain/run/report-builder.js';
import {
  API_VERSION,
  type CheckResult,
  type CurrentRun,
  type RestoreReport,
  type RestoreTest,
} from '../../../server/domain/resources/resources.js';
import { truncateText } from '../../../protocol/text.js';
import { wellFormed } from '../../../server/domain/common/text.js';
import { canonicalJson } from '../../../protocol/evidence/canonical-json.js';
import { reportEvidenceProblems } from '../../../protocol/evidence/report-chain.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { seeded } from '../../fixtures/evidence/reports.js';

const SEED = 20261125;
const CASES = 300;
const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);

// Pieces chosen to hit the edges: astral characters (surrogate pairs), lone surrogates of both
// halves, ZWJ sequences, combining marks, controls, NUL, BOM, right-to-left text, noncharacters.
const PIECES = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  'e\u0301',
  'ß',
  'İ',
  '中',
  'ｱ',
  '\u200d',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '😀',
  '👩‍👩‍👧',
  '🇩🇪',
  '𝄞',
  '\u{10ffff}',
  'שלום',
  'مرحبا',
  '\u202e',
];

function randomText(random: () => number, maxLength: number): string {
  const length = Math.floor(random() * maxLength);
  let text = '';
  for (let i = 0; i < length; i += 1) {
    // Mostly whole pieces, sometimes a single random code unit (any surrogate half included).
    text +=
      random() < 0.85
        ? PIECES[Math.floor(random() * PIECES.length)]!
        : String.fromCharCode(Math.floor(random() * 0x10000));
  }
  return text;
}

const test: RestoreTest = {
  apiVersion: API_VERSION,
  kind: 'RestoreTest',
  metadata: { name: 'payments', namespace: 'team-a', uid: 'uid-payments' },
  spec: {
    provider: 'velero',
    backupSource: { namespaces: [{ name: 'payments' }] },
    schedule: { cron: '@daily' },
  },
};

const run: CurrentRun = {
  id: 'ab12c',
  trigger: 'manual',
  scheduledAt: '2026-11-22T02:00:00.000Z',
  queuedAt: '2026-11-22T02:00:00.000Z',
  startedAt: '2026-11-22T02:00:01.000Z',
  stage: 'Validating',
  sandboxNamespaces: [{ source: 'payments', sandbox: 'rehearsal-payments-ab12c' }],
  backup: { name: 'nightly', completedAt: '2026-11-22T01:00:00Z', totalItems: 10 },
  restore: { namespace: 'velero', name: 'payments-ab12c' },
  restoreRequestedAt: '2026-11-22T02:00:02.000Z',
};

function reportWith(checks: CheckResult[], failure?: { reason: string; message: string }): RestoreReport {
  const observed: RunObservations = {
    test,
    run,
    completedAt: new Date('2026-11-22T02:05:00.000Z'),
    restore: {
      phase: 'Completed',
      succeeded: true,
      partiallyFailed: false,
      warnings: 0,
      errors: 0,
      itemsRestored: 10,
    },
    pods: { expected: 1, ready: 1 },
    checks,
    checksCompletedAt: new Date('2026-11-22T02:04:00.000Z'),
    ...(failure ? { failure } : {}),
  };
  return {
    apiVersion: API_VERSION,
    kind: 'RestoreReport',
    metadata: {
      name: 'payments-ab12c',
      namespace: 'team-a',
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'RestoreTest',
          name: 'payments',
          uid: 'uid-payments',
          controller: true,
        },
      ],
    },
    spec: buildReportSpec(observed, 'velero'),
  };
}

function signsAndVerifies(report: RestoreReport): void {
  const signed = withEvidence(report, 'sha256:' + '0'.repeat(64), key);
  expect(reportEvidenceProblems(signed, ring)).toEqual([]);
  // What the apiserver stores and hands back is a JSON round trip of what was signed.
  const stored = JSON.parse(JSON.stringify(signed)) as RestoreReport;
  expect(reportEvidenceProblems(stored, ring)).toEqual([]);
}

const codePoints = (text: string): number => [...text].length;
const isWellFormed = (text: string): boolean => text.isWellFormed();

describe('truncateText', () => {
  it('cuts by code point, never inside a surrogate pair: an emoji at the edge stays whole or goes', () => {
    const edge = `${'x'.repeat(498)}😀tail`; // 😀 is code units 498-499
    const cut = truncate(edge, 500);
    expect(isWellFormed(cut)).toBe(true);
    expect(cut).toBe(`${'x'.repeat(498)}😀…`);
    expect(truncate(`${'x'.repeat(499)}😀`, 500)).toBe(`${'x'.repeat(499)}😀`); // 500 code points: no cut
    expect(truncateText('😀😀😀', 2)).toBe('😀…');
    expect(truncateText('abc', 1)).toBe('…');
  });

  it('replaces lone surrogates (text that was already cut elsewhere) with U+FFFD', () => {
    expect(truncateText('ok \ud83d', 10)).toBe('ok \ufffd');
    expect(wellFormed('\udc00x\ud800')).toBe('\ufffdx\ufffd');
  });

  it(`holds its properties for ${CASES} seeded random texts (seed ${SEED})`, () => {
    const random = seeded(SEED);
    for (let i = 0; i < CASES; i += 1) {
      const text = randomText(random, 700);
      const max = 1 + Math.floor(random() * 600);
      const cut = truncateText(text, max);
      const clean = text.toWellFormed();
      expect(isWellFormed(cut)).toBe(true);
      expect(codePoints(cut)).toBeLessThanOrEqual(max);
      if (codePoints(clean) <= max) expect(cut).toBe(clean);
      else expect(clean.startsWith(cut.slice(0, -1)) && cut.endsWith('…')).toBe(true);
    }
  });
});

describe('reports with arbitrary Unicode', () => {
  it('a report with an emoji cut at the truncation edge of a check message is signed and verifies', () => {
    // Before: the cut left a lone high surrogate, canonicalisation threw, and every signing
    // attempt failed until the run ended as TTLExceeded without its results.
    // 😀 sits at code units 498-499 of a message cut at 500: a UTF-16 cut keeps its first half.
    const message = truncate(`${'x'.repeat(498)}😀${'y'.repeat(100)}`, 500);
    expect(message).toBe(`${'x'.repeat(498)}😀…`);
    const report = reportWith([{ name: 'web', kind: 'httpGet', status: 'fail', message, duration: '1s' }]);
    signsAndVerifies(report);
  });

  it('a lone surrogate from elsewhere (failure message, check name) is made well-formed, then signed', () => {
    const report = reportWith(
      [{ name: 'web\ud800', kind: 'httpGet', status: 'error', message: 'half \ud83d', duration: '1s' }],
      { reason: 'RestoreFailed', message: 'velero said \udc00' },
    );
    expect(report.spec.checks[0]!.message).toBe('half \ufffd');
    expect(report.spec.failure?.message).toBe('velero said \ufffd');
    expect(() => canonicalJson(report.spec)).not.toThrow();
    signsAndVerifies(report);
  });

  it(`signs and verifies ${CASES} seeded reports full of arbitrary Unicode (seed ${SEED})`, () => {
    const random = seeded(SEED + 1);
    for (let i = 0; i < CASES; i += 1) {
      const checks: CheckResult[] = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, n) => ({
        name: `check-${n}`,
        kind: 'sqlQuery',
        status: random() < 0.5 ? 'pass' : 'fail',
        // As the check runner stores it (cut at 500), or raw (a message that skipped the runner).
        message: random() < 0.7 ? truncate(randomText(random, 700), 500) : randomText(random, 200),
        duration: '1s',
      }));
      const failure =
        random() < 0.3 ? { reason: 'ChecksFailed', message: randomText(random, 300) } : undefined;
      const report = reportWith(checks, failure);
      for (const check of report.spec.checks) expect(isWellFormed(check.message)).toBe(true);
      signsAndVerifies(report);
    }
  });
});
