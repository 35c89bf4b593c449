// Sandbox namespaces: where a run's restore lands. The only cluster-scoped objects Rehearsal ever
// creates are these namespaces, always labelled as its own (the only others it deletes are the PVs
// and snapshot contents a sandbox provisioned, once it is gone: sandbox-volumes.ts); everything
// else it creates lives inside them, including the one RoleBinding through which the checks read the sandbox (the server holds
// no cluster-wide read). Creation is idempotent so a step can be repeated, but a namespace is
// never adopted (decision 0009): an existing namespace of a sandbox's name counts as Rehearsal's
// only when its UID is the one recorded in the run's status or the one this process created, or
// when it carries this run's claim, signed by the installation's evidence key (sandbox-claim.ts:
// another replica created it and was killed before recording it). Anything else (someone
// pre-created the name, even with Rehearsal's labels) fails the run before anything is restored.
// A sandbox is never looser than its source: it is created with its Pod Security labels
// (enforce, audit, warn), so no restored Pod is ever admitted under a weaker profile.
// Nor can a run provision unbounded storage (issue 27): each sandbox gets the ResourceQuota
// rehearsal-sandbox-storage (the installation's limits), and create returns only once
// kube-controller-manager has synced it, so the restore requested next is counted against it.
import {
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Api,
  type NetworkingV1Api,
  type RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isKind, kubeCall } from '../../kube/errors.js';
import { deleteSandbox, type SandboxVolumeRecorder } from './sandbox-delete.js';
import { claimAnnotation, verifyClaim, type ClaimSubject, type SandboxClaimKeys } from './sandbox-claim.js';
import { DEFAULT_SANDBOX_DNS, strictPolicies, type SandboxDns } from './network-policy.js';
import {
  ANNOTATION_EXPIRES_AT,
  ANNOTATION_TEST_UID,
  LABEL_MANAGED_BY,
  LABEL_RUN,
  LABEL_SOURCE_NAMESPACE,
  LABEL_TEST,
  LABEL_TEST_NAMESPACE,
  MANAGED_BY_VALUE,
  type PodSecurityLevel,
  type RestoreTest,
} from '../../domain/resources/resources.js';
import { podSecurityLabels } from '../../domain/run/pod-security.js';
import {
  DEFAULT_SANDBOX_STORAGE_LIMITS,
  quotaSynced,
  SANDBOX_STORAGE_QUOTA_NAME,
  storageQuotaObject,
  type SandboxStorageQuota,
} from '../../domain/run/storage-quota.js';
import {
  BUILT_IN_CLUSTER_DEFAULTS,
  sandboxQuotaHard,
  storageQuotaLimit,
  type ClusterDefaults,
} from '../../domain/run/cluster-defaults.js';

/** The sandbox's CPU, memory and pod quota: the test's resourceQuota over the cluster defaults. */
export const SANDBOX_QUOTA_NAME = 'rehearsal-sandbox';

export interface SandboxPlan {
  test: RestoreTest;
  runId: string;
  entries: { source: string; sandbox: string }[];
  expiresAt: Date;
  /** Labels of the Rehearsal API pods: strict policies must still admit their probes. */
  proberPodLabels: Record<string, string>;
  /** Namespace of the Rehearsal API pods. */
  proberNamespace: string;
  /** sandbox name → UID recorded in the run's status by an earlier attempt of this step. */
  recordedUids?: Record<string, string>;
  /**
   * sandbox name → the Pod Security profile it enforces (pod-security.ts). On the namespace from
   * its creation, before anything is restored into it.
   */
  podSecurity: Record<string, PodSecurityLevel>;
}

/** One sandbox as created, with the UID to record in the run's status. */
export interface CreatedSandbox {
  source: string;
  sandbox: string;
  uid: string;
}

/** The ClusterRole the per-sandbox RoleBinding grants (deploy/base/rbac.yaml; bind is limited to it). */
export const SANDBOX_READER_ROLE = 'rehearsal-sandbox-reader';

