// The memoized verifier compliance and the PDFs use: per-report checks memoized by uid and
// resourceVersion, chain links recomputed per test after a change, memo cleared when keys change.
import { describe, expect, it } from '@jest/globals';
import type { KeyObject } from 'node:crypto';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { EvidenceVerifier } from '../../../server/evidence/evidence-verifier.js';
import { reportKeyOf, reportTestKeyOf } from '../../../server/domain/read-models/report-index.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import {
  makeReport,
  makeRestoreTest,
  makeSignedHistory,
  PERIOD_START,
} from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const rotated = generateSigningKey();
const test = makeRestoreTest('payments-nightly', ['payments'], { uid: 'uid-payments' });
const TEST_KEY = 'rehearsal-system/payments-nightly';

function history(count = 5): RestoreReport[] {
  return makeSignedHistory(test, count, PERIOD_START, key, (i) => ({
    result: i === 2 ? 'fail' : 'pass',
    rtoSeconds: 600,
  })).map((report, i) => ({
    ...report,
    metadata: { ...report.metadata, uid: `u${i}`, resourceVersion: `${100 + i}` },
  }));
}

function setup(
  reports: RestoreReport[],
  ring: ReadonlyMap<string, KeyObject> = publicKeyRing([key.publicKey]),
) {
  const store = { reports, ring };
  const verifier = new EvidenceVerifier(() => store.ring, {
    reportsOfTest: (testKey) => (testKey === TEST_KEY ? store.reports : []),
  });
  return { store, verifier };
}

