// Watches ONE named object (a Secret or ConfigMap in Rehearsal's namespace): list + watch with
// fieldSelector metadata.name=<name>, so RBAC can restrict the grant to that name (resourceNames
// applies to list/watch requests that select a single name) and nothing else is ever read.
// Used for the license Secret, the signing-key Secret and the public-key ConfigMap.
//
// Like ResilientInformer it never gives up: a failed list or watch is retried with exponential
// backoff. The handler receives the current object (undefined = absent) after every change; it
// only records state (no I/O inside), and it is never called twice in a row with the same
// resourceVersion.
import { KubernetesObjectApi, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { toKubeError } from './errors.js';

export interface NamedObjectWatchOptions {
  apiVersion: 'v1';
  kind: 'Secret' | 'ConfigMap';
  /** Lower-case plural, for the watch path. */
  plural: 'secrets' | 'configmaps';
  namespace: string;
  name: string;
}

export type NamedObjectHandler<T> = (object: T | undefined) => void;

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/**
 * A single quiet object may see no event for minutes, and the client's Watch aborts a connection
 * after 30 s without data (not configurable). So the apiserver is asked to end each watch cleanly
 * before that (timeoutSeconds, spread so replicas do not reconnect in step); the watch then
 * resumes from the last resourceVersion. An inactivity abort is handled the same way.
 */
const WATCH_SECONDS_MIN = 20;
const WATCH_SECONDS_SPREAD = 6;

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

export class NamedObjectWatch<T extends KubernetesObject> {
  private readonly objects: KubernetesObjectApi;
  private readonly watcher: Watch;
  private resourceVersion = '';
  private lastDelivered: string | undefined = 'initial';
  private abort: AbortController | undefined;
  private stopped = true;
  private firstAttempt: Promise<void> | undefined;
  private settleFirstAttempt: (() => void) | undefined;
  private backoffMs = MIN_BACKOFF_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private current: T | undefined;
  private loaded = false;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: NamedObjectWatchOptions,
    private readonly handler: NamedObjectHandler<T>,
    private readonly log: Logger,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    this.watcher = new Watch(kubeConfig);
  }

  /** Whether the first list succeeded (the object's presence is known). */
  get hasLoaded(): boolean {
    return this.loaded;
  }

  get object(): T | undefined {
    return this.current;
  }

  /** Starts; resolves after the first list attempt, successful or not (failures keep retrying). */
  start(): Promise<void> {
    if (!this.stopped) return this.firstAttempt ?? Promise.resolve();
    this.stopped = false;
    this.firstAttempt = new Promise((resolve) => (this.settleFirstAttempt = resolve));
    void this.listAndWatch();
    return this.firstAttempt;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.abort?.abort();
    this.settleFirstAttempt?.();
  }

  private get description(): string {
    return `${this.options.kind} ${this.options.namespace}/${this.options.name}`;
  }

  private deliver(object: T | undefined): void {
    this.current = object;
    const version = object?.metadata?.resourceVersion;
    if (version !== undefined && version === this.lastDelivered) return;
    this.lastDelivered = version;
    try {
      this.handler(object);
    } catch (error) {
      this.log.error({ err: error, object: this.description }, 'watch handler failed');
    }
  }

  private async listAndWatch(): Promise<void> {
    if (this.stopped) return;
    try {
      const list = await this.objects.list(
        this.options.apiVersion,
        this.options.kind,
        this.options.namespace,
        undefined,
        undefined,
        undefined,
        `metadata.name=${this.options.name}`,
      );
      this.resourceVersion = list.metadata?.resourceVersion ?? '';
      this.loaded = true;
      this.deliver(list.items.find((item) => item.metadata?.name === this.options.name) as T | undefined);
      this.settleFirstAttempt?.();
      this.backoffMs = MIN_BACKOFF_MS;
      await this.watch();
    } catch (error) {
      this.settleFirstAttempt?.();
      this.retryLater(error);
    }
  }

  private retryLater(error: unknown): void {
    if (this.stopped) return;
    const kubeError = toKubeError(error);
    this.log.warn(
      { object: this.description, kind: kubeError.kind, retryInMs: this.backoffMs },
      `list/watch failed: ${kubeError.message}`,
    );
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => void this.listAndWatch(), delay);
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    this.abort = await this.watcher.watch(
      `/api/v1/namespaces/${this.options.namespace}/${this.options.plural}`,
      {
        fieldSelector: `metadata.name=${this.options.name}`,
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_SECONDS_MIN + Math.floor(Math.random() * WATCH_SECONDS_SPREAD),
      },
      (type: string, object: T) => {
        if (type === 'BOOKMARK') {
          this.resourceVersion = object.metadata?.resourceVersion ?? this.resourceVersion;
          return;
        }
        if (type === 'ERROR') {
          // Typically 410 Gone (resourceVersion too old): relist.
          this.resourceVersion = '';
          this.abort?.abort();
          return;
        }
        this.resourceVersion = object.metadata?.resourceVersion ?? this.resourceVersion;
        if (type === 'DELETED') {
          this.lastDelivered = undefined;
          this.current = undefined;
          try {
            this.handler(undefined);
          } catch (error) {
            this.log.error({ err: error, object: this.description }, 'watch handler failed');
          }
        } else {
          this.deliver(object);
        }
      },
      (error: unknown) => {
        if (this.stopped) return;
        if (error && !isTimeout(error)) {
          this.retryLater(error);
          return;
        }
        if (this.resourceVersion) void this.watch().catch((watchError) => this.retryLater(watchError));
        else void this.listAndWatch();
      },
    );
  }
}
