// Velero Restores followed by watch instead of a GET per poll: one informer per Velero namespace a
// test uses (started on first use), holding only the Restores Rehearsal made (its managed-by
// label) and of each only what progress needs. Every change wakes the run that owns the Restore
// (its test labels), so a restore's progress is driven by watch events; the run's slower requeue
// stays as a safety net. RBAC: list/watch of restores in those namespaces (rehearsal-velero).
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { LABEL_MANAGED_BY, LABEL_TEST, LABEL_TEST_NAMESPACE, MANAGED_BY_VALUE } from '../../domain/resources/resources.js';
import { ResilientInformer, type InformerMetrics } from '../../kube/informer.js';
import { RESTORES, VELERO_VERSION, type VeleroRestore } from './velero-types.js';

/** What the provider may ask: the cached Restore, or "not known here" (then it reads the API). */
export interface RestoreLookup {
  cachedRestore(namespace: string, name: string): VeleroRestore | undefined;
  follow(namespace: string): void;
}

export interface RestoreWatchOptions {
  group: string;
  /** Called with the owning test's key ("namespace/name") on every change of one of its Restores. */
  onChange: (testKey: string) => void;
  log: Logger;
  metrics?: InformerMetrics;
}

function project(object: KubernetesObject): VeleroRestore {
  const restore = object as VeleroRestore;
  return {
    metadata: {
      name: restore.metadata.name,
      ...(restore.metadata.namespace ? { namespace: restore.metadata.namespace } : {}),
      ...(restore.metadata.labels ? { labels: restore.metadata.labels } : {}),
    },
    // The backup's name: an ended restore's volume rows depend on what its backup took.
    ...(restore.spec?.backupName ? { spec: { backupName: restore.spec.backupName } } : {}),
    ...(restore.status ? { status: restore.status } : {}),
  };
}

export class VeleroRestoreWatch implements RestoreLookup {
  private readonly informers = new Map<string, ResilientInformer<VeleroRestore>>();
  private stopped = false;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly options: RestoreWatchOptions,
  ) {}

  /** Starts following a namespace's Restores (idempotent); the cache answers once it has synced. */
  follow(namespace: string): void {
    if (this.stopped || this.informers.has(namespace)) return;
    const informer = new ResilientInformer<VeleroRestore>(
      this.kubeConfig,
      {
        name: `velero-restores/${namespace}`,
        apiVersion: `${this.options.group}/${VELERO_VERSION}`,
        kind: 'Restore',
        collectionPath: `/apis/${this.options.group}/${VELERO_VERSION}/namespaces/${namespace}/${RESTORES}`,
        namespace,
        labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`,
        project,
      },
      this.options.log,
      this.options.metrics,
    );
    informer.onChange((_event, _key, current, previous) => {
      const labels = (current ?? previous)?.metadata.labels ?? {};
      const test = labels[LABEL_TEST];
      const testNamespace = labels[LABEL_TEST_NAMESPACE];
      if (test && testNamespace) this.options.onChange(`${testNamespace}/${test}`);
    });
    this.informers.set(namespace, informer);
    void informer.start();
  }

  cachedRestore(namespace: string, name: string): VeleroRestore | undefined {
    const informer = this.informers.get(namespace);
    if (!informer) {
      this.follow(namespace);
      return undefined;
    }
    return informer.hasSynced ? informer.get(`${namespace}/${name}`) : undefined;
  }

  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
    this.informers.clear();
  }
}