/** A sandbox's name is taken by a namespace Rehearsal did not create: the run must fail. */
export class SandboxTakenError extends Error {
  readonly reason = 'SandboxNamespaceTaken';

  constructor(
    message: string,
    /** The run's sandboxes created before the taken one: recorded, so they are cleaned up. */
    readonly created: CreatedSandbox[],
  ) {
    super(message);
  }
}

/**
 * A sandbox's storage quota was not synced by kube-controller-manager in time: the restore is not
 * requested (it would escape the quota or lose its claims), and the run fails.
 */
export class SandboxQuotaNotSyncedError extends Error {
  readonly reason = 'SandboxQuotaNotSynced';

  constructor(
    message: string,
    /** The run's sandboxes, all created: recorded, so they are cleaned up. */
    readonly created: CreatedSandbox[],
  ) {
    super(message);
  }
}

/** How long create waits for kube-controller-manager to sync a new quota (usually well under a second). */
export const DEFAULT_QUOTA_SYNC = Object.freeze({ timeoutMs: 10_000, intervalMs: 100 });

export interface SandboxManagerOptions {
  core: CoreV1Api;
  networking: NetworkingV1Api;
  rbac: Pick<RbacAuthorizationV1Api, 'createNamespacedRoleBinding'>;
  /** Who the reader RoleBinding is for: the server's own ServiceAccount. */
  serviceAccount: { namespace: string; name: string };
  /** The cluster DNS that strict sandboxes may query (default: kube-system, k8s-app=kube-dns). */
  dns?: SandboxDns;
  /** The ResourceQuota of every sandbox (REHEARSAL_SANDBOX_STORAGE_QUOTA, REHEARSAL_SANDBOX_CLAIM_QUOTA). */
  storageQuota?: SandboxStorageQuota;
  /** The cluster-wide defaults in effect (watched): sandbox quota limits (issue 30); absent → built-in. */
  clusterDefaults?: () => Readonly<ClusterDefaults>;
  /** The bounded wait for the quota's status (default DEFAULT_QUOTA_SYNC). */
  quotaSync?: { timeoutMs: number; intervalMs: number };
  /** Records what a sandbox provisioned outside itself before it is deleted (sandbox-volumes.ts). */
  volumes?: SandboxVolumeRecorder;
  /** Signs each new sandbox's claim and verifies an unrecorded one's (absent: no claims, none recognised). */
  claims?: SandboxClaimKeys;
  /** Says when a sandbox is recognised by its claim (a take-over an SRE may want to see). */
  log?: Pick<Logger, 'info'>;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export function sandboxLabels(test: RestoreTest, runId: string): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_VALUE,
    [LABEL_TEST]: test.metadata.name,
    [LABEL_TEST_NAMESPACE]: test.metadata.namespace ?? '',
    [LABEL_RUN]: runId,
  };
}

function claimSubject(plan: SandboxPlan, sandbox: string): ClaimSubject {
  const { name, namespace, uid } = plan.test.metadata;
  return { sandbox, runId: plan.runId, testNamespace: namespace ?? '', testName: name, testUid: uid ?? '' };
}

export class SandboxManager {
  private readonly core: CoreV1Api;
  private readonly networking: NetworkingV1Api;
  /** Namespaces this process created (name → UID): a repeated step before status recorded them. */
  private readonly createdHere = new Map<string, string>();

  constructor(private readonly options: SandboxManagerOptions) {
    this.core = options.core;
    this.networking = options.networking;
  }

