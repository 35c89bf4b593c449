// Removes sandboxes nobody needs any more: kept sandboxes past their expiry. Labels alone never
// suffice (decision 0009: anyone who may label a namespace could add Rehearsal's): a namespace is
// deleted only when its labels, its name (the sandbox pattern of the labelled run) and a record
// Rehearsal wrote (the test's current run with the namespace's UID, or the run's RestoreReport)
// all agree. Needs no memory of earlier processes. A sandbox no record vouches for (its test was
// deleted, or a crash came between creating it and recording it) is left alone and logged.
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
} from '../../domain/resources/resources.js';
import { reportName, sandboxNamespaceName } from '../../domain/run/sandbox-names.js';
import { isKind, kubeCall } from '../../kube/errors.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';
import type { RehearsalCache } from '../../kube/rehearsal-cache.js';
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
  /** Namespaces already reported as unvouched: a warning once, not at every sweep. */
  private readonly warned = new Set<string>();

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
      const runId = labels[LABEL_RUN] ?? '';
      const test = this.deps.cache.getTest(labels[LABEL_TEST_NAMESPACE] ?? '', labels[LABEL_TEST] ?? '');
      const expiresAt = Date.parse(meta.annotations?.[ANNOTATION_EXPIRES_AT] ?? '');
      const verdict = await this.verdict(name, test, runId, Number.isFinite(expiresAt) && expiresAt <= now);
      if (verdict.action === 'keep') {
        if (verdict.unvouched && !this.warned.has(name)) {
          this.warned.add(name);
          this.deps.log.warn({ sandbox: name, reason: verdict.reason }, 'not deleting a namespace no record vouches for');
        }
        result.kept.push(name);
        continue;
      }
      try {
        await this.deps.sandboxes.delete(name, meta.uid);
        result.deleted.push(name);
        this.deps.log.info({ sandbox: name, reason: verdict.reason }, 'removed sandbox');
      } catch (error) {
        this.deps.log.warn({ err: error, sandbox: name }, 'could not remove sandbox');
      }
    }
    return result;
  }

  /**
   * Delete or keep. The current run's sandboxes stay (the engine fails a run at its ttl and then
   * releases them); a finished run's sandbox goes once expired, if its report lists it.
   */
  private async verdict(
    name: string,
    test: RestoreTest | undefined,
    runId: string,
    expired: boolean,
  ): Promise<{ action: 'delete' | 'keep'; reason: string; unvouched?: boolean }> {
    if (!test) return { action: 'keep', reason: 'its test does not exist', unvouched: true };
    if (!matchesSandboxPattern(name, test, runId)) {
      return { action: 'keep', reason: `the name does not match the sandbox names of run ${runId}`, unvouched: true };
    }
    const current = test.status?.currentRun;
    if (current?.id === runId) return { action: 'keep', reason: 'its run is in progress' };
    if (!(await this.runRecorded(test, runId, name))) {
      return { action: 'keep', reason: `no report of run ${runId} lists it`, unvouched: true };
    }
    // The UID is checked at deletion: the delete carries it as a precondition.
    return expired ? { action: 'delete', reason: 'expired' } : { action: 'keep', reason: 'kept for inspection until its expiry' };
  }

  /** The run's report lists the sandbox (read from the apiserver: the cache keeps summaries only). */
  private async runRecorded(test: RestoreTest, runId: string, sandbox: string): Promise<boolean> {
    const namespace = test.metadata.namespace ?? '';
    try {
      const report = await this.deps.client.getReport(namespace, reportName(test.metadata.name, runId));
      return report.spec.sandboxNamespaces.includes(sandbox);
    } catch (error) {
      if (isKind(error, 'NotFound')) return false;
      throw error;
    }
  }
}

/** `<prefix>-<test>-<runId>` or `...-<runId>-<n>` with the test's own prefix (sandbox-names.ts). */
function matchesSandboxPattern(name: string, test: RestoreTest, runId: string): boolean {
  if (!/^[0-9a-z]{5}$/.test(runId)) return false;
  const prefix = test.spec.sandbox?.namespacePrefix ?? 'rehearsal';
  const count = Math.max(1, test.spec.backupSource.namespaces.length);
  for (let index = 0; index < count; index += 1) {
    if (name === sandboxNamespaceName(prefix, test.metadata.name, runId, count > 1 ? index : 0)) return true;
  }
  return false;
}
