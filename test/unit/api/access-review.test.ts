// KubeAccessReviewer: the TokenReview and SubjectAccessReview bodies it sends, how it reads the
// answers, and that apiserver failures become typed KubeErrors (status code, not message text).
import { describe, expect, it } from '@jest/globals';
import { KubeAccessReviewer } from '../../../server/api/auth/access-review.js';
import { KubeError } from '../../../server/kube/errors.js';

type Body = { body: Record<string, unknown> };

function reviewer(tokenAnswer: unknown, accessAnswer: unknown, audiences: string[] = []) {
  const sent: { token?: Body; access?: Body } = {};
  const instance = new KubeAccessReviewer(
    {
      createTokenReview: (async (param: Body) => {
        sent.token = param;
        if (tokenAnswer instanceof Error) throw tokenAnswer;
        return tokenAnswer;
      }) as never,
    },
    {
      createSubjectAccessReview: (async (param: Body) => {
        sent.access = param;
        return accessAnswer;
      }) as never,
    },
    audiences,
  );
  return { instance, sent };
}

describe('KubeAccessReviewer', () => {
  it('sends a TokenReview and returns the user', async () => {
    const { instance, sent } = reviewer(
      {
        status: {
          authenticated: true,
          user: { username: 'alice', uid: 'u1', groups: ['devs'], extra: { scopes: ['a'] } },
        },
      },
      {},
    );
    await expect(instance.reviewToken('t0ken')).resolves.toEqual({
      username: 'alice',
      uid: 'u1',
      groups: ['devs'],
      extra: { scopes: ['a'] },
    });
    expect(sent.token!.body).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't0ken' },
    });
  });

  it('asks for its audiences and refuses a token the apiserver does not vouch for them', async () => {
    const user = { username: 'alice', groups: [] };
    const meant = reviewer({ status: { authenticated: true, user, audiences: ['rehearsal.dev'] } }, {}, ['rehearsal.dev']);
    await expect(meant.instance.reviewToken('t')).resolves.toEqual(user);
    expect(meant.sent.token!.body).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't', audiences: ['rehearsal.dev'] },
    });
    const other = reviewer({ status: { authenticated: true, user, audiences: ['https://kubernetes.default.svc'] } }, {}, ['rehearsal.dev']);
    await expect(other.instance.reviewToken('t')).resolves.toBeNull();
  });

  it.each([
    [{ status: { authenticated: false, error: 'expired' } }],
    [{ status: { authenticated: true, user: {} } }],
    [{}],
  ])('returns null for %j', async (answer) => {
    await expect(reviewer(answer, {}).instance.reviewToken('x')).resolves.toBeNull();
  });

  it('turns an unreachable apiserver into KubeError Unavailable', async () => {
    const { instance } = reviewer(
      Object.assign(new Error('connect ECONNREFUSED'), { code: 503, body: '{}' }),
      {},
    );
    await expect(instance.reviewToken('x')).rejects.toBeInstanceOf(KubeError);
    await expect(instance.reviewToken('x')).rejects.toMatchObject({ kind: 'Unavailable' });
  });

  it('sends a SubjectAccessReview with the user and resource attributes', async () => {
    const { instance, sent } = reviewer(
      {},
      { status: { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding' } },
    );
    const decision = await instance.reviewAccess(
      { username: 'alice', uid: 'u1', groups: ['devs'] },
      {
        verb: 'create',
        group: 'rehearsal.dev',
        resource: 'restoretests',
        subresource: 'trigger',
        namespace: 'ns',
        name: 'payments',
      },
    );
    expect(decision).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding' });
    expect(sent.access!.body).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u1',
        groups: ['devs'],
        resourceAttributes: {
          verb: 'create',
          group: 'rehearsal.dev',
          resource: 'restoretests',
          subresource: 'trigger',
          namespace: 'ns',
          name: 'payments',
        },
      },
    });
  });

  it.each([
    [{ status: { allowed: false } }, false],
    [{ status: { allowed: true, denied: true } }, false],
    [{}, false],
  ])('reads %j as allowed=%p', async (answer, allowed) => {
    const { instance } = reviewer({}, answer);
    const decision = await instance.reviewAccess(
      { username: 'a', groups: [] },
      { verb: 'list', group: 'g', resource: 'r' },
    );
    expect(decision.allowed).toBe(allowed);
  });
});
