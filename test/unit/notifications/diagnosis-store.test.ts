// The stored diagnosis stays within a few KB even when its text does not compress.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../server/domain/diagnosis/diagnosis.js';
import { compressWithinBound, MAX_STORED_BYTES } from '../../../server/triage/diagnosis-store.js';

describe('compressWithinBound', () => {
  it('cuts incompressible detail until the gzip is at most 8 KB, keeping the hints', () => {
    const sandbox = 'rehearsal-shop-x1y2z';
    const noise = () => randomBytes(120).toString('base64');
    const diagnosis = diagnose(
      {
        sandboxes: [{ source: 'shop', sandbox }],
        pods: Array.from({ length: 20 }, (_, index) => ({
          namespace: sandbox,
          name: `web-${index}`,
          phase: 'Running',
          ready: false,
          imagePullSecrets: [],
          containers: [{ name: 'web', ready: false, restartCount: 3, state: 'waiting' as const, reason: 'CrashLoopBackOff', message: noise() }],
        })),
        events: Array.from({ length: 25 }, (_, index) => ({ namespace: sandbox, reason: 'BackOff', message: noise(), object: `Pod/web-${index}`, count: 1, lastSeen: '' })),
        claims: [],
        externalNames: [],
        missingPullSecrets: [],
        logs: Array.from({ length: 5 }, (_, index) => ({ namespace: sandbox, pod: `web-${index}`, container: 'web', lines: Array.from({ length: 20 }, noise) })),
      },
      { test: { name: 'shop', namespace: 'team-a' }, runId: 'x1y2z', report: 'shop-x1y2z', result: 'fail', collectedAt: new Date() },
    );
    const { diagnosis: stored, compressed } = compressWithinBound(diagnosis);
    expect(compressed.length).toBeLessThanOrEqual(MAX_STORED_BYTES);
    expect(stored.truncated).toBe(true);
    expect(stored.hints.map((hint) => hint.code)).toEqual(['crash-loop']);
    expect(stored.pods.length).toBeGreaterThan(0);
  });
});
