// Gathers what decides a labelled namespace's fate (sandbox-verdict.ts decides): the namespaces
// carrying Rehearsal's sandbox label, the test each names (the cache proposes; a test the cache
// lacks is asked of the apiserver, so a test it has not seen yet is never taken for deleted) and,
// while the test exists, whether the run's RestoreReport lists the namespace. The janitor acts on
// the verdicts on the leader; the administrators' sandbox list and orphan removal use the same
// gatherer on any replica (server/app/sandbox-admin.ts), so both always agree.
import type { CoreV1Api, V1Namespace } from '@kubernetes/client-node';
import {
  LABEL_MANAGED_BY,
  MANAGED_BY_VALUE,
  type RestoreTest,
} from '../../domain/resources/resources.js';
import { reportName } from '../../domain/run/sandbox-names.js';
import {
  judgeSandbox,
  sandboxLabelsOf,
  type SandboxFacts,
  type SandboxOwner,
  type SandboxVerdict,
} from '../../domain/run/sandbox-verdict.js';
import { isKind, kubeCall } from '../../kube/errors.js';
import type { RehearsalCache } from '../../kube/rehearsal-cache.js';
import type { RehearsalClient } from '../../kube/rehearsal-client.js';

export interface SandboxInventoryDeps {
  core: Pick<CoreV1Api, 'listNamespace' | 'readNamespace'>;
  cache: Pick<RehearsalCache, 'getTest'>;
  client: Pick<RehearsalClient, 'getTest' | 'getReport'>;
  now: () => Date;
}

/** One labelled namespace: what was read, and the verdict on it. */
export interface JudgedSandbox {
  facts: SandboxFacts;
  /** The UID read with the facts: any delete carries it as a precondition. */
  uid: string;
  createdAt?: string;
  verdict: SandboxVerdict;
}

export class SandboxInventory {
  constructor(private readonly deps: SandboxInventoryDeps) {}

  /** Every namespace carrying the sandbox label, judged. */
  async list(): Promise<JudgedSandbox[]> {
    const namespaces = await kubeCall(() =>
      this.deps.core.listNamespace({ labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}` }),
    );
    const judged: JudgedSandbox[] = [];
    for (const namespace of namespaces.items) judged.push(await this.judge(namespace));
    return judged;
  }

  /** One namespace by name, judged; undefined when it does not exist. */
  async find(name: string): Promise<JudgedSandbox | undefined> {
    try {
      return await this.judge(await kubeCall(() => this.deps.core.readNamespace({ name })));
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  private async judge(namespace: V1Namespace): Promise<JudgedSandbox> {
    const meta = namespace.metadata ?? {};
    const facts: SandboxFacts = {
      name: meta.name ?? '',
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
      deleting: Boolean(meta.deletionTimestamp),
    };
    const { test: testName, testNamespace, run } = sandboxLabelsOf(facts.labels);
    const test = testName && testNamespace ? await this.currentTest(testNamespace, testName) : undefined;
    if (test) {
      facts.owner = ownerOf(test);
      facts.recorded = await this.reportLists(test, run, facts.name);
    }
    return {
      facts,
      uid: meta.uid ?? '',
      ...(meta.creationTimestamp ? { createdAt: new Date(meta.creationTimestamp).toISOString() } : {}),
      verdict: judgeSandbox(facts, this.deps.now()),
    };
  }

  private async currentTest(namespace: string, name: string): Promise<RestoreTest | undefined> {
    const cached = this.deps.cache.getTest(namespace, name);
    if (cached) return cached;
    try {
      return await this.deps.client.getTest(namespace, name);
    } catch (error) {
      if (isKind(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  /** The run's report lists the sandbox (read from the apiserver: the cache keeps summaries only). */
  private async reportLists(test: RestoreTest, runId: string, sandbox: string): Promise<boolean> {
    if (!/^[0-9a-z]{5}$/.test(runId) || test.status?.currentRun?.id === runId) return false;
    try {
      const report = await this.deps.client.getReport(test.metadata.namespace ?? '', reportName(test.metadata.name, runId));
      return report.spec.sandboxNamespaces.includes(sandbox);
    } catch (error) {
      if (isKind(error, 'NotFound')) return false;
      throw error;
    }
  }
}

function ownerOf(test: RestoreTest): SandboxOwner {
  const currentRunId = test.status?.currentRun?.id;
  return {
    uid: test.metadata.uid ?? '',
    namespacePrefix: test.spec.sandbox?.namespacePrefix ?? 'rehearsal',
    sourceCount: test.spec.backupSource.namespaces.length,
    ...(currentRunId ? { currentRunId } : {}),
  };
}
