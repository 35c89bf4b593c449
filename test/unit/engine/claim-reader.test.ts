// The engine's read of a run's claims (issue 27): each claim with its latest warning, the events
// read only when a claim is Pending, FailedBinding kept whatever its type (the PV controller writes
// one case as Normal), other Normal events never a warning, failures as KubeError.
import { describe, expect, it } from '@jest/globals';
import type { CoreV1Event, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { KubeClaimReader } from '../../../server/engine/run/claim-reader.js';
import { KubeError } from '../../../server/kube/errors.js';

const NS = 'rehearsal-shop-abc12';
const CREATED = new Date('2026-01-01T00:00:00Z');

function claim(name: string, uid: string, phase: string): V1PersistentVolumeClaim {
  return { metadata: { name, uid, creationTimestamp: CREATED }, spec: { storageClassName: '' }, status: { phase } };
}

function event(uid: string, type: string, reason: string, message: string, at: string, extra: Partial<CoreV1Event> = {}): CoreV1Event {
  return {
    metadata: { name: `${uid}.${reason}`, namespace: NS },
    involvedObject: { kind: 'PersistentVolumeClaim', uid },
    type,
    reason,
    message,
    lastTimestamp: new Date(at),
    ...extra,
  };
}

const NO_VOLUME = 'no persistent volumes available for this claim and no storage class is set';

function reader(claims: V1PersistentVolumeClaim[][], events: CoreV1Event[] = []) {
  const calls: unknown[] = [];
  const core = {
    listNamespacedPersistentVolumeClaim: async (request: { namespace: string; _continue?: string }) => {
      calls.push(['claims', request]);
      const page = request._continue ? Number(request._continue) : 0;
      return { items: claims[page] ?? [], metadata: page + 1 < claims.length ? { _continue: String(page + 1) } : {} };
    },
    listNamespacedEvent: async (request: { namespace: string; fieldSelector?: string }) => {
      calls.push(['events', request]);
      return { items: events, metadata: {} };
    },
  };
  return { claims: new KubeClaimReader(core as never), calls };
}

describe('KubeClaimReader', () => {
  it('lists the claims across pages, each Pending one with its latest warning', async () => {
    const { claims, calls } = reader(
      [[claim('data', 'uid-data', 'Pending'), claim('cache', 'uid-cache', 'Pending')], [claim('logs', 'uid-logs', 'Bound')]],
      [
        // The newest of the two, though the PV controller wrote it as Normal.
        event('uid-data', 'Normal', 'FailedBinding', NO_VOLUME, '2026-01-01T00:01:00Z'),
        event('uid-data', 'Warning', 'FailedBinding', 'volume "pvc-0d1c" already bound to a different claim.', '2026-01-01T00:00:30Z'),
        // A Normal WaitForFirstConsumer is no warning.
        event('uid-cache', 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding', '2026-01-01T00:02:00Z'),
        // A Bound claim's old warnings no longer matter.
        event('uid-logs', 'Warning', 'ProvisioningFailed', 'timeout', '2026-01-01T00:00:10Z'),
        // An event of a claim of that name deleted before (another uid) is not this claim's.
        event('uid-old-cache', 'Warning', 'ProvisioningFailed', 'storageclass.storage.k8s.io "gold" not found', '2026-01-01T00:03:00Z'),
      ],
    );
    expect(await claims.listClaims(NS)).toEqual([
      {
        namespace: NS,
        name: 'data',
        phase: 'Pending',
        createdAt: '2026-01-01T00:00:00.000Z',
        lastWarning: { reason: 'FailedBinding', message: NO_VOLUME, at: '2026-01-01T00:01:00.000Z' },
      },
      { namespace: NS, name: 'cache', phase: 'Pending', createdAt: '2026-01-01T00:00:00.000Z' },
      { namespace: NS, name: 'logs', phase: 'Bound', createdAt: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(calls).toEqual([
      ['claims', { namespace: NS, limit: 500 }],
      ['claims', { namespace: NS, limit: 500, _continue: '1' }],
      ['events', { namespace: NS, fieldSelector: 'involvedObject.kind=PersistentVolumeClaim', limit: 500 }],
    ]);
  });

  it('takes the time of an event from lastTimestamp, else its series, eventTime or creation', async () => {
    const { claims } = reader(
      [[claim('data', 'uid-data', 'Pending')]],
      [
        event('uid-data', 'Warning', 'ProvisioningFailed', 'older', '2026-01-01T00:01:00Z'),
        event('uid-data', 'Warning', 'ProvisioningFailed', 'newer, events.k8s.io series', '', {
          lastTimestamp: undefined,
          series: { count: 3, lastObservedTime: new Date('2026-01-01T00:05:00Z') },
        }),
      ],
    );
    const [observed] = await claims.listClaims(NS);
    expect(observed?.lastWarning).toEqual({ reason: 'ProvisioningFailed', message: 'newer, events.k8s.io series', at: '2026-01-01T00:05:00.000Z' });
  });

  it('reads no events when no claim is Pending', async () => {
    const { claims, calls } = reader([[claim('logs', 'uid-logs', 'Bound')]]);
    expect(await claims.listClaims(NS)).toEqual([{ namespace: NS, name: 'logs', phase: 'Bound', createdAt: '2026-01-01T00:00:00.000Z' }]);
    expect(calls).toEqual([['claims', { namespace: NS, limit: 500 }]]);
  });

  it('fails with a KubeError classified by status code', async () => {
    const core = {
      listNamespacedPersistentVolumeClaim: async () => {
        throw Object.assign(new Error('forbidden'), { code: 403, body: '{"message":"persistentvolumeclaims is forbidden"}' });
      },
      listNamespacedEvent: async () => ({ items: [] }),
    };
    const error = await new KubeClaimReader(core as never).listClaims(NS).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ kind: 'Forbidden', status: 403 });
  });
});
