// Reads a value from a Secret key. Notification URLs carry tokens (Slack's incoming webhooks are
// the token), so they and the HMAC keys live only in Secrets, never in a spec or the config.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { SecretKeySelector } from '../domain/resources/resources.js';
import { kubeCall } from '../kube/errors.js';

export class SecretValueError extends Error {}

export type SecretValueReader = (namespace: string, ref: SecretKeySelector) => Promise<string>;

export function secretValueReader(core: Pick<CoreV1Api, 'readNamespacedSecret'>): SecretValueReader {
  return async (namespace, ref) => {
    const secret = await kubeCall(() => core.readNamespacedSecret({ namespace, name: ref.name }));
    const encoded = secret.data?.[ref.key];
    if (encoded === undefined) throw new SecretValueError(`Secret ${namespace}/${ref.name} has no key ${ref.key}`);
    const value = Buffer.from(encoded, 'base64').toString('utf8').trim();
    if (!value) throw new SecretValueError(`Secret ${namespace}/${ref.name} key ${ref.key} is empty`);
    return value;
  };
}
