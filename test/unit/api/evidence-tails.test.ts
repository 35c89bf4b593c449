// TailProblemMemo remembers each test's missing-tail check while the test's newest run and its
// evidence anchor are unchanged. It must give what tailProblems gives after any change, and unpack
// only the tests whose newest run or anchor changed.
import { describe, expect, it } from '@jest/globals';
import { TailProblemMemo, tailProblems } from '../../../server/api/services/evidence-tails.js';
import { ReportIndex, reportKeyOf } from '../../../server/domain/read-models/report-index.js';
import type { EvidenceAnchor, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { daysBefore, makeReport, makeTest } from '../domain/fixtures.js';

const NOW = new Date('2026-03-31T00:00:00Z');

function signed(test: string, sequence: number): RestoreReport {
  const report = makeReport({ test, runId: `s${sequence}`, completedAt: daysBefore(NOW, 10 - sequence) });
  return {
    ...report,
    spec: {
      ...report.spec,
      evidence: {
        digest: `sha256:${test}-${sequence}`,
        sequence,
        signature: 'x',
        keyId: 'k',
        algorithm: 'Ed25519',
        canonicalization: 'RFC8785',
      },
    },
  };
}

function anchorOf(report: RestoreReport): EvidenceAnchor {
  return {
    sequence: report.spec.evidence!.sequence!,
    digest: report.spec.evidence!.digest,
    report: report.metadata.name,
  };
}

describe('TailProblemMemo', () => {
  it('equals tailProblems after reports are added, deleted and anchors move, unpacking only what changed', () => {
    const index = new ReportIndex();
    const stored = new Map<string, RestoreReport>();
    let unpacked = 0;
    const cache = {
      reportIndex: index,
      fullReport: (key: string) => {
        unpacked += 1;
        return stored.get(key);
      },
    };
    const put = (report: RestoreReport): void => {
      stored.set(reportKeyOf(report), report);
      index.add(report);
    };
    const drop = (report: RestoreReport): void => {
      stored.delete(reportKeyOf(report));
      index.remove(report);
    };
    const names = ['payments', 'shop', 'search'];
    const chains = new Map(names.map((name) => [name, [1, 2, 3].map((sequence) => signed(name, sequence))]));
    for (const chain of chains.values()) chain.forEach(put);
    let tests: RestoreTest[] = names.map((name) =>
      makeTest({ name, status: { evidenceAnchor: anchorOf(chains.get(name)!.at(-1)!) } }),
    );
    const memo = new TailProblemMemo();
    const check = (): number => {
      const before = unpacked;
      const remembered = memo.problems(cache, tests);
      const used = unpacked - before;
      expect(remembered).toEqual(tailProblems(cache, tests));
      return used;
    };

    expect(check()).toBe(3); // first time: every test's newest report
    expect(check()).toBe(0); // nothing changed: nothing unpacked
    expect(memo.problems(cache, tests)).toEqual([]);

    // The newest report of shop is deleted: a missing tail, found by unpacking shop's report only.
    drop(chains.get('shop')!.at(-1)!);
    expect(check()).toBe(1);
    expect(memo.problems(cache, tests).map((problem) => problem.test)).toEqual(['rehearsal-system/shop']);

    // A new run of payments and its anchor moves: payments checked again, still intact.
    const next = signed('payments', 4);
    put(next);
    tests = tests.map((test) =>
      test.metadata.name === 'payments' ? { ...test, status: { evidenceAnchor: anchorOf(next) } } : test,
    );
    expect(check()).toBe(1);

    // Search's anchor names a report that was never stored (a replaced newest report).
    tests = tests.map((test) =>
      test.metadata.name === 'search'
        ? {
            ...test,
            status: {
              evidenceAnchor: { ...anchorOf(chains.get('search')!.at(-1)!), digest: 'sha256:other' },
            },
          }
        : test,
    );
    expect(check()).toBe(1);
    expect(memo.problems(cache, tests).map((problem) => problem.test)).toEqual([
      'rehearsal-system/shop',
      'rehearsal-system/search',
    ]);

    // Every report of payments deleted: no newest run, checked every time (nothing to remember).
    for (const report of [...chains.get('payments')!, next]) drop(report);
    check();
    expect(memo.problems(cache, tests).map((problem) => problem.test)).toContain('rehearsal-system/payments');
  });
});
