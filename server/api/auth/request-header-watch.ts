// The cluster's front-proxy trust (ConfigMap kube-system/extension-apiserver-authentication,
// published by kube-apiserver), watched by name so a rotated request-header CA takes effect
// without a restart. Reading it needs the kube-system Role extension-apiserver-authentication-reader
// (deploy/base/rbac.yaml binds it), which grants get/list/watch on that one ConfigMap.
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  REQUEST_HEADER_CONFIGMAP,
  requestHeaderSettingsOf,
  type RequestHeaderSettings,
} from './front-proxy.js';
import { NamedObjectWatch } from '../../kube/named-object-watch.js';

export class RequestHeaderWatch {
  private settings: RequestHeaderSettings | undefined;
  private readonly listeners: ((settings: RequestHeaderSettings | undefined) => void)[] = [];
  private readonly watch: NamedObjectWatch<V1ConfigMap>;

  constructor(kubeConfig: KubeConfig, private readonly log: Logger) {
    this.watch = new NamedObjectWatch<V1ConfigMap>(
      kubeConfig,
      { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', ...REQUEST_HEADER_CONFIGMAP },
      (configMap) => this.update(configMap),
      log,
    );
  }

  current(): RequestHeaderSettings | undefined {
    return this.settings;
  }

  onChange(listener: (settings: RequestHeaderSettings | undefined) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves after the first read attempt (failures keep retrying in the background). */
  start(): Promise<void> {
    return this.watch.start();
  }

  stop(): void {
    this.watch.stop();
  }

  private update(configMap: V1ConfigMap | undefined): void {
    this.settings = requestHeaderSettingsOf(configMap?.data);
    if (this.settings) {
      this.log.info(
        { allowedNames: this.settings.allowedNames, usernameHeaders: this.settings.usernameHeaders },
        'front-proxy (request-header) authentication configured',
      );
    } else {
      this.log.warn(
        `${REQUEST_HEADER_CONFIGMAP.namespace}/${REQUEST_HEADER_CONFIGMAP.name} names no request-header CA: the aggregation port trusts no request`,
      );
    }
    for (const listener of this.listeners) listener(this.settings);
  }
}
