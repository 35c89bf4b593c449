// The Kasten and Trilio simulators' volume statuses read back by the providers, without a cluster:
// what test/trilio/simulator.ts writes for the backup's claims is what
// server/providers/trilio/trilio-volume-restores.ts maps, and a volume the Kasten simulator fails
// is Kasten's documented action-level error. The same simulators run on a real apiserver in
// test/integration/provider-conformance.test.ts.
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { kastenProgress } from '../../../server/providers/kasten/kasten.provider.js';
import { trilioProgress } from '../../../server/providers/trilio/trilio.provider.js';
import { KastenSimulator } from '../../kasten/simulator.js';
import type { VolumeDataOutcome } from '../../providers/namespaced-tool-simulator.js';
import { TrilioSimulator } from '../../trilio/simulator.js';
import type { SnapshotItem } from '../../velero/simulator.js';

const SANDBOX = 'rehearsal-shop-r1';

function kubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'none' }],
    contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
    currentContext: 'none',
  });
  return config;
}

const claim = (name: string, storage?: string): SnapshotItem => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'shop' },
  spec: { accessModes: ['ReadWriteOnce'], ...(storage ? { resources: { requests: { storage } } } : {}) },
});
const config: SnapshotItem = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } };

const outcome = (failed: string[] = []): VolumeDataOutcome => ({
  claims: [claim('data-db-0', '1Gi'), claim('data-web-0')],
  failed: new Set(failed),
  startedAt: '2026-11-28T10:00:00Z',
});

class OpenTrilio extends TrilioSimulator {
  completed(volumes: VolumeDataOutcome) {
    const all = [config, ...volumes.claims];
    return this.doneStatus({ all, restored: all, excluded: [], volumes });
  }
  volumeFailure(volumes: VolumeDataOutcome) {
    return this.volumeDataFailedStatus(volumes);
  }
}

class OpenKasten extends KastenSimulator {
  volumeFailure(volumes: VolumeDataOutcome) {
    return this.volumeDataFailedStatus(volumes);
  }
}

const options = { dataNamespace: 'unused' };

describe('Trilio simulator → Trilio provider', () => {
  it('a completed restore lists every claim, restored, with its size', () => {
    const status = new OpenTrilio(kubeConfig(), options).completed(outcome());
    const progress = trilioProgress({ metadata: { name: 'rt-run1', namespace: SANDBOX }, status } as Parameters<typeof trilioProgress>[0]);
    expect(progress.state).toBe('succeeded');
    expect(progress.volumes).toEqual([
      expect.objectContaining({ namespace: SANDBOX, claim: 'data-db-0', method: 'provider-data-mover', phase: 'Completed', dataRestored: true, bytes: 1073741824 }),
      expect.objectContaining({ namespace: SANDBOX, claim: 'data-web-0', phase: 'Completed', dataRestored: true }),
    ]);
    expect(progress.volumes?.[1]?.bytes).toBeUndefined();
  });

  it('a failed DataRestore fails the Restore and names the claim with its reason', () => {
    const status = new OpenTrilio(kubeConfig(), options).volumeFailure(outcome(['data-db-0']));
    const progress = trilioProgress({ metadata: { name: 'rt-run1', namespace: SANDBOX }, status } as Parameters<typeof trilioProgress>[0]);
    expect(progress).toMatchObject({ state: 'failed', phase: 'Failed', message: 'restoring the data of data-db-0 failed' });
    expect(progress.volumes?.map((volume) => [volume.claim, volume.phase, volume.dataRestored])).toEqual([
      ['data-db-0', 'Failed', false],
      ['data-web-0', 'Completed', true],
    ]);
    expect(progress.volumes?.[0]?.message).toContain('the volume image could not be restored');
  });
});

describe('Kasten simulator → Kasten provider', () => {
  it('a failed volume fails the RestoreAction with an error message naming the claim; no per-volume results', () => {
    const status = new OpenKasten(kubeConfig(), options).volumeFailure(outcome(['data-db-0']));
    const progress = kastenProgress({ metadata: { name: 'rt-run1', namespace: SANDBOX }, status } as Parameters<typeof kastenProgress>[0]);
    expect(progress.state).toBe('failed');
    expect(progress.message).toContain('PersistentVolumeClaim data-db-0');
    expect(progress.volumes).toBeUndefined();
  });
});
