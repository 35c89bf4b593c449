// The engine's half of decision 0018: before a run of a test restoring another namespace, ask the
// apiserver (SubjectAccessReview) whether the author recorded at admission still holds what
// admission required of them (restoreRequirements: `get secrets` in every source namespace, and
// `administer` where the spec needs it). The reviews are for the recorded user and groups only,
// so rights the author held through a group that was not recorded count as missing (fail closed).
// A review the apiserver refuses ends the run (AuthorCheckFailed); one that gets no answer at all
// (KubeError Unavailable: the apiserver restarting) is thrown, so the run waits and retries instead
// of failing for a reason that says nothing about the author (issue 31's soak).
import type { AuthorizationV1Api } from '@kubernetes/client-node';
import { restoreRequirements, type RestoreAdmissionSettings } from '../../domain/permissions/restore-permissions.js';
import { recordedAuthor, type AuthorFacts } from '../../domain/permissions/run-permission.js';
import type { RestoreTest } from '../../domain/resources/resources.js';
import { isKind, kubeCall } from '../../kube/errors.js';

export class AuthorReview {
  constructor(
    private readonly authorization: Pick<AuthorizationV1Api, 'createSubjectAccessReview'>,
    private readonly settings: RestoreAdmissionSettings,
  ) {}

  async review(test: RestoreTest): Promise<AuthorFacts> {
    const author = recordedAuthor(test.metadata.annotations);
    if (!author) return { state: 'not-recorded' };
    const { permissions } = restoreRequirements(test.metadata.namespace ?? '', test.spec, this.settings);
    try {
      const allowed = await Promise.all(
        permissions.map(async (permission) => {
          const review = await kubeCall(() =>
            this.authorization.createSubjectAccessReview({
              body: {
                apiVersion: 'authorization.k8s.io/v1',
                kind: 'SubjectAccessReview',
                spec: {
                  user: author.username,
                  groups: author.groups,
                  resourceAttributes: {
                    verb: permission.verb,
                    group: permission.group,
                    resource: permission.resource,
                    namespace: permission.namespace,
                  },
                },
              },
            }),
          );
          return review.status?.allowed === true && review.status.denied !== true;
        }),
      );
      return { state: 'reviewed', username: author.username, missing: permissions.filter((_permission, index) => !allowed[index]) };
    } catch (error) {
      if (isKind(error, 'Unavailable')) throw error;
      return { state: 'unavailable', message: (error as Error).message };
    }
  }
}
