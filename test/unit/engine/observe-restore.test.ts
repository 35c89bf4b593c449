// observeRestore (run-gatherer.ts): what the run policy sees of the provider's answer. A failed
// restore keeps the volumes the tool names (Trilio lists them when a DataRestore failed), so the
// policy can say VolumeDataNotRestored instead of RestoreFailed.
import { describe, expect, it } from '@jest/globals';
import { observeRestore } from '../../../server/engine/run/run-gatherer.js';
import type { RestoreProgress } from '../../../server/providers/provider.js';

const volume = {
  namespace: 'rehearsal-shop-r1',
  claim: 'data-db-0',
  method: 'provider-data-mover' as const,
  phase: 'Failed',
  dataRestored: false,
};

const read = (progress: Partial<RestoreProgress>) => ({
  state: 'read' as const,
  progress: { state: 'failed', phase: 'Failed', warnings: 0, errors: 1, ...progress } as RestoreProgress,
});

describe('observeRestore', () => {
  it('a failed restore carries its message and the volumes the tool names', () => {
    expect(observeRestore(read({ message: 'DataRestore failed', volumes: [volume] }))).toEqual({
      state: 'failed',
      phase: 'Failed',
      message: 'DataRestore failed',
      volumes: [volume],
    });
  });

  it('a failed restore without volumes has none', () => {
    expect(observeRestore(read({}))).toEqual({ state: 'failed', phase: 'Failed' });
  });

  it('a running restore carries no volumes (they are read once it has ended)', () => {
    expect(observeRestore(read({ state: 'running', phase: 'InProgress', volumes: [volume] }))).toEqual({ state: 'running', phase: 'InProgress' });
  });
});
