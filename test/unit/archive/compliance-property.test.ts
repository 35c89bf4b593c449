// Property: moving reports into the evidence archive changes nothing an auditor sees. For seeded
// random histories (several tests, random results and RTOs, random live windows), compliance over
// 90 days computed on live + archived (every archived report through a real segment: built,
// signed, gzip'd, read back and checked) equals the result on the all-live history, evidence
// verification included. A control shows the property is not vacuous: without the archived
// reports the result differs for most histories.
import { describe, expect, it } from '@jest/globals';
import { FRAMEWORK_IDS } from '../../../server/domain/compliance/catalogue.js';
import { evaluateCompliance } from '../../../server/domain/compliance/evaluation.js';
import { decideArchive } from '../../../server/domain/retention/archive-policy.js';
import { ReportIndex, reportTestKeyOf } from '../../../server/domain/read-models/report-index.js';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { EvidenceVerifier } from '../../../server/evidence/evidence-verifier.js';
import { withEvidence } from '../../../server/evidence/evidence.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { buildSegment, readSegment } from '../../../server/archive/segment.js';
import { makeReport, makeRestoreTest, seeded } from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const prefix = 'evidence/';
const START = new Date('2026-01-01T00:00:00Z');

interface History {
  tests: RestoreTest[];
  reports: RestoreReport[];
  now: Date;
}

function generate(seed: number): History {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const tests: RestoreTest[] = [];
  const reports: RestoreReport[] = [];
  const testCount = 1 + Math.floor(random() * 3);
  let maxDays = 0;
  for (let t = 0; t < testCount; t++) {
    const test = makeRestoreTest(`app-${t}`, [`ns-${t}`, ...(random() < 0.3 ? [`ns-shared`] : [])], {
      ...(random() < 0.7 ? { maxRTO: pick(['10m', '15m', '20m']) } : {}),
      uid: `uid-${seed}-${t}`,
    });
    tests.push(test);
    const days = 20 + Math.floor(random() * 100);
    maxDays = Math.max(maxDays, days);
    let previous: string | undefined;
    let sequence = 0;
    for (let i = 0; i < days; i++) {
      if (random() < 0.1) continue; // a missed day
      const shape = { result: pick(['pass', 'pass', 'pass', 'partial', 'fail'] as const), rtoSeconds: 300 + Math.floor(random() * 900) };
      sequence += 1;
      const report = withEvidence(JSON.parse(JSON.stringify(makeReport(test, i, START, shape))) as RestoreReport, previous, key, sequence);
      previous = report.spec.evidence!.digest;
      reports.push(report);
    }
  }
  return { tests, reports, now: new Date(START.getTime() + (maxDays + random() * 5) * 86_400_000) };
}

/** Moves each test's reports past a random live window through real segments; returns what readers get. */
function archive(history: History, seed: number): { live: RestoreReport[]; archived: RestoreReport[] } {
  const random = seeded(seed * 7 + 1);
  const window = {
    afterSeconds: (1 + Math.floor(random() * 30)) * 86_400,
    keepLive: 1 + Math.floor(random() * 20),
    minSegment: 1 + Math.floor(random() * 40),
    maxSegment: 10 + Math.floor(random() * 50),
  };
  const live: RestoreReport[] = [];
  const archived: RestoreReport[] = [];
  for (const test of history.tests) {
    let remaining = history.reports.filter((r) => r.spec.testRef.uid === test.metadata.uid);
    let previousSegment: string | null = null;
    // Passes until nothing more moves (as the periodic archiver would over time).
    for (;;) {
      const decision = decideArchive(remaining.map((r) => ({ completedAt: r.spec.completedAt, sequence: r.spec.evidence?.sequence })), 90, window, history.now);
      if (decision.count === 0) break;
      const moving = remaining.slice(0, decision.count);
      const id = { namespace: 'rehearsal-system', name: test.metadata.name, uid: test.metadata.uid! };
      const segment = buildSegment(prefix, id, moving, previousSegment, key, history.now);
      const read = readSegment(segment.key, segment.body, prefix, ring);
      expect(read.problems).toEqual([]);
      archived.push(...read.reports);
      previousSegment = segment.digest;
      remaining = remaining.slice(decision.count);
    }
    live.push(...remaining);
  }
  return { live, archived };
}

function compliance(history: History, reports: readonly RestoreReport[], framework: (typeof FRAMEWORK_IDS)[number]) {
  const byTest = new Map<string, RestoreReport[]>();
  for (const report of reports) byTest.set(reportTestKeyOf(report), [...(byTest.get(reportTestKeyOf(report)) ?? []), report]);
  const verifier = new EvidenceVerifier(() => ring, { reportsOfTest: (testKey) => byTest.get(testKey) ?? [] });
  return evaluateCompliance({
    framework,
    periodDays: 90,
    now: history.now,
    tests: history.tests,
    reports: ReportIndex.from(reports),
    verify: (report) => verifier.verify(report),
  });
}

describe('compliance over live + archived equals all-live (property)', () => {
  it('holds for 25 seeded histories, every framework; losing the archive changes the result', () => {
    let moved = 0;
    let differsWithoutArchive = 0;
    const seeds = Array.from({ length: 25 }, (_, i) => i + 1);
    for (const seed of seeds) {
      const history = generate(seed);
      const { live, archived } = archive(history, seed);
      moved += archived.length;
      const framework = FRAMEWORK_IDS[seed % FRAMEWORK_IDS.length]!;
      const allLive = compliance(history, history.reports, framework);
      const split = compliance(history, [...archived, ...live], framework);
      expect({ seed, result: split }).toEqual({ seed, result: allLive });
      if (JSON.stringify(compliance(history, live, framework)) !== JSON.stringify(allLive)) differsWithoutArchive += 1;
    }
    expect(moved).toBeGreaterThan(500);
    expect(differsWithoutArchive).toBeGreaterThan(seeds.length / 2);
  });
});
