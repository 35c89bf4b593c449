// KubernetesObjectApi with its discovery lookup made callable (it is protected upstream): which
// resource serves a kind at an apiVersion. The lookup is cached per instance for the instance's
// life, so a reader that must notice a CRD going away makes a new one per look.
import { KubernetesObjectApi, type V1APIResource } from '@kubernetes/client-node';

export class DiscoveringObjectApi extends KubernetesObjectApi {
  /** The resource, undefined when the group/version is served without the kind; throws 404 when the group/version is not served. */
  findResource(apiVersion: string, kind: string): Promise<V1APIResource | undefined> {
    return this.resource(apiVersion, kind);
  }
}
