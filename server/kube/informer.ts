// A list+watch cache that never gives up. The informer of @kubernetes/client-node stops on
// non-watch errors; this one relists and rewatches with exponential backoff, and keeps a
// projection of each object (callers choose how much of an object to hold: 90,000 full
// RestoreReports would not fit the memory budget, their projections do).
//
// The first sync streams: a watch with sendInitialEvents=true (Kubernetes "watch list", served
// from the apiserver's watch cache) delivers every existing object as ADDED and then a bookmark
// annotated k8s.io/initial-events-end, on the same connection that then carries the changes.
// Paged LISTs of 90,000 reports took 170-300 s here (each page read from etcd and converted);
// the stream about half that. An apiserver without the feature (before 1.27, or gated off)
// refuses the request (a 4xx such as 422); the informer then falls back to paged LIST + watch for
// good. An apiserver that is only busy (429 Too Many Requests, 5xx, a dropped connection) has not
// refused anything: the watch list is retried with backoff, as client-go's reflector does.
import { CustomObjectsApi, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { flatString } from '../domain/read-models/report-summary.js';
import { toKubeError } from './errors.js';

export type InformerEvent = 'add' | 'update' | 'delete';
export type InformerHandler<T> = (
  event: InformerEvent,
  key: string,
  current: T | undefined,
  previous: T | undefined,
) => void;

export interface InformerOptions<T> {
  name: string;
  apiVersion: string;
  kind: string;
  /** URL path of the collection, e.g. /apis/rehearsal.dev/v1alpha1/restoretests */
  collectionPath: string;
  /** Set when collectionPath is one namespace's collection (RBAC may grant only that namespace). */
  namespace?: string;
  labelSelector?: string;
  /** What the store keeps of an object; `key` is its store key (to share, not rebuild). */
  project: (object: KubernetesObject, key: string) => T;
  pageSize?: number;
  /** false: always paged LIST + watch (default: try the streaming watch list first). */
  watchList?: boolean;
}

export interface InformerMetrics {
  watchRestarts(informer: string): void;
}

const MIN_BACKOFF_MS = 500;
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
const MAX_BACKOFF_MS = 30_000;

/**
 * Whether a failed watch-list start means "this apiserver does not do watch lists" (a 4xx answer:
 * the parameters were refused) rather than "not now" (429, 408, 5xx, or no HTTP status at all).
 */
export function refusesWatchList(error: unknown): boolean {
  const status = (error as { statusCode?: unknown; code?: unknown } | null | undefined) ?? {};
  const code = typeof status.statusCode === 'number' ? status.statusCode : status.code;
  if (typeof code !== 'number') return false;
  return code >= 400 && code < 500 && code !== 408 && code !== 429;
}

/**
 * "namespace/name" as one flat string: a template literal would make a cons string that keeps
 * the parsed object's namespace and name strings alive for as long as the key is stored.
 */
export function objectKey(object: { metadata?: { namespace?: string; name?: string } }): string {
  const meta = object.metadata ?? {};
  return flatString(meta.namespace ? `${meta.namespace}/${meta.name}` : (meta.name ?? ''));
}

export class ResilientInformer<T> {
  private readonly store = new Map<string, T>();
  private readonly handlers: InformerHandler<T>[] = [];
  private readonly objects: CustomObjectsApi;
  private readonly watcher: Watch;
  private resourceVersion = '';
  private abort: AbortController | undefined;
  private stopped = false;
  private synced = false;
  private backoffMs = MIN_BACKOFF_MS;
  private syncWaiters: (() => void)[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  /** undefined: not tried yet; false: the apiserver refused it, list instead. */
  private watchListWorks: boolean | undefined;
  /** The Status of an ERROR event that ended a watch list before its first object. */
  private watchListStatus: { code?: number; message?: string } | undefined;
  /** Keys seen while a watch list streams its initial events (undefined when not in one). */
  private initialKeys: Set<string> | undefined;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: InformerOptions<T>,
    private readonly log: Logger,
    private readonly metrics?: InformerMetrics,
  ) {
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
    this.watcher = new Watch(kubeConfig);
  }

  onChange(handler: InformerHandler<T>): void {
    this.handlers.push(handler);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** How the initial sync is done: a streaming watch list, or paged LISTs (undefined: not decided yet). */
  get syncMethod(): 'watch-list' | 'list' | undefined {
    if (this.options.watchList === false || this.watchListWorks === false) return 'list';
    return this.watchListWorks ? 'watch-list' : undefined;
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  values(): IterableIterator<T> {
    return this.store.values();
  }

  get size(): number {
    return this.store.size;
  }

  /** Starts list+watch; resolves once the first list is in the cache. */
  start(): Promise<void> {
    this.stopped = false;
    void this.listAndWatch();
    return this.waitForSync();
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.abort?.abort();
  }

  private emit(event: InformerEvent, key: string, current: T | undefined, previous: T | undefined): void {
    for (const handler of this.handlers) {
      try {
        handler(event, key, current, previous);
      } catch (error) {
        this.log.error({ err: error, informer: this.options.name }, 'informer handler failed');
      }
    }
  }

  private async listAndWatch(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.options.watchList !== false && this.watchListWorks !== false) {
        await this.watch(true);
        return;
      }
      await this.relist();
      this.backoffMs = MIN_BACKOFF_MS;
      await this.watch();
    } catch (error) {
      this.retryLater(error);
    }
  }

  /** The watch list failed before its first event: refused → list for good; busy → retry. */
  private watchListFailed(error: unknown): void {
    this.initialKeys = undefined;
    if (this.watchListWorks === undefined && refusesWatchList(error)) {
      this.watchListWorks = false;
      this.log.info(
        { informer: this.options.name, reason: toKubeError(error).message },
        'the apiserver does not stream initial events (watch list); using paged LIST + watch',
      );
      void this.listAndWatch();
      return;
    }
    this.retryLater(error);
  }

  /** Replaces the store with what a complete listing saw (relist or watch list). */
  private completeSync(seen: ReadonlySet<string>, resourceVersion: string): void {
    for (const [key, previous] of this.store) {
      if (!seen.has(key)) {
        this.store.delete(key);
        this.emit('delete', key, undefined, previous);
      }
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private retryLater(error: unknown): void {
    if (this.stopped) return;
    const kubeError = toKubeError(error);
    this.log.warn(
      { informer: this.options.name, kind: kubeError.kind, retryInMs: this.backoffMs },
      `list/watch failed: ${kubeError.message}`,
    );
    this.metrics?.watchRestarts(this.options.name);
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => void this.listAndWatch(), delay);
  }

  private async relist(): Promise<void> {
    const seen = new Set<string>();
    let continueToken: string | undefined;
    let listResourceVersion = '';
    do {
      // CustomObjectsApi returns the list as sent: KubernetesObjectApi.list deserialises its metadata
      // as ObjectMeta and drops `continue`, which silently ended the relist after the first page.
      const [group, version] = this.options.apiVersion.split('/');
      const plural = this.options.collectionPath.split('/').pop()!;
      const request = {
        group: group!,
        version: version!,
        plural,
        ...(this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {}),
        limit: this.options.pageSize ?? 500,
        ...(continueToken ? { _continue: continueToken } : {}),
      };
      const namespace = this.options.namespace;
      const page = (await (namespace
        ? this.objects.listNamespacedCustomObject({ ...request, namespace })
        : this.objects.listClusterCustomObject(request))) as { items: KubernetesObject[]; metadata?: { continue?: string; resourceVersion?: string } };
      for (const object of page.items) {
        const key = objectKey(object);
        seen.add(key);
        this.upsert(key, object);
      }
      continueToken = page.metadata?.continue || undefined;
      listResourceVersion = page.metadata?.resourceVersion ?? listResourceVersion;
    } while (continueToken);
    this.completeSync(seen, listResourceVersion);
  }

  private upsert(key: string, object: KubernetesObject): void {
    const previous = this.store.get(key);
    const current = this.options.project(object, key);
    this.store.set(key, current);
    this.emit(previous === undefined ? 'add' : 'update', key, current, previous);
  }

  /** Watches from this.resourceVersion, or (initialEvents) streams everything first. */
  private async watch(initialEvents = false): Promise<void> {
    if (this.stopped) return;
    const params: Record<string, string | boolean> = initialEvents
      ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }
      : { resourceVersion: this.resourceVersion, allowWatchBookmarks: true };
    if (this.options.labelSelector) params.labelSelector = this.options.labelSelector;
    this.initialKeys = initialEvents ? new Set() : undefined;
    this.abort = await this.watcher.watch(
      this.options.collectionPath,
      params,
      (type, object: KubernetesObject & { code?: number; message?: string }) => {
        if (type === 'BOOKMARK') {
          const resourceVersion = object.metadata?.resourceVersion ?? this.resourceVersion;
          if (this.initialKeys && object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
            const seen = this.initialKeys;
            this.initialKeys = undefined;
            this.watchListWorks = true;
            this.backoffMs = MIN_BACKOFF_MS;
            this.completeSync(seen, resourceVersion);
            return;
          }
          this.resourceVersion = resourceVersion;
          return;
        }
        if (type === 'ERROR' && this.initialKeys) {
          // Refused (e.g. the feature is gated off) or broken before the initial events ended:
          // end the stream; the done callback below falls back to LIST or starts over.
          this.watchListStatus = object;
          this.abort?.abort();
          return;
        }
        if (type === 'ERROR') {
          // Typically 410 Gone: the resourceVersion is too old; the done callback relists.
          this.resourceVersion = '';
          this.abort?.abort();
          return;
        }
        // Initial events come in no particular order: only the closing bookmark's version is a
        // point to resume from.
        if (!this.initialKeys)
          this.resourceVersion = object.metadata?.resourceVersion ?? this.resourceVersion;
        const key = objectKey(object);
        this.initialKeys?.add(key);
        if (type === 'DELETED') {
          const previous = this.store.get(key);
          this.store.delete(key);
          this.emit('delete', key, undefined, previous);
        } else {
          this.upsert(key, object);
        }
      },
      (error: unknown) => {
        if (this.stopped) return;
        if (this.initialKeys) {
          // The stream ended before its initial events did: refused, or cut off midway.
          const neverStarted = this.initialKeys.size === 0;
          this.initialKeys = undefined;
          const name = (error as { name?: string } | null)?.name;
          const status = this.watchListStatus;
          this.watchListStatus = undefined;
          if (neverStarted && this.watchListWorks === undefined) {
            this.watchListFailed(status ?? error ?? new Error('the watch list ended before its first event'));
          } else if (error && name !== 'AbortError' && name !== 'TimeoutError') {
            this.retryLater(error);
          } else {
            void this.listAndWatch();
          }
          return;
        }
        // client-node ends a watch that was quiet for 30 s with a TimeoutError: nothing is wrong,
        // so resume from the last resourceVersion instead of relisting (which costs a full LIST).
        const name = (error as { name?: string } | null)?.name;
        if (error && name !== 'AbortError' && name !== 'TimeoutError') {
          this.retryLater(error);
          return;
        }
        // A normal close (server timeout) or a 410: resume the watch, relisting when needed.
        if (this.resourceVersion) void this.watch().catch((watchError) => this.retryLater(watchError));
        else void this.listAndWatch();
      },
    );
  }
}
