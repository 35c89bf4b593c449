// An Event's message is cut to the apiserver's 1,024 bytes between code points (it used to be cut
// at 1,024 UTF-16 units: half an emoji, and up to 3 KB of UTF-8 the apiserver would refuse).
import { describe, expect, it } from '@jest/globals';
import type { CoreV1Api, CoreV1EventList } from '@kubernetes/client-node';
import pino from 'pino';
import { EVENT_MESSAGE_MAX_BYTES, KubeEventRecorder } from '../../../server/engine/events.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';

describe('KubeEventRecorder', () => {
  it('cuts a long message by UTF-8 bytes between code points', () => {
    const bodies: { message?: string }[] = [];
    const core = {
      createNamespacedEvent: async ({ body }: { body: { message?: string } }) => {
        bodies.push(body);
        return body as unknown as CoreV1EventList;
      },
    } as unknown as CoreV1Api;
    const recorder = new KubeEventRecorder(core, 'rehearsal', pino({ level: 'silent' }));
    const test = {
      apiVersion: 'rehearsal.dev/v1alpha1',
      kind: 'RestoreTest',
      metadata: { name: 'shop', namespace: 'team-a', uid: 'u1' },
    } as RestoreTest;
    recorder.record(test, 'Warning', 'RunFailed', `${'x'.repeat(1021)}😀 and more`);
    recorder.record(test, 'Normal', 'RunPassed', 'short');
    const [long, short] = bodies.map((body) => body.message!);
    expect(long).toBe(`${'x'.repeat(1021)}…`);
    expect(Buffer.byteLength(long!, 'utf8')).toBeLessThanOrEqual(EVENT_MESSAGE_MAX_BYTES);
    expect(long!.isWellFormed()).toBe(true);
    expect(short).toBe('short');
  });
});
