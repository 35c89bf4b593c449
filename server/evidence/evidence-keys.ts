// The evidence signing key (Ed25519) and its published public keys: the store every replica keeps
// in step with the two Kubernetes objects that hold them.
//
// Private key: Secret `rehearsal-signing-key` in Rehearsal's namespace, key `private-key.pem`
// (PKCS#8). The first replica to start without one generates it and CREATES the Secret; a replica
// that loses that race (AlreadyExists) reads the winner's, so every replica signs with the same
// key. An existing Secret is never overwritten: a Secret that holds no usable Ed25519 key stops
// signing (logged as an error) instead of silently replacing someone's key.
//
// Public keys: ConfigMap `rehearsal-evidence-public-keys`, key `keys.json`:
//   { "current": {keyId, algorithm, publicKeyPem, createdAt},
//     "retired": [{keyId, algorithm, publicKeyPem, createdAt, retiredAt}, ...] }
// plus `current.pem` for `kubectl get cm ... -o jsonpath`. Verifiers trust current + retired, so
// reports and PDFs signed before a rotation keep verifying.
//
// ROTATION: delete the Secret (`kubectl -n rehearsal-system delete secret rehearsal-signing-key`).
// The running replicas see the deletion, one of them creates a new key (the others read it), and
// the ConfigMap's current key moves to `retired`. Nothing is restarted. To revoke a compromised
// key, also remove it from `retired`: reports it signed then no longer verify (and compliance
// counts them as unverified evidence), which is the point.
//
// Both objects are watched, so a rotation done by another replica is picked up here too.
//
// KEY OUTSIDE THE CLUSTER'S SECRETS (REHEARSAL_SIGNING_KEY_FILE, issue 33): the private key is read
// from a file mounted from an external secret store (Vault Agent, the Secrets Store CSI driver,
// a KMS-backed file), never from or into the Secret, so reading Secrets does not give a cluster
// administrator the key. The file is re-read every KEY_FILE_POLL_MS: replacing it rotates the key
// (the old public key moves to `retired` as above). The public keys are still published in the
// ConfigMap. A file without a usable Ed25519 key stops signing (logged), as a bad Secret does.
// published-keys.ts has the document's rules, evidence-key-objects.ts reads and writes the objects.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { CoreV1Api, KubeConfig, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import { NamedObjectWatch } from '../kube/named-object-watch.js';
import {
  loadOrCreateSigningKey,
  publishCurrentKey,
  SIGNING_KEY_SECRET_KEY,
  SIGNING_KEY_SECRET_NAME,
  type ActiveSigningKey,
  type KeyObjects,
} from './evidence-key-objects.js';
import {
  parsePublishedKeys,
  PUBLIC_KEYS_CONFIGMAP_NAME,
  PUBLIC_KEYS_DATA_KEY,
  publishedKeysOf,
  type PublishedDocument,
  type PublishedKey,
} from './published-keys.js';
import { exportPublicKeyPem, importPrivateKeyPem, publicKeyRing } from './signing-key.js';

export interface EvidenceKeyStoreOptions {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  namespace: string;
  log: Logger;
  now: () => Date;
  secretName?: string;
  configMapName?: string;
  /** Read the private key from this file (PKCS#8 PEM) instead of the Secret. */
  keyFile?: string;
  /** How often the key file is re-read (KEY_FILE_POLL_MS; tests shorten it). */
  keyFilePollMs?: number;
}

/** How often a mounted key file is re-read (a mounted Secret or CSI volume updates in place). */
const KEY_FILE_POLL_MS = 30_000;

const MIN_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

function fingerprint(pem: string): string {
  return createHash('sha256').update(pem).digest('hex');
}

export class EvidenceKeyStore {
  private active: ActiveSigningKey | undefined;
  private published: PublishedDocument = { retired: [] };
  private ring: Map<string, KeyObject> = new Map();
  private readonly secretWatch: NamedObjectWatch<V1Secret>;
  private readonly configMapWatch: NamedObjectWatch<V1ConfigMap>;
  private readonly objects: KeyObjects;
  private stopped = true;
  private reconciling: Promise<void> = Promise.resolve();
  private reconcileAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = MIN_RETRY_MS;
  private readyWaiters: ((key: ActiveSigningKey) => void)[] = [];
  private lastSecretFingerprint: string | undefined;
  private keyFileTimer: NodeJS.Timeout | undefined;
  private lastKeyFileFingerprint: string | undefined;

  constructor(private readonly options: EvidenceKeyStoreOptions) {
    const { core, namespace, log, now } = options;
    const secretName = options.secretName ?? SIGNING_KEY_SECRET_NAME;
    const configMapName = options.configMapName ?? PUBLIC_KEYS_CONFIGMAP_NAME;
    this.objects = { core, namespace, secretName, configMapName, log, now };
    const where = { apiVersion: 'v1' as const, namespace };
    this.secretWatch = new NamedObjectWatch<V1Secret>(
      options.kubeConfig,
      { ...where, kind: 'Secret', plural: 'secrets', name: secretName },
      (secret) => this.onSecret(secret),
      options.log,
    );
    this.configMapWatch = new NamedObjectWatch<V1ConfigMap>(
      options.kubeConfig,
      { ...where, kind: 'ConfigMap', plural: 'configmaps', name: configMapName },
      (configMap) => this.onConfigMap(configMap),
      options.log,
    );
  }