  /** Creates the run's sandboxes (or finds the ones it created); SandboxTakenError for a foreign one. */
  async create(plan: SandboxPlan): Promise<CreatedSandbox[]> {
    const labels = sandboxLabels(plan.test, plan.runId);
    const spec = plan.test.spec.sandbox ?? {};
    // Read once per run, so every sandbox of the run gets the same limits even if the ConfigMap changes meanwhile.
    const defaults = this.options.clusterDefaults?.() ?? BUILT_IN_CLUSTER_DEFAULTS;
    const installation = this.options.storageQuota ?? DEFAULT_SANDBOX_STORAGE_LIMITS;
    const storageLimits = { ...installation, storage: storageQuotaLimit(installation.storage, defaults) };
    const quotaHard = sandboxQuotaHard(spec.resourceQuota?.hard, defaults);
    const created: CreatedSandbox[] = [];
    const unplanned = plan.entries.find((entry) => !plan.podSecurity[entry.sandbox]);
    if (unplanned) throw new Error(`no Pod Security level planned for sandbox ${unplanned.sandbox}`);
    for (const { source, sandbox } of plan.entries) {
      const level = plan.podSecurity[sandbox]!;
      const uid = await this.claimNamespace(plan, created, sandbox, {
        name: sandbox,
        labels: { ...podSecurityLabels(level), ...labels, [LABEL_SOURCE_NAMESPACE]: source },
        annotations: {
          [ANNOTATION_EXPIRES_AT]: plan.expiresAt.toISOString(),
          // Which incarnation of the test: a test deleted and created again is another owner.
          ...(plan.test.metadata.uid ? { [ANNOTATION_TEST_UID]: plan.test.metadata.uid } : {}),
          ...claimAnnotation(this.options.claims, claimSubject(plan, sandbox)),
        },
      });
      created.push({ source, sandbox, uid });
      // First, before anything else is created in it, and before the restore is requested.
      await this.ignoreExisting(() =>
        this.core.createNamespacedResourceQuota({
          namespace: sandbox,
          body: storageQuotaObject(storageLimits, labels),
        }),
      );
      await this.ignoreExisting(() =>
        this.options.rbac.createNamespacedRoleBinding({
          namespace: sandbox,
          body: {
            metadata: { name: SANDBOX_READER_ROLE, labels },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SANDBOX_READER_ROLE },
            subjects: [{ kind: 'ServiceAccount', ...this.options.serviceAccount }],
          },
        }),
      );
      if ((spec.networkIsolation ?? 'strict') === 'strict') {
        const policies = strictPolicies({
          sandboxes: plan.entries.map((entry) => entry.sandbox),
          proberNamespace: plan.proberNamespace,
          proberPodLabels: plan.proberPodLabels,
          dns: this.options.dns ?? DEFAULT_SANDBOX_DNS,
          labels,
        });
        for (const policy of policies) {
          await this.ignoreExisting(() =>
            this.networking.createNamespacedNetworkPolicy({ namespace: sandbox, body: policy }),
          );
        }
      }
      // The test's own quota over the cluster's CPU, memory and pod limits, key by key (issue 30).
      if (quotaHard) {
        await this.ignoreExisting(() =>
          this.core.createNamespacedResourceQuota({
            namespace: sandbox,
            body: { metadata: { name: SANDBOX_QUOTA_NAME, labels }, spec: { hard: quotaHard } },
          }),
        );
      }
      if (spec.limitRange?.limits?.length) {
        await this.ignoreExisting(() =>
          this.core.createNamespacedLimitRange({
            namespace: sandbox,
            body: {
              metadata: { name: 'rehearsal-sandbox', labels },
              spec: { limits: spec.limitRange!.limits as never },
            },
          }),
        );
      }
    }
    await this.waitForStorageQuotas(created);
    return created;
  }

  /**
   * Waits (bounded) until kube-controller-manager has synced every sandbox's storage quota. It is
   * read through the sandbox's reader RoleBinding (created above): the server may read quotas in
   * its sandboxes only. A fresh binding may take a moment to reach the authorizer, so Forbidden
   * counts as "not yet" like NotFound, until the deadline.
   */
  private async waitForStorageQuotas(created: CreatedSandbox[]): Promise<void> {
    const { timeoutMs, intervalMs } = this.options.quotaSync ?? DEFAULT_QUOTA_SYNC;
    const now = this.options.now ?? Date.now;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const deadline = now() + timeoutMs;
    for (const { sandbox } of created) {
      let lastError = '';
      for (;;) {
        try {
          const quota = await kubeCall(() =>
            this.core.readNamespacedResourceQuota({ name: SANDBOX_STORAGE_QUOTA_NAME, namespace: sandbox }),
          );
          if (quotaSynced(quota as Parameters<typeof quotaSynced>[0])) break;
          lastError = 'its status has no usage yet';
        } catch (error) {
          if (!isKind(error, 'NotFound') && !isKind(error, 'Forbidden')) throw error;
          lastError = (error as Error).message;
        }
        if (now() >= deadline) {
          throw new SandboxQuotaNotSyncedError(
            `the storage quota ${SANDBOX_STORAGE_QUOTA_NAME} of sandbox ${sandbox} was not synced within ` +
              `${timeoutMs / 1000} s (${lastError}); is kube-controller-manager running its resourcequota ` +
              'controller? Nothing was restored',
            created,
          );
        }
        await sleep(intervalMs);
      }
    }
  }

  /** The UID of the sandbox namespace Rehearsal created, creating it now if needed. */
  private async claimNamespace(
    plan: SandboxPlan,
    created: CreatedSandbox[],
    sandbox: string,
    metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> },
  ): Promise<string> {
    try {
      const namespace = await kubeCall(() => this.core.createNamespace({ body: { metadata } }));
      const uid = namespace.metadata?.uid ?? '';
      this.createdHere.set(sandbox, uid);
      return uid;
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
    }
    const existing = await kubeCall(() => this.core.readNamespace({ name: sandbox }));
    const uid = existing.metadata?.uid ?? '';
    const known = uid !== '' && (plan.recordedUids?.[sandbox] === uid || this.createdHere.get(sandbox) === uid);
    // Created for this run by a replica that did not live to record it. The claim binds the name,
    // run and test UID; the labels must agree too (they are what the janitor reads).
    const claimed =
      !known &&
      uid !== '' &&
      verifyClaim(this.options.claims, existing.metadata?.annotations, claimSubject(plan, sandbox)) &&
      Object.entries(sandboxLabels(plan.test, plan.runId)).every(([key, value]) => existing.metadata?.labels?.[key] === value);
    if (claimed && !existing.metadata?.deletionTimestamp) {
      this.options.log?.info(
        { sandbox, uid, run: plan.runId, test: `${plan.test.metadata.namespace}/${plan.test.metadata.name}` },
        'sandbox recognised by its signed claim: an earlier leader created it for this run and stopped before recording it',
      );
      this.createdHere.set(sandbox, uid);
    }
    if (!(known || claimed) || existing.metadata?.deletionTimestamp) {
      throw new SandboxTakenError(
        `namespace "${sandbox}" already exists and Rehearsal did not create it for run ${plan.runId} ` +
          `(uid ${uid || 'unknown'}); nothing was restored into it`,
        created,
      );
    }
    return uid;
  }

  /** Marks when the janitor may remove a kept sandbox (after a partial or failed run). */
  async keepUntil(sandbox: string, expiresAt: Date): Promise<void> {
    try {
      await kubeCall(() =>
        this.core.patchNamespace(
          {
            name: sandbox,
            body: { metadata: { annotations: { [ANNOTATION_EXPIRES_AT]: expiresAt.toISOString() } } },
          },
          mergePatch,
        ),
      );
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }

  /** Deletes a sandbox namespace (deleteSandbox). */
  async delete(sandbox: string, expectedUid?: string): Promise<void> {
    await deleteSandbox(this.core, sandbox, expectedUid, this.options.volumes);
  }

  private async ignoreExisting(call: () => Promise<unknown>): Promise<void> {
    try {
      await kubeCall(call);
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
    }
  }
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
