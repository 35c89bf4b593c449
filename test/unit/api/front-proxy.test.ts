// Front-proxy authentication for the aggregated API: the request-header settings read from
// kube-system/extension-apiserver-authentication, who the headers name (only when the
// certificate verified and its name is allowed), and the authorizer using that user for its
// SubjectAccessReviews without a TokenReview.
import { describe, expect, it } from '@jest/globals';
import type { AccessReviewer, ReviewedUser } from '../../../server/api/auth/access-review.js';
import { RequestAuthorizer } from '../../../server/api/auth/authorizer.js';
import { authenticateFrontProxy, requestHeaderSettingsOf } from '../../../server/api/auth/front-proxy.js';
import { PermissionTable, RBAC_EXTENSION } from '../../../server/api/auth/permissions.js';
import { ProblemError, type PermissionDescriptor } from '../../../server/api/problem.js';

const configMapData = {
  'client-ca-file': 'CLIENT CA',
  'requestheader-client-ca-file': '-----BEGIN CERTIFICATE-----\nFRONT PROXY CA\n-----END CERTIFICATE-----\n',
  'requestheader-allowed-names': '["front-proxy-client"]',
  'requestheader-username-headers': '["X-Remote-User"]',
  'requestheader-uid-headers': '["X-Remote-Uid"]',
  'requestheader-group-headers': '["X-Remote-Group"]',
  'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
};
const settings = requestHeaderSettingsOf(configMapData)!;
const trusted = { verified: true, commonName: 'front-proxy-client' };
const headers = {
  'x-remote-user': ['jane'],
  'x-remote-uid': ['u-1'],
  'x-remote-group': ['devs', 'system:authenticated'],
  'x-remote-extra-scopes': ['a', 'b'],
  'x-remote-extra-acme.com%2fteam': ['dr'],
  authorization: ['Bearer ignored'],
};

describe('request-header settings', () => {
  it('reads the ConfigMap as kube-apiserver writes it', () => {
    expect(settings).toEqual({
      clientCa: '-----BEGIN CERTIFICATE-----\nFRONT PROXY CA\n-----END CERTIFICATE-----',
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: ['X-Remote-Uid'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    });
  });

  it('is absent without a request-header CA or username header (nothing is trusted)', () => {
    expect(requestHeaderSettingsOf(undefined)).toBeUndefined();
    expect(requestHeaderSettingsOf({ 'client-ca-file': 'x' })).toBeUndefined();
    expect(requestHeaderSettingsOf({ ...configMapData, 'requestheader-username-headers': '[]' })).toBeUndefined();
  });
});

describe('authenticateFrontProxy', () => {
  it('takes user, uid, groups and extras from a verified front proxy', () => {
    expect(authenticateFrontProxy(trusted, headers, settings)).toEqual({
      user: { username: 'jane', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'], 'acme.com/team': ['dr'] } },
    });
  });

  it('ignores the headers without a verified certificate, with another name, or without settings', () => {
    expect(authenticateFrontProxy({ verified: false, commonName: 'front-proxy-client' }, headers, settings)).toEqual({ rejected: 'no-verified-certificate' });
    expect(authenticateFrontProxy({ verified: true, commonName: 'test-admin' }, headers, settings)).toEqual({ rejected: 'name-not-allowed' });
    expect(authenticateFrontProxy({ verified: true, commonName: undefined }, headers, settings)).toEqual({ rejected: 'name-not-allowed' });
    expect(authenticateFrontProxy(trusted, headers, undefined)).toEqual({ rejected: 'not-configured' });
    expect(authenticateFrontProxy(trusted, { 'x-remote-group': ['devs'] }, settings)).toEqual({ rejected: 'no-user' });
  });

  it('accepts any name the CA signed when no names are listed (as kube-apiserver does)', () => {
    const anyName = { ...settings, allowedNames: [] };
    expect(authenticateFrontProxy({ verified: true, commonName: 'aggregator' }, { 'x-remote-user': ['jane'] }, anyName)).toEqual({
      user: { username: 'jane', groups: [] },
    });
  });
});

describe('RequestAuthorizer with a front-proxy user', () => {
  const document = {
    paths: {
      '/api/v1/tests': {
        post: {
          operationId: 'createTest',
          security: [{ kubernetes: [] }],
          [RBAC_EXTENSION]: [{ verb: 'create', group: 'rehearsal.dev', resource: 'restoretests', scope: 'namespace' }],
        },
      },
    },
  };
  class Reviewer implements AccessReviewer {
    tokens: string[] = [];
    reviews: [ReviewedUser, PermissionDescriptor][] = [];
    async reviewToken(token: string): Promise<ReviewedUser | null> {
      this.tokens.push(token);
      return null;
    }
    async reviewAccess(user: ReviewedUser, permission: PermissionDescriptor) {
      this.reviews.push([user, permission]);
      return { allowed: user.username === 'editor' };
    }
  }
  const ask = (authorizer: RequestAuthorizer, user: ReviewedUser) =>
    authorizer.authorize({
      method: 'POST',
      routePath: '/api/v1/tests',
      authorization: undefined,
      frontProxyUser: user,
      query: {},
      params: {},
      namespace: 'team-a',
    });

  it('reviews access for that user, with no TokenReview, and caches per user', async () => {
    const reviewer = new Reviewer();
    const authorizer = new RequestAuthorizer({
      mode: 'kubernetes',
      reviewer,
      permissions: new PermissionTable(document),
      defaults: { namespace: 'rehearsal-system', veleroNamespace: 'velero', backupTool: 'velero' as const },
    });
    const editor = { username: 'editor', groups: ['devs'], extra: { scopes: ['x'] } };
    await expect(ask(authorizer, editor)).resolves.toEqual(editor); // extra travels on, for the caller's SubjectAccessReviews
    await ask(authorizer, editor);
    expect(reviewer.tokens).toEqual([]);
    expect(reviewer.reviews).toEqual([[editor, { verb: 'create', group: 'rehearsal.dev', resource: 'restoretests', namespace: 'team-a' }]]);
    const denied = await ask(authorizer, { username: 'viewer', groups: [] }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(ProblemError);
    expect((denied as ProblemError).detail).toBe('User "viewer" cannot create restoretests.rehearsal.dev in namespace "team-a".');
  });
});
