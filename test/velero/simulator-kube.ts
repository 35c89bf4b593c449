// The Velero simulator's access to the cluster (NOT VELERO; see simulator.ts): the velero.io
// objects of the namespace it serves, read and patched the way the Velero server does, and the
// namespaces a restore creates.
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { GROUP, statusCode, VERSION } from './simulator-model.js';

export class VeleroObjects {
  readonly core: CoreV1Api;
  readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  }

  /** Creates the namespace unless it exists (a restore target, or the Velero namespace itself). */
  async ensureNamespace(name: string, labels: Record<string, string>): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name, labels } } });
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
  }

  async list<T>(plural: string): Promise<T[]> {
    const list = (await this.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: this.namespace,
      plural,
    })) as { items?: T[] };
    return list.items ?? [];
  }

  async get<T>(plural: string, name: string): Promise<T | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: this.namespace,
        plural,
        name,
      })) as T;
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }

  /** Creates a velero.io object in the namespace (with metadata.generateName: Velero's per-volume objects); its name. */
  async create(plural: string, body: Record<string, unknown>): Promise<string> {
    const created = (await this.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: this.namespace,
      plural,
      body,
    })) as { metadata: { name: string } };
    return created.metadata.name;
  }

  /** Velero's v1 CRDs (Backup, Restore, PodVolumeRestore, ...) have no status subresource: status is merged into the object. */
  async patchStatus(plural: string, name: string, status: Record<string, unknown>): Promise<void> {
    await this.custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace: this.namespace, plural, name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