  /**
   * Makes sure a signing key exists and is published, then keeps watching. Resolves once this
   * replica has a key (retrying with backoff until then: without a key no evidence can be written).
   */
  async start(): Promise<ActiveSigningKey> {
    this.stopped = false;
    if (this.options.keyFile) {
      await this.configMapWatch.start();
      this.keyFileTimer = setInterval(() => void this.checkKeyFile(), this.options.keyFilePollMs ?? KEY_FILE_POLL_MS);
      this.keyFileTimer.unref();
    } else {
      await Promise.all([this.configMapWatch.start(), this.secretWatch.start()]);
    }
    this.requestReconcile();
    return this.ready();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.keyFileTimer);
    this.secretWatch.stop();
    this.configMapWatch.stop();
  }

  /** The key this replica signs with, once there is one. */
  ready(): Promise<ActiveSigningKey> {
    if (this.active) return Promise.resolve(this.active);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** The signing key now (undefined until start() has found or created one). */
  signingKey(): ActiveSigningKey | undefined {
    return this.active;
  }

  /** Every trusted public key: current and retired (this replica's own key always included). */
  publicKeys(): PublishedKey[] {
    const keys = publishedKeysOf(this.published);
    const own = this.active;
    if (own && !keys.some((key) => key.keyId === own.key.keyId)) {
      keys.unshift({
        keyId: own.key.keyId,
        algorithm: 'Ed25519',
        publicKeyPem: exportPublicKeyPem(own.key),
        createdAt: own.createdAt,
        status: 'current',
      });
    }
    return keys;
  }

  /** keyId → public key, for verifiers. The same map object until the keys change. */
  keyRing(): ReadonlyMap<string, KeyObject> {
    return this.ring;
  }

  /** Resolves when the reconcile in flight (if any) is done; for tests. */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.reconciling;
      await seen;
    } while (seen !== this.reconciling);
  }

  // ------------------------------------------------------------------ watch handlers (state only)

  private onSecret(secret: V1Secret | undefined): void {
    const pem = secret?.data?.[SIGNING_KEY_SECRET_KEY];
    const print = pem === undefined ? undefined : fingerprint(pem);
    if (print === this.lastSecretFingerprint && secret !== undefined) return;
    this.lastSecretFingerprint = print;
    this.requestReconcile();
  }

  private onConfigMap(configMap: V1ConfigMap | undefined): void {
    if (configMap) {
      const { document, problems } = parsePublishedKeys(configMap.data?.[PUBLIC_KEYS_DATA_KEY]);
      for (const problem of problems) {
        this.options.log.error(
          { configMap: this.objects.configMapName, problem },
          'ignoring a malformed published evidence key',
        );
      }
      this.published = document;
    }
    this.rebuildRing();
    this.requestReconcile();
  }

  private rebuildRing(): void {
    const pems = this.publicKeys().map((key) => key.publicKeyPem);
    const ring = publicKeyRing(pems);
    const same = ring.size === this.ring.size && [...ring.keys()].every((id) => this.ring.has(id));
    if (!same) this.ring = ring;
  }

  // ------------------------------------------------------------------ reconcile (I/O)

  private requestReconcile(): void {
    if (this.stopped) return;
    this.reconcileAgain = true;
    this.reconciling = this.reconciling.then(async () => {
      if (!this.reconcileAgain || this.stopped) return;
      this.reconcileAgain = false;
      try {
        await this.reconcile();
        this.retryMs = MIN_RETRY_MS;
      } catch (error) {
        const delay = this.retryMs;
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
        this.options.log.error(
          { err: error, retryInMs: delay },
          `evidence signing key: ${(error as Error).message}`,
        );
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.requestReconcile(), delay);
      }
    });
  }

  /** Re-reads the key file when its content changed (a rotation by whoever manages the file). */
  private async checkKeyFile(): Promise<void> {
    try {
      const print = fingerprint(await readFile(this.options.keyFile!, 'utf8'));
      if (print !== this.lastKeyFileFingerprint) this.requestReconcile();
    } catch (error) {
      this.options.log.error({ err: error, file: this.options.keyFile }, 'evidence signing key file cannot be read; signing with the key read before');
    }
  }

  /** The key from REHEARSAL_SIGNING_KEY_FILE; createdAt is when this replica first read it. */
  private async loadKeyFile(): Promise<ActiveSigningKey> {
    const file = this.options.keyFile!;
    const pem = await readFile(file, 'utf8');
    let key;
    try {
      key = importPrivateKeyPem(pem);
    } catch (error) {
      throw new Error(`${file} holds no usable Ed25519 private key (PKCS#8 PEM): ${(error as Error).message}`);
    }
    this.lastKeyFileFingerprint = fingerprint(pem);
    const same = this.active?.key.keyId === key.keyId;
    return { key, createdAt: same ? this.active!.createdAt : this.options.now().toISOString() };
  }

  private async reconcile(): Promise<void> {
    const key = this.options.keyFile ? await this.loadKeyFile() : await loadOrCreateSigningKey(this.objects);
    this.adopt(key);
    this.published = await publishCurrentKey(this.objects, key, () => this.published);
    this.rebuildRing();
  }

  private adopt(key: ActiveSigningKey): void {
    const previous = this.active;
    this.active = key;
    if (previous?.key.keyId !== key.key.keyId) {
      this.options.log.info(
        { keyId: key.key.keyId, previousKeyId: previous?.key.keyId },
        previous ? 'evidence signing key rotated' : 'evidence signing key loaded',
      );
    }
    this.rebuildRing();
    for (const resolve of this.readyWaiters.splice(0)) resolve(key);
  }
}
