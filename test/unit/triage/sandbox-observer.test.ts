// The sandbox observer reads the logs spec.logCollection asks for (issue 30): which containers,
// init containers and previous instances, with the test's line count, against a fake CoreV1Api.
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { resolveLogCollection } from '../../../server/domain/run/log-collection.js';
import { SandboxObserver, type SandboxObserverOptions } from '../../../server/triage/sandbox-observer.js';

const SANDBOX = 'rehearsal-shop-x1y2z';

const crashLooping: V1Pod = {
  metadata: { namespace: SANDBOX, name: 'web-1' },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False' }],
    initContainerStatuses: [
      { name: 'migrate', image: 'i', imageID: '', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    ],
    containerStatuses: [
      {
        name: 'web',
        image: 'i',
        imageID: '',
        ready: false,
        restartCount: 3,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error' } },
      },
    ],
  },
};

const healthy: V1Pod = {
  metadata: { namespace: SANDBOX, name: 'api-1' },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'api', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
  },
};

type LogRead = { namespace: string; name: string; container?: string; tailLines?: number; previous?: boolean };

function observer(reads: LogRead[]): SandboxObserver {
  const empty = { items: [] };
  const core = {
    listNamespacedPod: async () => ({ items: [crashLooping, healthy] }),
    listNamespacedEvent: async () => empty,
    listNamespacedPersistentVolumeClaim: async () => empty,
    listNamespacedService: async () => empty,
    readNamespacedSecret: async () => ({}),
    readNamespacedResourceQuota: async () => {
      throw Object.assign(new Error('not found'), { code: 404 });
    },
    readNamespacedPodLog: async (request: LogRead) => {
      reads.push(request);
      return `${request.container}${request.previous ? ' previous' : ''} line 1\n${request.container} password=hunter2\n`;
    },
  };
  return new SandboxObserver({
    core: core as unknown as SandboxObserverOptions['core'],
    storage: { listStorageClass: async () => empty } as unknown as SandboxObserverOptions['storage'],
    logs: true,
  });
}

const describeRead = (read: LogRead) => `${read.name}/${read.container}${read.previous ? ' previous' : ''} tail ${read.tailLines}`;

describe('SandboxObserver logs (spec.logCollection)', () => {
  it('by default reads the failing container, its previous instance and the init container, 100 lines each', async () => {
    const reads: LogRead[] = [];
    const observation = await observer(reads).observe([{ source: 'shop', sandbox: SANDBOX }]);
    expect(reads.map(describeRead)).toEqual(['web-1/migrate tail 100', 'web-1/web tail 100', 'web-1/web previous tail 100']);
    expect(observation.logs.map((log) => [log.container, log.init ?? false, log.previous ?? false])).toEqual([
      ['migrate', true, false],
      ['web', false, false],
      ['web', false, true],
    ]);
    expect(observation.logs[2]!.lines).toEqual(['web previous line 1', 'web password=hunter2']);
  });

  it('containers all, no init, no previous, 7 lines: every current container', async () => {
    const reads: LogRead[] = [];
    const settings = resolveLogCollection({ containers: 'all', initContainers: false, previous: false, lines: 7 });
    await observer(reads).observe([{ source: 'shop', sandbox: SANDBOX }], settings);
    expect(reads.map(describeRead)).toEqual(['web-1/web tail 7', 'api-1/api tail 7']);
  });
});
