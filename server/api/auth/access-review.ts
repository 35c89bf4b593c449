// The Kubernetes side of authentication and authorization (decision 0008): TokenReview says who a
// bearer token belongs to, SubjectAccessReview says whether that user may do something under
// RBAC. The API never interprets tokens itself, so every token kind the cluster accepts (service
// account tokens, OIDC id tokens, webhook tokens) works, and revocation is the cluster's.
import type { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import { kubeCall } from '../../kube/errors.js';
import type { PermissionDescriptor } from '../problem.js';

export interface ReviewedUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AccessDecision {
  allowed: boolean;
  /** The authorizer's explanation, when it gives one. */
  reason?: string;
}

export interface AccessReviewer {
  /** The token's user, or null when the cluster does not accept the token. */
  reviewToken(token: string): Promise<ReviewedUser | null>;
  reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<AccessDecision>;
}

export class KubeAccessReviewer implements AccessReviewer {
  /**
   * @param audiences What a token must be meant for (REHEARSAL_TOKEN_AUDIENCES, default
   *   rehearsal.dev): a token minted for Rehearsal (`kubectl create token SA --audience rehearsal.dev`)
   *   is refused by kube-apiserver, so one seen by Rehearsal cannot be replayed against the cluster;
   *   and a caller's cluster token is refused here. Empty = the apiserver's own audiences.
   */
  constructor(
    private readonly authentication: Pick<AuthenticationV1Api, 'createTokenReview'>,
    private readonly authorization: Pick<AuthorizationV1Api, 'createSubjectAccessReview'>,
    private readonly audiences: readonly string[] = [],
  ) {}

  async reviewToken(token: string): Promise<ReviewedUser | null> {
    const review = await kubeCall(() =>
      this.authentication.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, ...(this.audiences.length > 0 ? { audiences: [...this.audiences] } : {}) },
        },
      }),
    );
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) return null;
    // The apiserver answers with the audiences the token is valid for among those asked.
    if (this.audiences.length > 0 && !(status.audiences ?? []).some((audience) => this.audiences.includes(audience))) {
      return null;
    }
    return {
      username: status.user.username,
      ...(status.user.uid ? { uid: status.user.uid } : {}),
      groups: status.user.groups ?? [],
      ...(status.user.extra ? { extra: status.user.extra } : {}),
    };
  }

  /** A SubjectAccessReview on a non-resource URL (e.g. get /metrics, as kube-rbac-proxy asks). */
  async reviewNonResourceAccess(user: ReviewedUser, verb: string, path: string): Promise<AccessDecision> {
    const review = await kubeCall(() =>
      this.authorization.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups,
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: { verb, path },
          },
        },
      }),
    );
    const status = review.status;
    return { allowed: status?.allowed === true && status.denied !== true, ...(status?.reason ? { reason: status.reason } : {}) };
  }

  async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor): Promise<AccessDecision> {
    const review = await kubeCall(() =>
      this.authorization.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups,
            ...(user.extra ? { extra: user.extra } : {}),
            resourceAttributes: {
              verb: permission.verb,
              group: permission.group,
              resource: permission.resource,
              ...(permission.subresource ? { subresource: permission.subresource } : {}),
              ...(permission.namespace ? { namespace: permission.namespace } : {}),
              ...(permission.name ? { name: permission.name } : {}),
            },
          },
        },
      }),
    );
    const status = review.status;
    return {
      allowed: status?.allowed === true && status.denied !== true,
      ...(status?.reason ? { reason: status.reason } : {}),
    };
  }
}
