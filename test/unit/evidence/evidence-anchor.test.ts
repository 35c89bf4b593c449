// Sequence numbers and the evidence anchor: deleting the newest reports leaves a chain whose links
// are intact, so only the test's anchor (status.evidenceAnchor) can tell it is too short. Reports
// signed before sequences still verify.
import { describe, expect, it } from '@jest/globals';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import type { EvidenceAnchor, RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { evidenceAnchorOf } from '../../../server/evidence/evidence-anchor.js';
import { verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import { ReportSigner } from '../../../server/evidence/report-signer.js';
import { TestStatusWriter } from '../../../server/kube/test-status.js';
import { generateSigningKey, publicKeyRing } from '../../../server/evidence/signing-key.js';
import { Metrics } from '../../../server/metrics/metrics.js';
import {
  makeReport,
  makeRestoreTest,
  makeSignedHistory,
  PERIOD_START,
} from '../../fixtures/evidence/reports.js';

const key = generateSigningKey();
const ring = publicKeyRing([key.publicKey]);
const test = makeRestoreTest('orders-nightly', ['orders'], { uid: 'uid-orders' });
const keys = { ready: async () => ({ key }) };
const signer = new ReportSigner({ keys, log: pino({ level: 'silent' }) });
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** n reports signed by the engine's signer, oldest first, each chained to the one before. */
async function sequencedChain(n: number, before: RestoreReport[] = []): Promise<RestoreReport[]> {
  const chain = [...before];
  for (let i = before.length; i < before.length + n; i++) {
    const report = makeReport(test, i, PERIOD_START, { result: 'pass', rtoSeconds: 300 });
    chain.push(await signer.sign(report, chain.at(-1)));
  }
  return chain;
}

/** The chain verifier (the server's and the plugin's), with the test's anchor when given. */
function verify(reports: RestoreReport[], anchor?: EvidenceAnchor) {
  return verifyReportChain(reports, ring, anchor ? { anchor } : {});
}

describe('sequence numbers', () => {
  it('number a chain 1, 2, 3 inside the signed content, and every report verifies', async () => {
    const chain = await sequencedChain(3);
    expect(chain.map((report) => report.spec.evidence?.sequence)).toEqual([1, 2, 3]);
    expect(verify(chain, evidenceAnchorOf(chain[2]!)).ok).toBe(true);
    // The sequence is signed: changing it breaks the digest.
    const edited = clone(chain);
    edited[2]!.spec.evidence!.sequence = 9;
    const result = verify(edited);
    expect(result.reports[2]!.problems[0]).toMatch(/^digest mismatch/);
  });

  it('keep old, unsequenced reports verifying, and a new report after them starts at 1', async () => {
    const old = makeSignedHistory(test, 2, PERIOD_START, key, () => ({ result: 'pass', rtoSeconds: 300 }));
    expect(old.every((report) => report.spec.evidence?.sequence === undefined)).toBe(true);
    const chain = await sequencedChain(2, old);
    expect(chain.map((report) => report.spec.evidence?.sequence)).toEqual([undefined, undefined, 1, 2]);
    expect(verify(chain, evidenceAnchorOf(chain[3]!)).ok).toBe(true);
    expect(evidenceAnchorOf(old[1]!)).toBeUndefined();
  });
});

describe('the evidence anchor', () => {
  it('names a deleted newest report, which the links alone cannot show', async () => {
    const chain = await sequencedChain(4);
    const anchor = evidenceAnchorOf(chain[3]!)!;
    const truncated = chain.slice(0, 3);
    expect(verify(truncated).ok).toBe(true); // the gap this closes
    const result = verify(truncated, anchor);
    expect(result.ok).toBe(false);
    expect(result.chainProblems).toEqual([
      `missing tail: the test's evidence anchor names ${chain[3]!.metadata.name} (sequence 4, ${anchor.digest.slice(0, 19)}), which is not in the set; the newest report present is ${chain[2]!.metadata.name} (sequence 3): 1 newest report(s) were deleted`,
    ]);
    expect(verify(chain.slice(0, 1), anchor).chainProblems[0]).toContain(
      '3 newest report(s) were deleted',
    );
    expect(verify([], anchor).chainProblems[0]).toMatch(/^missing tail: no reports/);
  });

  it('names a newest report that was replaced, and only notes an anchor that lags behind', async () => {
    const chain = await sequencedChain(3);
    const replaced = await signer.sign(
      makeReport(test, 7, PERIOD_START, { result: 'fail', rtoSeconds: 1 }),
      chain[1],
    );
    expect(replaced.spec.evidence?.sequence).toBe(3);
    const result = verify([chain[0]!, chain[1]!, replaced], evidenceAnchorOf(chain[2]!));
    expect(result.ok).toBe(false);
    expect(result.chainProblems[0]).toMatch(/^replaced: the newest report/);
    const lagging = verify(chain, evidenceAnchorOf(chain[1]!));
    expect(lagging.ok).toBe(true);
    expect(lagging.notes).toContain(
      `the evidence anchor names ${chain[1]!.metadata.name} (sequence 2, ${chain[1]!.spec.evidence!.digest.slice(0, 19)}); 1 newer report(s) were written after it was recorded`,
    );
  });
});

describe('ReportSigner.recordAnchor', () => {
  function fakeTests(status: RestoreTest['status']) {
    const patches: Record<string, unknown>[] = [];
    const stored = { ...test, metadata: { ...test.metadata, resourceVersion: '41' }, status };
    const api = {
      getNamespacedCustomObject: async () => clone(stored),
      patchNamespacedCustomObjectStatus: async (request: Record<string, unknown>) => {
        patches.push(request);
        return stored;
      },
    } as unknown as CustomObjectsApi;
    return { tests: new TestStatusWriter(api), patches };
  }

  it('applies status.evidenceAnchor as its owner (with the resourceVersion it read) and sets the metrics', async () => {
    const [report] = await sequencedChain(1);
    const { tests, patches } = fakeTests({});
    const metrics = new Metrics({ defaultMetrics: false });
    await new ReportSigner({ keys, tests, log: pino({ level: 'silent' }), metrics }).recordAnchor(
      report!,
    );
    // Server-side apply of the one field the evidence owns: nothing else of the status is sent.
    expect(patches).toEqual([
      expect.objectContaining({
        plural: 'restoretests',
        name: 'orders-nightly',
        body: {
          apiVersion: 'rehearsal.dev/v1alpha1',
          kind: 'RestoreTest',
          metadata: { name: 'orders-nightly', namespace: 'rehearsal-system', resourceVersion: '41' },
          status: { evidenceAnchor: evidenceAnchorOf(report!) },
        },
        fieldManager: 'rehearsal-evidence',
        force: true,
      }),
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'rehearsal_evidence_sequence{namespace="rehearsal-system",test="orders-nightly"} 1',
    );
    expect(text).toContain(
      `rehearsal_evidence_anchor_info{namespace="rehearsal-system",test="orders-nightly",digest="${report!.spec.evidence!.digest}"} 1`,
    );
  });

  it('never moves the anchor back (a late retry of an older report)', async () => {
    const chain = await sequencedChain(2);
    const { tests, patches } = fakeTests({ evidenceAnchor: evidenceAnchorOf(chain[1]!)! });
    await new ReportSigner({ keys, tests, log: pino({ level: 'silent' }) }).recordAnchor(chain[0]!);
    expect(patches).toEqual([]);
  });
});
