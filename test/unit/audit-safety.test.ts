// The safety rule applied to audit events must be able to fail: these events break it.
import { describe, expect, it } from '@jest/globals';
import { secretReadsOutsideSandboxes, unsafeWrites, type AuditEvent } from '../helpers/audit.js';

function write(verb: string, resource: string, namespace?: string, name = 'x', subresource?: string): AuditEvent {
  return {
    verb,
    requestURI: `/${namespace ?? ''}/${resource}/${name}`,
    user: { username: 'system:serviceaccount:rehearsal-system:rehearsal' },
    objectRef: { resource, name, ...(namespace ? { namespace } : {}), ...(subresource ? { subresource } : {}) },
    stageTimestamp: '2026-11-22T00:00:00Z',
  };
}

const scope = {
  isSource: (namespace: string) => namespace === 'shop',
  isSandbox: (namespace: string) => namespace.startsWith('rehearsal-'),
  ownNamespace: 'rehearsal-system',
};

describe('unsafeWrites', () => {
  it('flags any write in a source namespace, even of an allowed kind', () => {
    const events = [write('create', 'events', 'shop'), write('patch', 'deployments', 'shop'), write('update', 'restoretests', 'shop', 't', 'status')];
    expect(unsafeWrites(events, scope)).toHaveLength(3);
  });

  it('flags cluster-scoped writes other than sandbox namespaces', () => {
    const events = [
      write('create', 'namespaces', undefined, 'rehearsal-web-ab12c'),
      write('delete', 'namespaces', undefined, 'shop'),
      write('create', 'clusterroles', undefined, 'admin'),
    ];
    expect(unsafeWrites(events, scope).map((event) => event.objectRef?.name)).toEqual(['shop', 'admin']);
  });

  it('allows Rehearsal its own objects, and anything inside sandboxes', () => {
    const events = [
      write('update', 'restoretests', 'team-a', 't', 'status'),
      write('create', 'restorereports', 'team-a'),
      write('create', 'events', 'team-a'),
      write('create', 'restores', 'velero'),
      write('update', 'leases', 'rehearsal-system'),
      write('create', 'secrets', 'rehearsal-system'),
      write('create', 'networkpolicies', 'rehearsal-web-ab12c'),
    ];
    expect(unsafeWrites(events, scope)).toEqual([]);
  });

  it('flags other kinds outside sandboxes (e.g. a NetworkPolicy or a Secret in a team namespace)', () => {
    const events = [write('create', 'networkpolicies', 'team-a'), write('create', 'secrets', 'team-a'), write('delete', 'pods', 'team-a')];
    expect(unsafeWrites(events, scope)).toHaveLength(3);
  });

  it('allows no ConfigMap write outside its own namespace and sandboxes: a diagnosis lives in the server\'s namespace', () => {
    expect(unsafeWrites([write('create', 'configmaps', 'rehearsal-system', 'team-a.shop-x1y2z.diagnosis')], scope)).toEqual([]);
    const events = [
      write('create', 'configmaps', 'team-a', 'shop-x1y2z-diagnosis'),
      write('update', 'configmaps', 'team-a', 'shop-x1y2z-diagnosis'),
      write('create', 'configmaps', 'team-a', 'app-config'),
      write('create', 'configmaps', 'shop', 'shop-x1y2z-diagnosis'),
    ];
    expect(unsafeWrites(events, scope)).toHaveLength(4);
  });

  it('allows creating and deleting a run\'s Velero resource modifiers beside its Restore, never in a source', () => {
    const allowed = [write('create', 'configmaps', 'velero', 'shop-x1y2z-transforms'), write('delete', 'configmaps', 'velero', 'shop-x1y2z-transforms')];
    expect(unsafeWrites(allowed, scope)).toEqual([]);
    const events = [write('update', 'configmaps', 'velero', 'shop-x1y2z-transforms'), write('create', 'configmaps', 'shop', 'shop-x1y2z-transforms')];
    expect(unsafeWrites(events, scope)).toHaveLength(2);
  });
});

describe('secretReadsOutsideSandboxes', () => {
  const sandboxes = { isSandbox: (namespace: string) => namespace === 'rehearsal-shop-abcde', ownNamespace: 'rehearsal-system' };
  const read = (verb: string, namespace: string | undefined, name?: string, uri?: string): AuditEvent => ({
    ...write(verb, 'secrets', namespace, name),
    objectRef: { resource: 'secrets', ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) },
    ...(uri ? { requestURI: uri } : {}),
  });

  it('flags reads in source namespaces, kube-system, cluster-wide lists and other Secrets of its own namespace', () => {
    const events = [
      read('get', 'shop', 'db'),
      read('get', 'kube-system', 'token'),
      read('list', undefined),
      read('watch', 'rehearsal-system', undefined, '/api/v1/namespaces/rehearsal-system/secrets?watch=true'),
      read('get', 'rehearsal-system', 'someone-elses'),
    ];
    expect(secretReadsOutsideSandboxes(events, sandboxes)).toHaveLength(5);
  });

  it('allows sandboxes and its own two Secrets, by name or by field selector', () => {
    const events = [
      read('get', 'rehearsal-shop-abcde', 'db'),
      read('get', 'rehearsal-system', 'rehearsal-license'),
      read('watch', 'rehearsal-system', undefined, '/api/v1/namespaces/rehearsal-system/secrets?fieldSelector=metadata.name%3Drehearsal-signing-key&watch=true'),
      write('create', 'secrets', 'shop'),
    ];
    expect(secretReadsOutsideSandboxes(events, sandboxes)).toEqual([]);
  });
});
