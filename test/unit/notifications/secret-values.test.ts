// A webhook's signing key comes only from a Secret meant for notifications (labelled
// rehearsal.dev/notifications=true): otherwise whoever writes a RestoreTest could make the server
// HMAC bodies with any key of a Secret it may read (issue 26). URLs may come from any Secret the
// server was granted.
import { describe, expect, it } from '@jest/globals';
import { SecretValueError, secretValueReader } from '../../../server/notifications/secret-values.js';

function core(labels: Record<string, string> | undefined) {
  return {
    readNamespacedSecret: async () => ({
      metadata: { name: 's', ...(labels ? { labels } : {}) },
      data: { hmac: Buffer.from('k3y').toString('base64'), url: Buffer.from('https://hooks.example/x').toString('base64') },
    }),
  } as never;
}

describe('secretValueReader', () => {
  it('reads a signing key only from a Secret labelled for notifications', async () => {
    const labelled = secretValueReader(core({ 'rehearsal.dev/notifications': 'true' }));
    expect(await labelled('team-a', { name: 's', key: 'hmac' }, { meantForNotifications: true })).toBe('k3y');
    const unlabelled: (Record<string, string> | undefined)[] = [undefined, { 'rehearsal.dev/notifications': 'false' }, { other: 'true' }];
    for (const labels of unlabelled) {
      const error = await secretValueReader(core(labels))('team-a', { name: 's', key: 'hmac' }, { meantForNotifications: true }).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(SecretValueError);
      expect(error).toMatchObject({ outcome: 'signing-key-not-allowed' });
    }
  });

  it('reads a URL from any Secret it may read', async () => {
    expect(await secretValueReader(core(undefined))('team-a', { name: 's', key: 'url' })).toBe('https://hooks.example/x');
  });
});
