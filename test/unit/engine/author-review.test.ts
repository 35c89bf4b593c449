// The engine's review of a test's recorded author (decision 0018): a review the apiserver refuses
// ends the run (state unavailable → AuthorCheckFailed), one that gets no answer at all is thrown,
// so the run waits and retries instead of failing for a cause that is not the author's
// (issue 31's soak: runs failed while the apiserver restarted).
import { describe, expect, it } from '@jest/globals';
import { AuthorReview } from '../../../server/engine/run/author-review.js';
import { isKind } from '../../../server/kube/errors.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';

const test = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreTest',
  metadata: { name: 'shop', namespace: 'team-a', annotations: { 'rehearsal.dev/author': 'alice', 'rehearsal.dev/author-groups': 'team-a-devs' } },
  spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] } },
} as unknown as RestoreTest;

function reviewWith(answer: (spec: { user: string; resourceAttributes: { namespace: string; verb: string } }) => Promise<boolean>) {
  const asked: string[] = [];
  const authorization = {
    createSubjectAccessReview: async ({ body }: { body: { spec: { user: string; resourceAttributes: { namespace: string; verb: string } } } }) => {
      asked.push(`${body.spec.user} ${body.spec.resourceAttributes.verb} ${body.spec.resourceAttributes.namespace}`);
      return { status: { allowed: await answer(body.spec) } };
    },
  };
  return { review: new AuthorReview(authorization as never, { providerNamespace: 'velero', maxSandboxTtlSeconds: 604_800 }), asked };
}

describe('AuthorReview', () => {
  it('reviews the recorded author for what admission required, and names what is missing', async () => {
    const { review, asked } = reviewWith(async () => false);
    const facts = await review.review(test);
    expect(asked).toContain('alice get shop');
    expect(facts).toMatchObject({ state: 'reviewed', username: 'alice' });
    expect(facts.state === 'reviewed' && facts.missing.map((permission) => `${permission.verb} ${permission.resource} ${permission.namespace}`)).toContain(
      'get secrets shop',
    );
  });

  it('an apiserver that refuses the review: unavailable, which ends the run (fail closed)', async () => {
    const { review } = reviewWith(async () => {
      throw { code: 403, body: { reason: 'Forbidden', message: 'subjectaccessreviews is forbidden' } };
    });
    await expect(review.review(test)).resolves.toEqual({ state: 'unavailable', message: 'subjectaccessreviews is forbidden' });
  });

  it.each([
    ['no answer', new Error('connect ECONNREFUSED 127.0.0.1:6443')],
    ['503', { code: 503, body: { message: 'the server is currently unable to handle the request' } }],
  ])('an apiserver that does not answer (%s): thrown, so the run step is retried', async (_label, failure) => {
    const { review } = reviewWith(async () => {
      throw failure;
    });
    const error = await review.review(test).catch((thrown: unknown) => thrown);
    expect(isKind(error, 'Unavailable')).toBe(true);
  });
});
