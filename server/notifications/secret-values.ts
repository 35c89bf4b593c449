// Reads a value from a Secret key. Notification URLs carry tokens (Slack's incoming webhooks are
// the token), so they and the HMAC keys live only in Secrets, never in a spec or the config.
//
// A webhook's signing key must come from a Secret labelled rehearsal.dev/notifications=true (issue
// 26): the server HMACs a body of its choosing with the key and sends the result wherever the
// channel's URL points, so a key meant for something else (another system's webhook secret, a
// token) would make the server an oracle that signs for whoever writes the RestoreTest. The label
// says "this Secret is meant for Rehearsal's notifications"; only someone who may write the Secret
// can put it there.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { SecretKeySelector } from '../domain/resources/resources.js';
import { kubeCall } from '../kube/errors.js';

export const LABEL_NOTIFICATION_SECRET = 'rehearsal.dev/notifications';

export class SecretValueError extends Error {
  constructor(
    message: string,
    /** An outcome class for the delivery record (the message names the Secret: logs only). */
    readonly outcome: 'secret-unreadable' | 'signing-key-not-allowed' = 'secret-unreadable',
  ) {
    super(message);
  }
}

export interface SecretValueOptions {
  /** The Secret must be labelled rehearsal.dev/notifications=true (signing keys). */
  meantForNotifications?: boolean;
}

export type SecretValueReader = (namespace: string, ref: SecretKeySelector, options?: SecretValueOptions) => Promise<string>;

export function secretValueReader(core: Pick<CoreV1Api, 'readNamespacedSecret'>): SecretValueReader {
  return async (namespace, ref, options = {}) => {
    const secret = await kubeCall(() => core.readNamespacedSecret({ namespace, name: ref.name }));
    if (options.meantForNotifications && secret.metadata?.labels?.[LABEL_NOTIFICATION_SECRET] !== 'true') {
      throw new SecretValueError(
        `Secret ${namespace}/${ref.name} is not labelled ${LABEL_NOTIFICATION_SECRET}=true: a signing key must come from a Secret meant for notifications`,
        'signing-key-not-allowed',
      );
    }
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) throw new SecretValueError(`Secret ${namespace}/${ref.name} has no key ${ref.key}`);
    const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
    if (!value) throw new SecretValueError(`Secret ${namespace}/${ref.name} key ${ref.key} is empty`);
    return value;
  };
}
