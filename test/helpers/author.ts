// Decision 0018: a RestoreTest restoring another namespace runs only with a recorded author, whom
// the admission policy checks against the writer. Tests that write RestoreTests as the cluster
// administrator record that administrator (user and groups, as the apiserver sees them).
import { AuthenticationV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { authorAnnotations } from '../../server/domain/permissions/run-permission.js';

const cache = new WeakMap<KubeConfig, Promise<Record<string, string>>>();

/** The author annotations of whoever `kubeConfig` authenticates as (asked once per config). */
export function authorAnnotationsOf(kubeConfig: KubeConfig): Promise<Record<string, string>> {
  let known = cache.get(kubeConfig);
  if (!known) {
    known = kubeConfig
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } })
      .then((review) => {
        const user = review.status?.userInfo;
        if (!user?.username) throw new Error('SelfSubjectReview named no user');
        return authorAnnotations({ username: user.username, groups: user.groups ?? [] });
      });
    cache.set(kubeConfig, known);
  }
  return known;
}

/** `test` with its writer recorded as its author. */
export async function authoredBy<T extends { metadata: { annotations?: Record<string, string> } }>(kubeConfig: KubeConfig, test: T): Promise<T> {
  const annotations = await authorAnnotationsOf(kubeConfig);
  return { ...test, metadata: { ...test.metadata, annotations: { ...test.metadata.annotations, ...annotations } } };
}

/** Records the writer of `kubeConfig` as the author of an existing test (merge patch of its annotations). */
export async function recordAuthor(kubeConfig: KubeConfig, namespace: string, name: string): Promise<void> {
  await kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: 'rehearsal.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'restoretests',
      name,
      body: { metadata: { annotations: await authorAnnotationsOf(kubeConfig) } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}
