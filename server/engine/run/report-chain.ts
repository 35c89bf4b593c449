// The previous report of a run's evidence chain, and the test's report history, read once when the
// run's report is about to be written (the signer chains to the first, prune trims the second).
//
// The chain must link to the newest report the apiserver has: a link to an older one forks the
// chain, and a fork reads as tampering to an auditor. The informer cache usually has that report,
// and the test object the run holds says which one it is: status.lastReport. The run reconciler
// sets lastReport in the same write that ends a run (and removes currentRun); the next run can only
// be queued by a write based on an object without currentRun (its resourceVersion guards it), so
// every version of the test that holds this run names, in lastReport, the newest report before it —
// no other report of the test is created meanwhile. When the cache's newest report is that one,
// the cache is current for this test. Otherwise (a cache that has not seen the last report yet, a
// test's first run, a lastReport deleted by hand) the apiserver is asked, which is what the signer
// used to do on every run: the same guarantee, and a LIST only when the cache cannot be shown current.
import type { Logger } from 'pino';
import type { CurrentRun, RestoreTest } from '../../domain/resources/resources.js';
import { reportName } from '../../domain/run/sandbox-names.js';
import { previousInChain, type ChainSlot } from '../../evidence/report-signer.js';
import type { RehearsalCache } from '../../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';
import type { ReportChain } from './run-gatherer.js';

export interface ReportChainDeps {
  cache: Pick<RehearsalCache, 'reportsOfTest' | 'getReport'>;
  client: Pick<RehearsalClient, 'listReportsOfTest'>;
  log: Logger;
}

export async function readReportChain(deps: ReportChainDeps, test: RestoreTest, run: CurrentRun): Promise<ReportChain> {
  const namespace = test.metadata.namespace ?? '';
  const slot: ChainSlot = {
    name: reportName(test.metadata.name, run.id),
    test: test.metadata.name,
    uid: test.metadata.uid || undefined,
    startedAt: run.startedAt ?? run.queuedAt,
  };
  const history = deps.cache
    .reportsOfTest(namespace, test.metadata.name)
    .map((summary) => summary.metadata.name)
    .filter((name) => name !== slot.name);
  const newest = history.at(-1);
  const lastReport = test.status?.lastReport;
  if (newest !== undefined && newest === lastReport) {
    // The summary has no evidence: the whole report carries the digest to chain to.
    const cached = deps.cache.getReport(namespace, newest);
    const previous = cached && previousInChain(slot, [cached]);
    if (previous) return { previous, history };
  }
  const previous = previousInChain(slot, await deps.client.listReportsOfTest(namespace, test.metadata.name));
  if (previous && previous.metadata.name !== newest) {
    deps.log.info(
      { test: `${namespace}/${test.metadata.name}`, cached: newest, live: previous.metadata.name },
      'the cache was behind: chaining to the newest report the apiserver has',
    );
  }
  return { previous, history };
}
