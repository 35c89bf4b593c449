// Reading and writing one backup tool's custom resources through the Kubernetes API, with the
// error rules every provider shares: the tool's API absent (404 on its collection) or the apiserver
// unreachable → ProviderUnavailable; a 404 on one object → undefined; Invalid on create →
// RestoreRejected; anything else (Forbidden, ...) stays a KubeError for the one error handler.
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { isKind, type KubeError, kubeCall } from '../kube/errors.js';
import { ProviderError } from './provider.js';

export type ProviderCustomObjectsApi = Pick<
  CustomObjectsApi,
  | 'listNamespacedCustomObject'
  | 'listClusterCustomObject'
  | 'getNamespacedCustomObject'
  | 'createNamespacedCustomObject'
  | 'deleteNamespacedCustomObject'
>;

export interface ResourceType {
  /** The tool's name in messages ("Kasten", "Trilio"). */
  tool: string;
  group: string;
  version: string;
  plural: string;
}

/** Stands for "every namespace" in the messages of listEverywhere(). */
const EVERY_NAMESPACE = '';

interface List<T> {
  items?: T[];
  metadata?: { continue?: string };
}

export class CustomResources<T> {
  constructor(
    private readonly api: ProviderCustomObjectsApi,
    private readonly type: ResourceType,
    private readonly pageSize = 250,
  ) {}

  private where(namespace: string) {
    return { group: this.type.group, version: this.type.version, plural: this.type.plural, namespace };
  }

  private unavailable(namespace: string, detail: string): ProviderError {
    const { tool, plural, group, version } = this.type;
    return new ProviderError(
      'ProviderUnavailable',
      `${tool} API ${plural}.${group}/${version} ${namespace === EVERY_NAMESPACE ? 'across namespaces' : `in namespace ${namespace}`} is unavailable: ${detail}`,
    );
  }

  private async call<R>(namespace: string, request: () => Promise<R>): Promise<R> {
    try {
      return await kubeCall(request);
    } catch (error) {
      if (isKind(error, 'Unavailable')) throw this.unavailable(namespace, (error as Error).message);
      throw error;
    }
  }

  async list(namespace: string): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      let page: List<T>;
      try {
        page = (await this.call(namespace, () =>
          this.api.listNamespacedCustomObject({
            ...this.where(namespace),
            limit: this.pageSize,
            ...(token ? { _continue: token } : {}),
          }),
        )) as List<T>;
      } catch (error) {
        if (isKind(error, 'NotFound')) throw this.unavailable(namespace, 'the cluster does not serve it');
        throw error;
      }
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
    } while (token);
    return items;
  }

  /**
   * The objects of every namespace (backup coverage: a tool that keeps its objects in the
   * application namespaces), paged like list().
   */
  async listEverywhere(): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      let page: List<T>;
      try {
        page = (await this.call(EVERY_NAMESPACE, () =>
          this.api.listClusterCustomObject({
            group: this.type.group,
            version: this.type.version,
            plural: this.type.plural,
            limit: this.pageSize,
            ...(token ? { _continue: token } : {}),
          }),
        )) as List<T>;
      } catch (error) {
        if (isKind(error, 'NotFound')) throw this.unavailable(EVERY_NAMESPACE, 'the cluster does not serve it');
        throw error;
      }
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
    } while (token);
    return items;
  }

  /** One object, or undefined when it does not exist (ProviderUnavailable when the API is absent). */
  async get(namespace: string, name: string): Promise<T | undefined> {
    try {
      return (await this.call(namespace, () =>
        this.api.getNamespacedCustomObject({ ...this.where(namespace), name }),
      )) as T;
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
    await this.list(namespace); // a 404 for the whole type throws ProviderUnavailable here
    return undefined;
  }

  /** Creates the object; an existing one of that name is returned instead (for the caller to vet). */
  async create(
    namespace: string,
    body: T & { metadata: { name: string } },
  ): Promise<{ created: boolean; object: T }> {
    try {
      const object = (await this.call(namespace, () =>
        this.api.createNamespacedCustomObject({ ...this.where(namespace), body }),
      )) as T;
      return { created: true, object };
    } catch (error) {
      if (isKind(error, 'AlreadyExists')) {
        const existing = await this.get(namespace, body.metadata.name);
        if (existing) return { created: false, object: existing };
        throw new ProviderError(
          'RestoreNotFound',
          `${this.type.tool} ${body.metadata.name} vanished while being adopted`,
        );
      }
      if (isKind(error, 'NotFound')) throw this.unavailable(namespace, (error as Error).message);
      if (isKind(error, 'Invalid')) {
        throw new ProviderError(
          'RestoreRejected',
          `Kubernetes rejected ${this.type.tool} ${this.type.plural} ${namespace}/${body.metadata.name}: ${(error as KubeError).message}`,
        );
      }
      throw error;
    }
  }

  async delete(namespace: string, name: string): Promise<void> {
    try {
      await this.call(namespace, () =>
        this.api.deleteNamespacedCustomObject({
          ...this.where(namespace),
          name,
          propagationPolicy: 'Background',
        }),
      );
    } catch (error) {
      if (isKind(error, 'NotFound')) return;
      throw error;
    }
  }
}
