// The cluster-wide defaults in effect (issue 30): ConfigMap `rehearsal-cluster-defaults` in
// Rehearsal's namespace, watched (NamedObjectWatch, so RBAC grants that one name only), so an
// admin's change applies to the next run and the next API answer without a restart.
//
// Bad values never stop the server: the key keeps its last good value (domain/run/cluster-defaults.ts),
// a warning naming the key is logged once per change, and `onProblems` hands the bad keys to
// whoever exposes them (rehearsal_cluster_defaults_invalid{key} on /metrics). No ConfigMap at all is
// not a problem: the built-in defaults apply, as before the ConfigMap existed.
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  BUILT_IN_CLUSTER_DEFAULTS,
  CLUSTER_DEFAULTS_CONFIGMAP_NAME,
  parseClusterDefaults,
  type ClusterDefaults,
  type ClusterDefaultsProblem,
} from '../domain/run/cluster-defaults.js';
import { NamedObjectWatch } from './named-object-watch.js';

/** What the store needs from a watch of the ConfigMap (NamedObjectWatch; unit tests feed it by hand). */
export interface ConfigMapWatch {
  start(): Promise<void>;
  stop(): void;
}

export interface ClusterDefaultsWatchOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  log: Logger;
  /** Called after every change with the keys that are bad now (empty: all good). */
  onProblems?: (problems: readonly ClusterDefaultsProblem[]) => void;
  configMapName?: string;
  /** Replaces the ConfigMap watch (unit tests): gets the handler to call with each state. */
  watch?: (handler: (configMap: V1ConfigMap | undefined) => void) => ConfigMapWatch;
}

export class ClusterDefaultsWatch {
  private defaults: Readonly<ClusterDefaults> = BUILT_IN_CLUSTER_DEFAULTS;
  private problems: readonly ClusterDefaultsProblem[] = [];
  private readonly watch: ConfigMapWatch;
  private readonly configMapName: string;

  constructor(private readonly options: ClusterDefaultsWatchOptions) {
    this.configMapName = options.configMapName ?? CLUSTER_DEFAULTS_CONFIGMAP_NAME;
    const handler = (configMap: V1ConfigMap | undefined): void => this.onConfigMap(configMap);
    this.watch = options.watch
      ? options.watch(handler)
      : new NamedObjectWatch<V1ConfigMap>(
          options.kubeConfig,
          { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: options.namespace, name: this.configMapName },
          handler,
          options.log,
        );
  }

  /** Reads the ConfigMap once (resolves after the first attempt, found or not), then keeps watching. */
  start(): Promise<void> {
    return this.watch.start();
  }

  stop(): void {
    this.watch.stop();
  }

  /** The defaults in effect now. */
  current(): Readonly<ClusterDefaults> {
    return this.defaults;
  }

  /** The keys whose values are being ignored now. */
  currentProblems(): readonly ClusterDefaultsProblem[] {
    return this.problems;
  }

  private onConfigMap(configMap: V1ConfigMap | undefined): void {
    const { defaults, problems } = parseClusterDefaults(configMap?.data, this.defaults);
    const where = `ConfigMap ${this.options.namespace}/${this.configMapName}`;
    for (const problem of problems) {
      this.options.log.warn({ configMap: this.configMapName, key: problem.key }, `${where}: key ${problem.key}: ${problem.message}`);
    }
    if (JSON.stringify(defaults) !== JSON.stringify(this.defaults)) {
      this.options.log.info({ configMap: this.configMapName, defaults }, `${where}: cluster defaults changed`);
    }
    this.defaults = defaults;
    this.problems = problems;
    this.options.onProblems?.(problems);
  }
}