describe('EvidenceVerifier', () => {
  it('verifies an intact chain (in any storage order)', () => {
    const reports = history();
    const { verifier } = setup([...reports].reverse());
    expect(reports.map((report) => verifier.problems(report))).toEqual([[], [], [], [], []]);
    expect(reports.every((report) => verifier.verify(report))).toBe(true);
  });

  it('names a report whose content changed after signing', () => {
    const reports = history();
    reports[1] = {
      ...reports[1]!,
      metadata: { ...reports[1]!.metadata, uid: 'u1-recreated' },
      spec: { ...reports[1]!.spec, score: 91 },
    };
    const { verifier } = setup(reports);
    expect(verifier.problems(reports[1]!)).toEqual([
      expect.stringMatching(
        new RegExp(`^${reports[1]!.metadata.name}: digest mismatch: the report was changed after signing`),
      ),
    ]);
    expect(verifier.verify(reports[2]!)).toBe(true);
  });

  it('gives the same verdicts when the caller passes the report and test keys it holds', () => {
    const reports = history();
    reports[1] = { ...reports[1]!, spec: { ...reports[1]!.spec, score: 91 } }; // edited after signing
    const { verifier } = setup(reports);
    const withKeys = reports.map((report) =>
      verifier.verify(report, { key: reportKeyOf(report), testKey: reportTestKeyOf(report) }),
    );
    expect(withKeys).toEqual(reports.map((report) => verifier.verify(report)));
    expect(withKeys).toEqual([true, false, true, true, true]); // only the edited one fails
  });

  it('flags the successor of a deleted report once the test is invalidated', () => {
    const reports = history();
    const { store, verifier } = setup(reports);
    expect(verifier.verify(reports[3]!)).toBe(true);
    store.reports = reports.filter((_report, i) => i !== 2);
    verifier.invalidateTest(TEST_KEY);
    expect(verifier.problems(reports[3]!)).toEqual([
      expect.stringContaining(`${reports[3]!.metadata.name}: missing predecessor`),
    ]);
    expect(verifier.problems(reports[3]!)[0]).toContain(
      `a report between ${reports[1]!.metadata.name} and ${reports[3]!.metadata.name} was deleted`,
    );
  });

  it('re-verifies a changed chain in the background when asked to, not inside the next verify()', async () => {
    const reports = history();
    const store = { reports, ring: publicKeyRing([key.publicKey]) };
    let reads = 0;
    let background = true;
    const verifier = new EvidenceVerifier(
      () => store.ring,
      {
        reportsOfTest: (testKey) => {
          reads += testKey === TEST_KEY ? 1 : 0;
          return testKey === TEST_KEY ? store.reports : [];
        },
      },
      () => background,
    );
    expect(verifier.verify(reports[3]!)).toBe(true);
    expect(reads).toBe(1);
    store.reports = reports.filter((_report, i) => i !== 2);
    verifier.invalidateTest(TEST_KEY);
    expect(reads).toBe(1); // not synchronously
    await turnsOfTheLoop(10);
    // Re-verified in the background: read for the own checks (a few per turn), then for the links.
    expect(reads).toBe(3);
    expect(verifier.verify(reports[3]!)).toBe(false); // the verdict is the re-verified one
    expect(reads).toBe(3); // and the memo serves it
    background = false; // e.g. while the initial sync streams in: lazily, as without the option
    verifier.invalidateTest(TEST_KEY);
    await turnsOfTheLoop(10);
    expect(reads).toBe(3);
    expect(verifier.verify(reports[3]!)).toBe(false);
    expect(reads).toBe(4);
  });

  it('accepts the oldest report pointing at a pruned predecessor', () => {
    const reports = history().slice(2);
    const { verifier } = setup(reports);
    expect(reports.map((report) => verifier.verify(report))).toEqual([true, true, true]);
  });

  it('memoizes per uid and resourceVersion: a changed object is checked again', () => {
    const reports = history(2);
    const { store, verifier } = setup(reports);
    expect(verifier.verify(reports[0]!)).toBe(true);
    // Same uid and resourceVersion (which the apiserver would never serve for changed content): memo hit.
    reports[0]!.spec.score = 1;
    verifier.invalidateTest(TEST_KEY);
    expect(verifier.verify(reports[0]!)).toBe(true);
    // Any change to a stored object bumps its resourceVersion: checked again.
    store.reports = [
      { ...reports[0]!, metadata: { ...reports[0]!.metadata, resourceVersion: '999' } },
      reports[1]!,
    ];
    verifier.invalidateTest(TEST_KEY);
    expect(verifier.verify(store.reports[0]!)).toBe(false);
  });

  it.each([
    ['large decimal', '123456789012345', '123456789012346'],
    ['non-decimal', 'v-7', 'v-8'],
    ['missing', undefined, '5'],
  ])('memoizes a %s resourceVersion exactly (kept compactly)', (_kind, version, changed) => {
    const reports = history(2).map((report) => ({
      ...report,
      metadata: { ...report.metadata, resourceVersion: version },
    }));
    const { store, verifier } = setup(reports);
    expect(verifier.verify(reports[0]!)).toBe(true);
    reports[0]!.spec.score = 1; // same version: memo hit
    verifier.invalidateTest(TEST_KEY);
    expect(verifier.verify(reports[0]!)).toBe(true);
    store.reports = [
      { ...reports[0]!, metadata: { ...reports[0]!.metadata, resourceVersion: changed } },
      reports[1]!,
    ];
    verifier.invalidateTest(TEST_KEY);
    expect(verifier.verify(store.reports[0]!)).toBe(false);
  });

  it("keys its memo with the store's own key strings when the source shares them", () => {
    const reports = history(3);
    const held = new Map(reports.map((report) => [reportKeyOf(report), reportKeyOf(report)]));
    const asked: string[] = [];
    const verifier = new EvidenceVerifier(() => publicKeyRing([key.publicKey]), {
      reportsOfTest: (testKey) => (testKey === TEST_KEY ? reports : []),
      sharedKey: (reportKey) => {
        asked.push(reportKey);
        return held.get(reportKey);
      },
    });
    expect(reports.map((report) => verifier.verify(report))).toEqual([true, true, true]);
    expect(asked.sort()).toEqual([...held.keys()].sort());
  });

  it('re-checks everything when the trusted keys change (a retired key revoked, a new key added)', () => {
    const reports = history(3);
    const { store, verifier } = setup(reports, publicKeyRing([key.publicKey, rotated.publicKey]));
    expect(verifier.verify(reports[0]!)).toBe(true);
    store.ring = publicKeyRing([rotated.publicKey]);
    expect(verifier.problems(reports[0]!)[0]).toContain(`signed with unknown key ${key.keyId}`);
  });

  it('judges a report that is not in the store on its own', () => {
    const [first] = history(1);
    const { verifier } = setup([]);
    expect(verifier.verify(first!)).toBe(true);
    const unsigned = {
      ...first!,
      // Another object: etcd gives every write a new resourceVersion, which is what the memo keys on.
      metadata: { ...first!.metadata, uid: 'other', resourceVersion: '999' },
      spec: { ...first!.spec, evidence: undefined },
    };
    expect(verifier.problems(unsigned)).toEqual([
      `${first!.metadata.name}: no evidence block: the report is not signed`,
    ]);
  });

  it('verifies whole chains ahead of use, a few reports per turn of the event loop', async () => {
    const reports = history(30);
    let reads = 0;
    const verifier = new EvidenceVerifier(() => publicKeyRing([key.publicKey]), {
      reportsOfTest: (testKey) => {
        reads += 1;
        return testKey === TEST_KEY ? reports : [];
      },
    });
    let turns = 0;
    let warming = true;
    const countTurns = (): void => {
      turns += 1;
      if (warming) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    await verifier.warmChains([TEST_KEY, 'rehearsal-system/other']);
    warming = false;
    // 30 reports' own checks at most 8 a turn, then the links: the loop turned between them.
    expect(turns).toBeGreaterThanOrEqual(5);
    const readsWhenWarm = reads;
    expect(reports.map((report) => verifier.verify(report))).toEqual(reports.map(() => true));
    expect(reads).toBe(readsWhenWarm); // served from the memo: the first compliance evaluation reads nothing
  });
});

describe('EvidenceVerifier with a re-created RestoreTest', () => {
  it('keeps one chain per RestoreTest uid while the old test’s reports await garbage collection', () => {
    const old = history(3);
    const recreated = makeRestoreTest('payments-nightly', ['payments'], { uid: 'uid-new' });
    const fresh: RestoreReport[] = [];
    let previous: string | undefined;
    for (const day of [40, 41]) {
      const report = withEvidence(
        makeReport(recreated, day, PERIOD_START, { result: 'pass', rtoSeconds: 600 }),
        previous,
        key,
      );
      report.metadata.uid = `n${day}`;
      report.metadata.resourceVersion = '1';
      previous = report.spec.evidence!.digest;
      fresh.push(report);
    }
    const { verifier } = setup([...old, ...fresh]);
    expect([...old, ...fresh].map((report) => verifier.problems(report))).toEqual([[], [], [], [], []]);
  });
});

describe('EvidenceVerifier appending new reports', () => {
  /** A store with the hooks the server wires (whole report by key, digests of a test). */
  function liveSetup(reports: RestoreReport[]) {
    const store = { reports, ring: publicKeyRing([key.publicKey]), chainReads: 0 };
    const source = {
      reportsOfTest: (testKey: string) => {
        if (testKey !== TEST_KEY) return [];
        store.chainReads += 1;
        return store.reports;
      },
      report: (reportKey: string) => store.reports.find((report) => reportKeyOf(report) === reportKey),
      digestsOfTest: (testKey: string) =>
        testKey === TEST_KEY ? store.reports.map((report) => report.spec.evidence?.digest) : [],
    };
    const verifier = new EvidenceVerifier(
      () => store.ring,
      source,
      () => true,
    );
    /** What a verifier that never saw earlier states says (the reference). */
    const fresh = (): boolean[] => {
      const reference = new EvidenceVerifier(() => store.ring, {
        reportsOfTest: (testKey: string) => (testKey === TEST_KEY ? store.reports : []),
      });
      return store.reports.map((report) => reference.verify(report));
    };
    return { store, verifier, fresh };
  }

  function signedNext(
    previous: RestoreReport | undefined,
    day: number,
    uid: string,
    signer = key,
  ): RestoreReport {
    const report = withEvidence(
      JSON.parse(
        JSON.stringify(makeReport(test, day, PERIOD_START, { result: 'pass', rtoSeconds: 600 })),
      ) as RestoreReport,
      previous?.spec.evidence?.digest,
      signer,
    );
    report.metadata.uid = uid;
    report.metadata.resourceVersion = uid;
    return report;
  }

  it('checks a report that extends a clean chain on its own, without reading the chain again', () => {
    const reports = history(4);
    const { store, verifier, fresh } = liveSetup([...reports]);
    expect(reports.every((report) => verifier.verify(report))).toBe(true);
    expect(store.chainReads).toBe(1);
    const next = signedNext(reports[3], 4, 'n4');
    store.reports.push(next);
    verifier.reportAdded(reportKeyOf(next), TEST_KEY);
    expect(verifier.verify(next)).toBe(true);
    expect(store.chainReads).toBe(1);
    expect(store.reports.map((report) => verifier.verify(report))).toEqual(fresh());
  });

  it('re-verifies the whole chain for a new report that does not plainly extend it', async () => {
    const reports = history(4);
    const { store, verifier, fresh } = liveSetup([...reports]);
    expect(verifier.verify(reports[0]!)).toBe(true);
    // A copy of the newest report under another name: a duplicate digest and a fork.
    const copy = {
      ...reports[3]!,
      metadata: { ...reports[3]!.metadata, name: 'copy', uid: 'c', resourceVersion: 'c' },
    };
    store.reports.push(copy);
    verifier.reportAdded(reportKeyOf(copy), TEST_KEY);
    await turnsOfTheLoop(10);
    expect(store.chainReads).toBe(3); // the background re-verification reads it twice (own checks, links)
    expect(store.reports.map((report) => verifier.verify(report))).toEqual(fresh());
    expect(verifier.verify(copy)).toBe(false);
  });

  /**
   * Seeded random adds and deletes (the same sequence every run), each step compared with a fresh
   * verifier. `hostile`: the share of adds that are forks, duplicates, out-of-order or unlinked.
   */
  async function randomHistory(
    hostile: number,
    seed: number,
    steps = 150,
  ): Promise<{ reads: number; deletes: number; appended: number }> {
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const { store, verifier, fresh } = liveSetup(history(3));
    expect(verifier.verify(store.reports[0]!)).toBe(true);
    let day = 3;
    let appended = 0;
    let deletes = 0;
    for (let step = 0; step < steps; step += 1) {
      const chain = [...store.reports].sort((a, b) => a.spec.startedAt.localeCompare(b.spec.startedAt));
      const newest = chain[chain.length - 1];
      let added: RestoreReport | undefined;
      if (random() < 0.15 && chain.length > 1) {
        // A deletion: the oldest (pruning by historyLimit), or when hostile sometimes any report.
        const gone = random() >= hostile ? chain[0]! : chain[Math.floor(random() * chain.length)]!;
        store.reports = store.reports.filter((report) => report !== gone);
        verifier.invalidateTest(TEST_KEY);
        verifier.forget(gone);
        deletes += 1;
      } else if (random() >= hostile) {
        added =
          random() < 0.8
            ? signedNext(newest, day++, `s${step}`) // a run finished: the usual case
            : signedNext(newest, day++, `k${step}`, rotated); // own checks fail, link intact
      } else {
        const kind = Math.floor(random() * 5);
        if (kind === 0) {
          added = signedNext(chain[Math.floor(random() * chain.length)], day++, `f${step}`); // fork or skipped link
        } else if (kind === 1 && newest) {
          added = {
            ...newest,
            metadata: {
              ...newest.metadata,
              name: `dup-${step}`,
              uid: `d${step}`,
              resourceVersion: `d${step}`,
            },
          };
        } else if (kind === 2) {
          added = signedNext(newest, Math.max(0, day - 5 - Math.floor(random() * 3)), `o${step}`); // out of order
          added.metadata.name = `old-${step}`;
        } else if (kind === 3) {
          added = signedNext(undefined, day++, `u${step}`); // unlinked: a new chain start
        } else {
          // Forged: links to the newest but claims another report's digest (its own checks fail, and
          // the other report becomes a duplicate).
          added = signedNext(newest, day++, `x${step}`);
          const victim = chain[Math.floor(random() * chain.length)];
          if (victim) added.spec.evidence!.digest = victim.spec.evidence!.digest;
        }
      }
      if (added) {
        store.reports.push(added);
        verifier.reportAdded(reportKeyOf(added), TEST_KEY);
        appended += 1;
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect({ step, verdicts: store.reports.map((report) => verifier.verify(report)) }).toEqual({
        step,
        verdicts: fresh(),
      });
    }
    return { reads: store.chainReads, deletes, appended };
  }

  it('agrees with a from-scratch verification after any sequence of adds and deletes', async () => {
    // Long sequences, and many short ones from a clean chain (a chain once broken stays broken, so
    // the short ones are where each kind of bad report meets the short path).
    for (const seed of [17, 4242]) expect((await randomHistory(0.3, seed, 120)).appended).toBeGreaterThan(80);
    for (let seed = 1; seed <= 120; seed += 1) await randomHistory(0.5, seed, 4);
    // Each step signs a report and re-verifies the whole store from scratch (~4 s quiet, more in CI).
  }, 60_000);

  it('reads the whole chain again only after a deletion while runs extend it', async () => {
    const { reads, deletes, appended } = await randomHistory(0, 99);
    expect(appended).toBeGreaterThan(100);
    // The first verification, then per deletion the background's two reads (own checks a few per
    // turn, then links) or the next verify()'s one; every appended run took the short path.
    expect(reads).toBeGreaterThanOrEqual(1 + deletes);
    expect(reads).toBeLessThanOrEqual(1 + 2 * deletes);
  }, 60_000);
});

function turnsOfTheLoop(count: number): Promise<void> {
  return count === 0
    ? Promise.resolve()
    : new Promise((resolve) => setImmediate(resolve)).then(() => turnsOfTheLoop(count - 1));
}
