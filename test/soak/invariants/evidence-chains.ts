// Invariant 4: every test's report chain verifies, with the verifier the plugin's `verify` uses
// (protocol/evidence/report-chain.ts): each report's digest and signature against the keys the
// servers publish (GET /api/v1/evidence/keys), the links oldest first, and the tail against the
// test's status.evidenceAnchor. Checked at the end, once the last runs have their reports: while
// runs finish the anchor is written just after its report, so a mid-run look would race it.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { KeyObject } from 'node:crypto';
import type { EvidenceAnchor } from '../../../protocol/evidence/evidence-anchor.js';
import { orderReportsForChain, verifyReportChain } from '../../../protocol/evidence/report-chain.js';
import type { SignedReport } from '../../../protocol/evidence/report-digest.js';
import { keysFromPem } from '../../../protocol/evidence/signature.js';
import { GROUP, VERSION, type RestoreReport, type RestoreTest } from '../../../server/domain/resources/resources.js';
import { expandReport } from '../../../server/report-codec/report-encoding.js';
import type { Replica } from '../replicas.js';
import type { Violations } from './violations.js';

/** Problems named per test at most; the rest are counted. */
const PROBLEMS_PER_TEST = 5;

export interface ChainFigures {
  tests: number;
  reports: number;
  verified: number;
  keys: number;
}

export async function publishedKeys(replica: Replica): Promise<Map<string, KeyObject>> {
  const response = await fetch(replica.url('/api/v1/evidence/keys'), { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /api/v1/evidence/keys on ${replica.name} answered ${response.status}`);
  const keys = new Map<string, KeyObject>();
  for (const published of (await response.json()) as { publicKeyPem: string }[]) {
    for (const [id, key] of keysFromPem(published.publicKeyPem)) keys.set(id, key);
  }
  return keys;
}

export async function verifyChains(admin: KubeConfig, namespace: string, replica: Replica, violations: Violations): Promise<ChainFigures> {
  const keys = await publishedKeys(replica);
  const custom = admin.makeApiClient(CustomObjectsApi);
  const tests = ((await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'restoretests' })) as { items: RestoreTest[] }).items;
  const reports = ((await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'restorereports' })) as { items: RestoreReport[] }).items;
  const byTest = new Map<string, RestoreReport[]>();
  for (const report of reports.map((stored) => expandReport(stored))) {
    const test = report.spec.testRef?.name ?? '';
    byTest.set(test, [...(byTest.get(test) ?? []), report]);
  }
  let verified = 0;
  for (const test of tests) {
    const chain = orderReportsForChain(byTest.get(test.metadata.name) ?? []);
    if (chain.length === 0) continue;
    const anchor: EvidenceAnchor | undefined = test.status?.evidenceAnchor;
    const result = verifyReportChain(chain as unknown as SignedReport[], keys, anchor ? { anchor } : {});
    if (!anchor) violations.record('evidence-chain', `test ${test.metadata.name} has ${chain.length} reports but no status.evidenceAnchor`, `anchor ${test.metadata.name}`);
    if (result.ok) {
      verified += chain.length;
      continue;
    }
    for (const problem of result.problems.slice(0, PROBLEMS_PER_TEST)) {
      violations.record('evidence-chain', `test ${test.metadata.name}: ${problem}`);
    }
    if (result.problems.length > PROBLEMS_PER_TEST) {
      violations.record('evidence-chain', `test ${test.metadata.name}: ${result.problems.length - PROBLEMS_PER_TEST} more problems`);
    }
  }
  return { tests: tests.length, reports: reports.length, verified, keys: keys.size };
}
