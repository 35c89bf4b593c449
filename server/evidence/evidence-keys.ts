// The evidence signing key (Ed25519) and its published public keys.
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
import { createHash } from 'node:crypto';
import type { CoreV1Api, KubeConfig, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import {
  exportPrivateKeyPem,
  exportPublicKeyPem,
  generateSigningKey,
  importPrivateKeyPem,
  publicKeyRing,
  type SigningKey,
} from './signing-key.js';
import { isKind, kubeCall } from '../kube/errors.js';
import { NamedObjectWatch } from '../kube/named-object-watch.js';

export const SIGNING_KEY_SECRET_NAME = 'rehearsal-signing-key';
export const SIGNING_KEY_SECRET_KEY = 'private-key.pem';
export const PUBLIC_KEYS_CONFIGMAP_NAME = 'rehearsal-evidence-public-keys';
export const PUBLIC_KEYS_DATA_KEY = 'keys.json';
export const CURRENT_PEM_DATA_KEY = 'current.pem';
const ANNOTATION_KEY_ID = 'rehearsal.dev/key-id';
const ANNOTATION_CREATED_AT = 'rehearsal.dev/created-at';
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'rehearsal', 'app.kubernetes.io/name': 'rehearsal' };

/** A published public key (the API's EvidencePublicKey). */
export interface PublishedKey {
  keyId: string;
  algorithm: 'Ed25519';
  publicKeyPem: string;
  createdAt: string;
  status: 'current' | 'retired';
  retiredAt?: string;
}

interface PublishedDocument {
  current?: Omit<PublishedKey, 'status' | 'retiredAt'>;
  retired: Omit<PublishedKey, 'status'>[];
}

export interface ActiveSigningKey {
  key: SigningKey;
  createdAt: string;
}

export interface EvidenceKeyStoreOptions {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  namespace: string;
  log: Logger;
  now: () => Date;
  secretName?: string;
  configMapName?: string;
}

const MIN_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

function fingerprint(pem: string): string {
  return createHash('sha256').update(pem).digest('hex');
}

/** Parses keys.json; unknown or malformed entries are dropped (and reported). */
export function parsePublishedKeys(text: string | undefined): {
  document: PublishedDocument;
  problems: string[];
} {
  const document: PublishedDocument = { retired: [] };
  if (!text) return { document, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { document, problems: [`${PUBLIC_KEYS_DATA_KEY} is not JSON`] };
  }
  const problems: string[] = [];
  const entry = (
    value: unknown,
    where: string,
  ): (Omit<PublishedKey, 'status' | 'retiredAt'> & { retiredAt?: string }) | undefined => {
    const v = value as Record<string, unknown> | null;
    if (
      typeof v !== 'object' ||
      v === null ||
      typeof v.keyId !== 'string' ||
      typeof v.publicKeyPem !== 'string' ||
      typeof v.createdAt !== 'string'
    ) {
      problems.push(`${where} is not a key entry`);
      return undefined;
    }
    try {
      const ring = publicKeyRing([v.publicKeyPem]);
      if (!ring.has(v.keyId)) {
        problems.push(`${where}: keyId ${v.keyId} does not match its public key`);
        return undefined;
      }
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      return undefined;
    }
    return {
      keyId: v.keyId,
      algorithm: 'Ed25519',
      publicKeyPem: v.publicKeyPem,
      createdAt: v.createdAt,
      ...(typeof v.retiredAt === 'string' ? { retiredAt: v.retiredAt } : {}),
    };
  };
  const root = parsed as { current?: unknown; retired?: unknown };
  if (root.current !== undefined) {
    const current = entry(root.current, 'current');
    if (current) {
      const { retiredAt: _ignored, ...rest } = current;
      document.current = rest;
    }
  }
  if (Array.isArray(root.retired)) {
    root.retired.forEach((value, index) => {
      const retired = entry(value, `retired[${index}]`);
      if (retired) document.retired.push({ ...retired, retiredAt: retired.retiredAt ?? retired.createdAt });
    });
  }
  return { document, problems };
}

/** The document with `current` as the current key; the previous current key moves to retired. */
export function promoteKey(
  document: PublishedDocument,
  current: Omit<PublishedKey, 'status' | 'retiredAt'>,
  now: Date,
): { document: PublishedDocument; changed: boolean } {
  if (document.current?.keyId === current.keyId && document.current.publicKeyPem === current.publicKeyPem) {
    // Already current; just make sure it is not listed as retired as well.
    const retired = document.retired.filter((key) => key.keyId !== current.keyId);
    return {
      document: { current: document.current, retired },
      changed: retired.length !== document.retired.length,
    };
  }
  const retired = document.retired.filter((key) => key.keyId !== current.keyId);
  if (document.current && document.current.keyId !== current.keyId) {
    retired.push({ ...document.current, retiredAt: now.toISOString() });
  }
  return { document: { current, retired }, changed: true };
}

export function publishedKeysOf(document: PublishedDocument): PublishedKey[] {
  return [
    ...(document.current ? [{ ...document.current, status: 'current' as const }] : []),
    ...document.retired.map((key) => ({ ...key, status: 'retired' as const })),
  ];
}

export class EvidenceKeyStore {
  private active: ActiveSigningKey | undefined;
  private published: PublishedDocument = { retired: [] };
  private ring: Map<string, KeyObject> = new Map();
  private readonly secretWatch: NamedObjectWatch<V1Secret>;
  private readonly configMapWatch: NamedObjectWatch<V1ConfigMap>;
  private readonly secretName: string;
  private readonly configMapName: string;
  private stopped = true;
  private reconciling: Promise<void> = Promise.resolve();
  private reconcileAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = MIN_RETRY_MS;
  private readyWaiters: ((key: ActiveSigningKey) => void)[] = [];
  private lastSecretFingerprint: string | undefined;

