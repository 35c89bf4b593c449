// The two Kubernetes objects that hold the evidence keys (layout and rotation in evidence-keys.ts):
// the Secret with the private key, read or created, and the ConfigMap that publishes the public
// keys. Every write is a create or a resourceVersion-guarded update, never an overwrite: replicas
// race for both objects, and a lost race must end in reading the winner's key, not replacing it.
import type { CoreV1Api, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isKind, kubeCall } from '../kube/errors.js';
import {
  CURRENT_PEM_DATA_KEY,
  parsePublishedKeys,
  promoteKey,
  PUBLIC_KEYS_DATA_KEY,
  type PublishedDocument,
} from './published-keys.js';
import {
  exportPrivateKeyPem,
  exportPublicKeyPem,
  generateSigningKey,
  importPrivateKeyPem,
  type SigningKey,
} from './signing-key.js';

export const SIGNING_KEY_SECRET_NAME = 'rehearsal-signing-key';
export const SIGNING_KEY_SECRET_KEY = 'private-key.pem';
const ANNOTATION_KEY_ID = 'rehearsal.dev/key-id';
const ANNOTATION_CREATED_AT = 'rehearsal.dev/created-at';
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'rehearsal', 'app.kubernetes.io/name': 'rehearsal' };

export interface ActiveSigningKey {
  key: SigningKey;
  createdAt: string;
}

/** Where the key objects live, and what reading and writing them needs. */
export interface KeyObjects {
  core: CoreV1Api;
  namespace: string;
  secretName: string;
  configMapName: string;
  log: Logger;
  now: () => Date;
}

/** The key a Secret holds; one without a usable Ed25519 key is an error, never replaced. */
function fromSecret(objects: KeyObjects, secret: V1Secret): ActiveSigningKey {
  const encoded = secret.data?.[SIGNING_KEY_SECRET_KEY];
  if (!encoded) {
    throw new Error(
      `Secret ${objects.namespace}/${objects.secretName} has no key "${SIGNING_KEY_SECRET_KEY}"; not overwriting it`,
    );
  }
  let key: SigningKey;
  try {
    key = importPrivateKeyPem(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch (error) {
    throw new Error(
      `Secret ${objects.namespace}/${objects.secretName} does not hold an Ed25519 private key (${(error as Error).message}); not overwriting it`,
    );
  }
  const createdAt =
    secret.metadata?.annotations?.[ANNOTATION_CREATED_AT] ?? secret.metadata?.creationTimestamp;
  return {
    key,
    createdAt: createdAt ? new Date(createdAt).toISOString() : objects.now().toISOString(),
  };
}

/** The signing key of the Secret; when there is none, a new key in a Secret this call creates. */
export async function loadOrCreateSigningKey(objects: KeyObjects): Promise<ActiveSigningKey> {
  const { core, namespace, secretName } = objects;
  try {
    return fromSecret(objects, await kubeCall(() => core.readNamespacedSecret({ name: secretName, namespace })));
  } catch (error) {
    if (!isKind(error, 'NotFound')) throw error;
  }
  const generated = generateSigningKey();
  const createdAt = objects.now().toISOString();
  const body: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: secretName,
      namespace,
      labels: { ...MANAGED_BY },
      annotations: { [ANNOTATION_KEY_ID]: generated.keyId, [ANNOTATION_CREATED_AT]: createdAt },
    },
    data: { [SIGNING_KEY_SECRET_KEY]: Buffer.from(exportPrivateKeyPem(generated)).toString('base64') },
  };
  try {
    const created = await kubeCall(() => core.createNamespacedSecret({ namespace, body }));
    objects.log.info(
      { keyId: generated.keyId },
      `created the evidence signing key (Secret ${namespace}/${secretName})`,
    );
    return fromSecret(objects, created);
  } catch (error) {
    if (!isKind(error, 'AlreadyExists')) throw error;
    // Another replica won the race: use its key, so all replicas sign with the same one.
    return fromSecret(objects, await kubeCall(() => core.readNamespacedSecret({ name: secretName, namespace })));
  }
}

/**
 * Makes `active` the current key of the ConfigMap (create, or update guarded by resourceVersion)
 * and answers the document now published. `known` is what the caller knows of the published keys:
 * a deleted ConfigMap is recreated from it, so retired keys survive the deletion.
 */
export async function publishCurrentKey(
  objects: KeyObjects,
  active: ActiveSigningKey,
  known: () => PublishedDocument,
): Promise<PublishedDocument> {
  const { core, namespace, configMapName } = objects;
  const current = {
    keyId: active.key.keyId,
    algorithm: 'Ed25519' as const,
    publicKeyPem: exportPublicKeyPem(active.key),
    createdAt: active.createdAt,
  };
  for (let attempt = 1; ; attempt += 1) {
    let existing: V1ConfigMap | undefined;
    try {
      existing = await kubeCall(() => core.readNamespacedConfigMap({ name: configMapName, namespace }));
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
    const base = existing ? parsePublishedKeys(existing.data?.[PUBLIC_KEYS_DATA_KEY]).document : known();
    const { document, changed } = promoteKey(base, current, objects.now());
    if (existing && !changed && existing.data?.[CURRENT_PEM_DATA_KEY] === current.publicKeyPem) return document;
    const data = {
      ...(existing?.data ?? {}),
      [PUBLIC_KEYS_DATA_KEY]: `${JSON.stringify(document, null, 2)}\n`,
      [CURRENT_PEM_DATA_KEY]: current.publicKeyPem,
    };
    try {
      if (existing) {
        await kubeCall(() =>
          core.replaceNamespacedConfigMap({ name: configMapName, namespace, body: { ...existing, data } }),
        );
      } else {
        await kubeCall(() =>
          core.createNamespacedConfigMap({
            namespace,
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: configMapName, namespace, labels: { ...MANAGED_BY } },
              data,
            },
          }),
        );
      }
      objects.log.info(
        { keyId: current.keyId, retired: document.retired.map((key) => key.keyId) },
        `published the evidence public keys (ConfigMap ${namespace}/${configMapName})`,
      );
      return document;
    } catch (error) {
      if (!isKind(error, 'Conflict', 'AlreadyExists') || attempt >= 5) throw error;
      // Another replica wrote it meanwhile: read again and decide again.
    }
  }
}
