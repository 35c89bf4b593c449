// The cluster as the pre-flight check sees it now (issue 32): which kinds are served (discovery,
// asked afresh each time, so a CRD deleted since is noticed), the StorageClasses and the default
// one, the images on the nodes, and the sandbox quotas a run of the test would get. Reads only;
// nodes and StorageClasses are cluster-scoped lists that hold no data (deploy/base/rbac.yaml).
import type { CoreV1Api, KubeConfig, StorageV1Api } from '@kubernetes/client-node';
import { nodeImageNames } from '../../domain/preflight/image-names.js';
import type { ClusterFacts } from '../../domain/preflight/preflight-checks.js';
import { sandboxQuotaHard, storageQuotaLimit, type ClusterDefaults } from '../../domain/run/cluster-defaults.js';
import type { SandboxStorageQuota } from '../../domain/run/storage-quota.js';
import type { RestoreTest } from '../../domain/resources/resources.js';
import { DiscoveringObjectApi } from '../../kube/discovering-object-api.js';
import { isKind, kubeCall, toKubeError } from '../../kube/errors.js';

const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

export interface ClusterFactsOptions {
  kubeConfig: KubeConfig;
  core: Pick<CoreV1Api, 'listNode'>;
  storage: Pick<StorageV1Api, 'listStorageClass'>;
  storageQuota: SandboxStorageQuota;
  clusterDefaults: () => Readonly<ClusterDefaults>;
  /** Whether images are looked up on the nodes (REHEARSAL_PREFLIGHT_IMAGES, default on). */
  checkImages: boolean;
}

export class KubeClusterFacts {
  constructor(private readonly options: ClusterFactsOptions) {}

  /** The facts for `test`, with discovery answered for exactly `kinds`. */
  async read(test: RestoreTest, kinds: readonly { apiVersion: string; kind: string }[]): Promise<ClusterFacts> {
    const { options } = this;
    const [served, classes, nodeImages] = await Promise.all([
      this.servedKinds(kinds),
      kubeCall(() => options.storage.listStorageClass({})),
      options.checkImages ? kubeCall(() => options.core.listNode({})).then((nodes) => nodeImageNames(nodes.items.flatMap((node) => node.status?.images ?? []))) : undefined,
    ]);
    const defaults = options.clusterDefaults();
    const defaultClass = classes.items.find((item) =>
      DEFAULT_CLASS_ANNOTATIONS.some((annotation) => item.metadata?.annotations?.[annotation] === 'true'),
    );
    const hard = sandboxQuotaHard(test.spec.sandbox?.resourceQuota?.hard, defaults);
    return {
      serves: (apiVersion, kind) => served.has(`${apiVersion} ${kind}`),
      storageClasses: new Set(classes.items.map((item) => item.metadata?.name ?? '').filter(Boolean)),
      ...(defaultClass?.metadata?.name ? { defaultStorageClass: defaultClass.metadata.name } : {}),
      ...(nodeImages ? { nodeImages } : {}),
      quota: {
        storage: storageQuotaLimit(options.storageQuota.storage, defaults),
        claims: options.storageQuota.claims,
        ...(hard ? { hard } : {}),
      },
    };
  }

  /** "apiVersion kind" of each kind the cluster serves; one discovery client per look (its cache never expires). */
  private async servedKinds(kinds: readonly { apiVersion: string; kind: string }[]): Promise<Set<string>> {
    const discovery = this.options.kubeConfig.makeApiClient(DiscoveringObjectApi);
    const served = new Set<string>();
    for (const { apiVersion, kind } of kinds) {
      const key = `${apiVersion} ${kind}`;
      if (served.has(key)) continue;
      try {
        if (await discovery.findResource(apiVersion, kind)) served.add(key);
      } catch (error) {
        // Discovery answers 404 when the group/version is not served at all.
        const mapped = toKubeError(error);
        if (!isKind(mapped, 'NotFound')) throw mapped;
      }
    }
    return served;
  }
}
