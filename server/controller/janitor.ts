// Removes sandboxes nobody needs any more: kept sandboxes past their expiry, and orphans whose run
// is not the current run of an existing test (the server died mid-run, or the test was deleted).
// Works from labels alone, so it needs no memory of earlier processes. Also removes the backup
// tool's restore objects left behind by such runs.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  ANNOTATION_EXPIRES_AT,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  LABEL_TEST,
  LABEL_TEST_NAMESPACE,
  MANAGED_BY_VALUE,
  type RestoreTest,
} from '../domain/resources.js';
import { reportName } from '../domain/sandbox-names.js';
import { isKind, kubeCall } from '../kube/errors.js';
import type { RehearsalClient } from '../kube/rehearsal-client.js';
import type { RehearsalCache } from '../kube/rehearsal-cache.js';
import type { SandboxManager } from './sandbox.js';

export interface JanitorDeps {
  core: CoreV1Api;
  cache: RehearsalCache;
  client: RehearsalClient;
  sandboxes: SandboxManager;
  log: Logger;
  now: () => Date;
}

export interface SweepResult {
  deleted: string[];
  kept: string[];
}

export class Janitor {
  constructor(private readonly deps: JanitorDeps) {}

  async sweep(): Promise<SweepResult> {
    const result: SweepResult = { deleted: [], kept: [] };
    const namespaces = await kubeCall(() =>
      this.deps.core.listNamespace({ labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}` }),
    );
    const now = this.deps.now().getTime();
    for (const namespace of namespaces.items) {
      const meta = namespace.metadata ?? {};
      const name = meta.name ?? '';
      if (meta.deletionTimestamp) continue;
      const labels = meta.labels ?? {};
      const test = this.deps.cache.getTest(labels[LABEL_TEST_NAMESPACE] ?? '', labels[LABEL_TEST] ?? '');
      const runId = labels[LABEL_RUN] ?? '';
      const expiresAt = Date.parse(meta.annotations?.[ANNOTATION_EXPIRES_AT] ?? '');
      const reason = await this.removalReason(test, runId, Number.isFinite(expiresAt) && expiresAt <= now);
      if (!reason) {
        result.kept.push(name);
        continue;
      }
      try {
        await this.deps.sandboxes.delete(name);
        result.deleted.push(name);
        this.deps.log.info({ sandbox: name, reason }, 'removed sandbox');
      } catch (error) {
        this.deps.log.warn({ err: error, sandbox: name }, 'could not remove sandbox');
      }
    }
    return result;
  }

  /**
   * Why a sandbox should go, or undefined to keep it. The current run's sandbox stays (the engine
   * fails a run at its ttl and then releases it). A finished run's sandbox stays until its expiry
   * only when the run has a report (kept for inspection after partial/fail); a sandbox whose run
   * is neither current nor reported was abandoned.
   */
  private async removalReason(test: RestoreTest | undefined, runId: string, expired: boolean): Promise<string | undefined> {
    if (!test) return 'test deleted';
    if (test.status?.currentRun?.id === runId) return undefined;
    if (expired) return 'expired';
    return (await this.runWasReported(test, runId)) ? undefined : 'orphaned';
  }

  /** The cache may not have seen a report written a moment ago: ask the apiserver before deleting. */
  private async runWasReported(test: RestoreTest, runId: string): Promise<boolean> {
    const namespace = test.metadata.namespace ?? '';
    if (this.deps.cache.reportsOfTest(namespace, test.metadata.name).some((report) => report.spec.runId === runId)) {
      return true;
    }
    try {
      await this.deps.client.getReport(namespace, reportName(test.metadata.name, runId));
      return true;
    } catch (error) {
      if (isKind(error, 'NotFound')) return false;
      throw error;
    }
  }
}