  constructor(private readonly options: EvidenceKeyStoreOptions) {
    this.secretName = options.secretName ?? SIGNING_KEY_SECRET_NAME;
    this.configMapName = options.configMapName ?? PUBLIC_KEYS_CONFIGMAP_NAME;
    const where = { apiVersion: 'v1' as const, namespace: options.namespace };
    this.secretWatch = new NamedObjectWatch<V1Secret>(
      options.kubeConfig,
      { ...where, kind: 'Secret', plural: 'secrets', name: this.secretName },
      (secret) => this.onSecret(secret),
      options.log,
    );
    this.configMapWatch = new NamedObjectWatch<V1ConfigMap>(
      options.kubeConfig,
      { ...where, kind: 'ConfigMap', plural: 'configmaps', name: this.configMapName },
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
    await Promise.all([this.configMapWatch.start(), this.secretWatch.start()]);
    this.requestReconcile();
    return this.ready();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
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
          { configMap: this.configMapName, problem },
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

  private async reconcile(): Promise<void> {
    const key = await this.loadOrCreateKey();
    this.adopt(key);
    await this.publish(key);
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

  private fromSecret(secret: V1Secret): ActiveSigningKey {
    const encoded = secret.data?.[SIGNING_KEY_SECRET_KEY];
    if (!encoded) {
      throw new Error(
        `Secret ${this.options.namespace}/${this.secretName} has no key "${SIGNING_KEY_SECRET_KEY}"; not overwriting it`,
      );
    }
    let key: SigningKey;
    try {
      key = importPrivateKeyPem(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch (error) {
      throw new Error(
        `Secret ${this.options.namespace}/${this.secretName} does not hold an Ed25519 private key (${(error as Error).message}); not overwriting it`,
      );
    }
    const createdAt =
      secret.metadata?.annotations?.[ANNOTATION_CREATED_AT] ?? secret.metadata?.creationTimestamp;
    return {
      key,
      createdAt: createdAt ? new Date(createdAt).toISOString() : this.options.now().toISOString(),
    };
  }

  private async loadOrCreateKey(): Promise<ActiveSigningKey> {
    const { core, namespace } = this.options;
    try {
      return this.fromSecret(
        await kubeCall(() => core.readNamespacedSecret({ name: this.secretName, namespace })),
      );
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
    const generated = generateSigningKey();
    const createdAt = this.options.now().toISOString();
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: this.secretName,
        namespace,
        labels: { ...MANAGED_BY },
        annotations: { [ANNOTATION_KEY_ID]: generated.keyId, [ANNOTATION_CREATED_AT]: createdAt },
      },
      data: { [SIGNING_KEY_SECRET_KEY]: Buffer.from(exportPrivateKeyPem(generated)).toString('base64') },
    };
    try {
      const created = await kubeCall(() => core.createNamespacedSecret({ namespace, body }));
      this.options.log.info(
        { keyId: generated.keyId },
        `created the evidence signing key (Secret ${namespace}/${this.secretName})`,
      );
      return this.fromSecret(created);
    } catch (error) {
      if (!isKind(error, 'AlreadyExists')) throw error;
      // Another replica won the race: use its key, so all replicas sign with the same one.
      return this.fromSecret(
        await kubeCall(() => core.readNamespacedSecret({ name: this.secretName, namespace })),
      );
    }
  }

  /** Makes `key` the current key of the ConfigMap (create, or update guarded by resourceVersion). */
  private async publish(active: ActiveSigningKey): Promise<void> {
    const { core, namespace } = this.options;
    const current = {
      keyId: active.key.keyId,
      algorithm: 'Ed25519' as const,
      publicKeyPem: exportPublicKeyPem(active.key),
      createdAt: active.createdAt,
    };
    for (let attempt = 1; ; attempt += 1) {
      let existing: V1ConfigMap | undefined;
      try {
        existing = await kubeCall(() =>
          core.readNamespacedConfigMap({ name: this.configMapName, namespace }),
        );
      } catch (error) {
        if (!isKind(error, 'NotFound')) throw error;
      }
      // A deleted ConfigMap is recreated with what this replica still knows (retired keys included).
      const base = existing
        ? parsePublishedKeys(existing.data?.[PUBLIC_KEYS_DATA_KEY]).document
        : this.published;
      const { document, changed } = promoteKey(base, current, this.options.now());
      if (existing && !changed && existing.data?.[CURRENT_PEM_DATA_KEY] === current.publicKeyPem) {
        this.published = document;
        this.rebuildRing();
        return;
      }
      const data = {
        ...(existing?.data ?? {}),
        [PUBLIC_KEYS_DATA_KEY]: `${JSON.stringify(document, null, 2)}\n`,
        [CURRENT_PEM_DATA_KEY]: current.publicKeyPem,
      };
      try {
        if (existing) {
          await kubeCall(() =>
            core.replaceNamespacedConfigMap({
              name: this.configMapName,
              namespace,
              body: { ...existing, data },
            }),
          );
        } else {
          await kubeCall(() =>
            core.createNamespacedConfigMap({
              namespace,
              body: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: this.configMapName, namespace, labels: { ...MANAGED_BY } },
                data,
              },
            }),
          );
        }
        this.published = document;
        this.rebuildRing();
        this.options.log.info(
          { keyId: current.keyId, retired: document.retired.map((key) => key.keyId) },
          `published the evidence public keys (ConfigMap ${namespace}/${this.configMapName})`,
        );
        return;
      } catch (error) {
        if (!isKind(error, 'Conflict', 'AlreadyExists') || attempt >= 5) throw error;
        // Another replica wrote it meanwhile: read again and decide again.
      }
    }
  }
}
