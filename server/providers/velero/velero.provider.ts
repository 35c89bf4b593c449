// Velero through the Kubernetes API only (decision 0002): Backups are read, Restores are created in
// the Velero namespace with a complete source → sandbox namespaceMapping, Schedules are read.
//
// Errors: every call goes through kubeCall (status code → KubeError), then:
// - the Velero API absent (404 on a velero.io collection: CRDs not installed) or the apiserver
//   unreachable/overloaded (KubeError 'Unavailable') → ProviderError('ProviderUnavailable');
// - a 404 on one named object is told apart from an absent API by probing its collection once;
// - 400/422 on creating a Restore → ProviderError('RestoreRejected');
// - everything else (Forbidden, Unauthorized, ...) stays a KubeError for the one error handler,
//   which names the missing RBAC verb; hiding it behind "unavailable" would mislead operators.
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Provider, VolumeRestoreReport } from '../../domain/resources/resources.js';
import type { ScheduleInfo } from '../../domain/read-models/views.js';
import { isKind, KubeError, kubeCall } from '../../kube/errors.js';
import {
  ProviderError,
  type BackedUpKind,
  type BackupInfo,
  type BackupProvider,
  type RestoreProgress,
  type RestoreRef,
  type RestoreRequest,
} from '../provider.js';
import { isLatest, restorableVeleroBackups, selectVeleroBackup, toBackupInfo } from './backup-selection.js';
import { toBackupFacts, toScheduleFacts } from './velero-inventory.js';
import { parseResourceList } from './backup-resource-list.js';
import { readBackupManifests } from './backup-contents.js';
import type { BackupManifests } from '../../domain/preflight/preflight-checks.js';
import type { RestoreLookup } from './restore-watch.js';
import { listSnapshotRestores, listVolumeRestores } from './volume-restores.js';
import { DEFAULT_DOWNLOAD_LIMITS, downloadVeleroFile, type DownloadLimits } from './download-request.js';
import type { VeleroConfigMapApi, VeleroCustomObjectsApi } from './velero-types.js';
import { transformsConfigMapName } from '../../domain/run/sandbox-names.js';
import { orderVolumes } from '../../domain/run/volume-data.js';
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import {
  buildResourceModifierConfigMap,
  buildRestoreObject,
  restoreMatchesRequest,
  toRestoreProgress,
  toScheduleInfo,
} from './velero-restore.js';
import {
  BACKUPS,
  RESTORES,
  SCHEDULES,
  VELERO_DEFAULT_NAMESPACE,
  VELERO_GROUP,
  VELERO_VERSION,
  type VeleroBackup,
  type VeleroList,
  type VeleroRestore,
  type VeleroSchedule,
} from './velero-types.js';

export interface VeleroProviderOptions {
  /** Namespace Velero runs in; default "velero". Each call may override it (providerNamespace). */
  namespace?: string;
  /**
   * API group of Velero's CRDs; default velero.io. Only a test seam (the integration tests point
   * it at a group no cluster serves to prove the "Velero not installed" path against a real
   * apiserver); Velero distributions such as OADP serve velero.io too.
   */
  apiGroup?: string;
  /** Clock for backup expiry; tests inject one. */
  now?: () => Date;
  /** List page size. */
  pageSize?: number;
  /**
   * Restores followed by watch (restore-watch.ts): progress is read from its cache, and only a
   * Restore the cache does not hold (yet) is read from the API.
   */
  restores?: RestoreLookup;
  /** Bounds of reading a backup's resource list from the object store (tests shorten them). */
  downloadLimits?: DownloadLimits;
  /**
   * ConfigMaps in Velero's namespace (the resource modifiers of each run). Made from the
   * KubeConfig when one is given; required with a ready CustomObjectsApi.
   */
  configMaps?: VeleroConfigMapApi;
}

const DEFAULT_PAGE_SIZE = 250;

export class VeleroProvider implements BackupProvider {
  readonly name: Provider = 'velero';
  readonly marksTransformedObjects = true;
  readonly defaultNamespace: string;
  private readonly api: VeleroCustomObjectsApi;
  private readonly group: string;
  private readonly now: () => Date;
  private readonly pageSize: number;
  private readonly downloadLimits: DownloadLimits;
  private readonly restores: RestoreLookup | undefined;
  private readonly configMaps: VeleroConfigMapApi | undefined;
  /** Whether restore progress comes from a watch (the engine then polls less often). */
  readonly watchesRestores: boolean;

  /** Takes a KubeConfig (the provider makes its own client) or a ready CustomObjectsApi. */
  constructor(kubeConfigOrApi: KubeConfig | VeleroCustomObjectsApi, options: VeleroProviderOptions = {}) {
    this.api =
      kubeConfigOrApi instanceof KubeConfig
        ? kubeConfigOrApi.makeApiClient(CustomObjectsApi)
        : kubeConfigOrApi;
    this.defaultNamespace = options.namespace || VELERO_DEFAULT_NAMESPACE;
    this.group = options.apiGroup || VELERO_GROUP;
    this.now = options.now ?? (() => new Date());
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.downloadLimits = options.downloadLimits ?? DEFAULT_DOWNLOAD_LIMITS;
    this.restores = options.restores;
    this.configMaps =
      options.configMaps ?? (kubeConfigOrApi instanceof KubeConfig ? kubeConfigOrApi.makeApiClient(CoreV1Api) : undefined);
    this.watchesRestores = options.restores !== undefined;
  }

  async selectBackup(
    sourceNamespaces: readonly string[],
    backupName: string,
    providerNamespace?: string,
  ): Promise<BackupInfo> {
    const namespace = this.namespaceOf(providerNamespace);
    let backups: VeleroBackup[];
    if (isLatest(backupName)) {
      backups = await this.listAll<VeleroBackup>(BACKUPS, namespace);
    } else {
      const named = await this.getOptional<VeleroBackup>(BACKUPS, namespace, backupName);
      backups = named ? [named] : [];
    }
    const selection = selectVeleroBackup(backups, sourceNamespaces, backupName, namespace, this.now());
    if (!selection.ok) throw new ProviderError(selection.reason, selection.message);
    return selection.info;
  }

  async listRestorableBackups(sourceNamespaces: readonly string[], providerNamespace?: string): Promise<BackupInfo[]> {
    const namespace = this.namespaceOf(providerNamespace);
    const backups = await this.listAll<VeleroBackup>(BACKUPS, namespace);
    return restorableVeleroBackups(backups, sourceNamespaces, this.now()).map(toBackupInfo);
  }

  async startRestore(request: RestoreRequest, providerNamespace?: string): Promise<RestoreRef> {
    const namespace = this.namespaceOf(providerNamespace);
    // buildRestoreObject re-validates the mapping before anything is sent.
    const restore = buildRestoreObject(request, namespace);
    const ref: RestoreRef = { namespace, name: request.name };
    // Start following the namespace's Restores now, so the watch is up by the first progress read.
    this.restores?.follow(namespace);
    // The resource modifiers first: Velero reads them when it validates the Restore.
    await this.createResourceModifiers(request, namespace);
    try {
      await this.call(`creating Restore ${namespace}/${request.name}`, () =>
        this.api.createNamespacedCustomObject({ ...this.resource(RESTORES, namespace), body: restore }),
      );
      return ref;
    } catch (error) {
      if (isKind(error, 'AlreadyExists')) {
        const existing = await this.getOptional<VeleroRestore>(RESTORES, namespace, request.name);
        if (!existing) {
          throw new ProviderError(
            'RestoreNotFound',
            `Restore ${namespace}/${request.name} vanished while being adopted`,
          );
        }
        if (!restoreMatchesRequest(existing, restore)) {
          throw new ProviderError(
            'RestoreRejected',
            `a Restore named ${namespace}/${request.name} already exists with another backup or namespace mapping; ` +
              'Rehearsal will not adopt it',
          );
        }
        return ref;
      }
      if (isKind(error, 'NotFound')) {
        // No restores collection, or no Velero namespace: either way Velero is not there.
        throw this.unavailable(RESTORES, namespace, (error as Error).message);
      }
      if (isKind(error, 'Invalid')) {
        const causes = (error as KubeError).causes
          .map((cause) => [cause.field, cause.message].filter(Boolean).join(': '))
          .filter(Boolean);
        throw new ProviderError(
          'RestoreRejected',
          `Kubernetes rejected Restore ${namespace}/${request.name}: ${(error as KubeError).message}` +
            (causes.length > 0 ? ` (${causes.join('; ')})` : ''),
        );
      }
      throw error;
    }
  }

  async getRestoreProgress(ref: RestoreRef): Promise<RestoreProgress> {
    const restore =
      this.restores?.cachedRestore(ref.namespace, ref.name) ?? (await this.getOptional<VeleroRestore>(RESTORES, ref.namespace, ref.name));
    if (!restore)
      throw new ProviderError('RestoreNotFound', `Velero Restore ${ref.namespace}/${ref.name} not found`);
    const progress = toRestoreProgress(restore);
    if (progress.state === 'pending' || progress.state === 'running') return progress;
    const volumes = orderVolumes([...(await this.volumeRestores(ref)), ...(await this.snapshotRestores(ref, restore))]);
    return volumes.length > 0 ? { ...progress, volumes } : progress;
  }

  /** The per-volume objects of an ended restore (volume-restores.ts), read once when it has ended. */
  private volumeRestores(ref: RestoreRef): Promise<VolumeRestoreReport[]> {
    return listVolumeRestores(ref, this.group, (what, request) => this.call(what, () => request(this.api)));
  }

  /** The claims an ended restore provisioned from CSI snapshots (volume-restores.ts). */
  private snapshotRestores(ref: RestoreRef, restore: VeleroRestore): Promise<VolumeRestoreReport[]> {
    return listSnapshotRestores(ref, restore.spec?.backupName, this.group, this.downloadLimits, (what, request) =>
      this.call(what, () => request(this.api)),
    );
  }

  async deleteRestore(ref: RestoreRef): Promise<void> {
    await this.deleteResourceModifiers(ref);
    try {
      await this.call(`deleting Restore ${ref.namespace}/${ref.name}`, () =>
        this.api.deleteNamespacedCustomObject({
          ...this.resource(RESTORES, ref.namespace),
          name: ref.name,
          propagationPolicy: 'Background',
        }),
      );
    } catch (error) {
      // Already gone, or the Velero API itself is gone: either way there is nothing to delete.
      if (isKind(error, 'NotFound')) return;
      throw error;
    }
  }

  /** The backup's resource list (a DownloadRequest for its BackupResourceList), per kind. */
  async backedUpObjects(
    backupName: string,
    sourceNamespaces: readonly string[],
    providerNamespace?: string,
  ): Promise<BackedUpKind[]> {
    const namespace = this.namespaceOf(providerNamespace);
    const file = await this.call(`reading the resource list of Backup ${namespace}/${backupName}`, () =>
      downloadVeleroFile(
        this.api,
        this.group,
        namespace,
        { kind: 'BackupResourceList', name: backupName },
        this.downloadLimits,
      ),
    );
    return parseResourceList(file.toString('utf8'), sourceNamespaces);
  }

  /** The backup's resource list and, from its tarball, the claims, pods and workloads (backup-contents.ts). */
  async backupManifests(backupName: string, sourceNamespaces: readonly string[], providerNamespace?: string): Promise<BackupManifests> {
    const namespace = this.namespaceOf(providerNamespace);
    const [kinds, objects] = await Promise.all([
      this.backedUpObjects(backupName, sourceNamespaces, providerNamespace),
      this.call(`reading the contents of Backup ${namespace}/${backupName}`, () =>
        readBackupManifests(this.api, this.group, namespace, backupName, sourceNamespaces, this.downloadLimits),
      ),
    ]);
    return { kinds, objects };
  }

  async listSchedules(providerNamespace?: string): Promise<ScheduleInfo[]> {
    const namespace = this.namespaceOf(providerNamespace);
    const schedules = await this.listAll<VeleroSchedule>(SCHEDULES, namespace);
    return schedules
      .map(toScheduleInfo)
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  async listBackupInventory(
    providerNamespace?: string,
  ): Promise<{ schedules: BackupScheduleFacts[]; backups: BackupFacts[] }> {
    const namespace = this.namespaceOf(providerNamespace);
    const [schedules, backups] = await Promise.all([
      this.listAll<VeleroSchedule>(SCHEDULES, namespace),
      this.listAll<VeleroBackup>(BACKUPS, namespace),
    ]);
    return { schedules: schedules.map(toScheduleFacts), backups: toBackupFacts(backups) };
  }

  // ------------------------------------------------------------------ resource modifiers

  /** Creates the run's resource-modifier ConfigMap; one already there is adopted only when identical. */
  private async createResourceModifiers(request: RestoreRequest, namespace: string): Promise<void> {
    const configMap = buildResourceModifierConfigMap(request, namespace);
    if (!configMap) return;
    const api = this.configMapApi();
    const where = `ConfigMap ${namespace}/${configMap.metadata.name}`;
    try {
      await this.call(`creating ${where}`, () => api.createNamespacedConfigMap({ namespace, body: configMap }));
      return;
    } catch (error) {
      if (isKind(error, 'NotFound')) throw this.unavailable('configmaps', namespace, (error as Error).message);
      if (!isKind(error, 'AlreadyExists')) throw error;
    }
    const existing = await this.call(`reading ${where}`, () => api.readNamespacedConfigMap({ namespace, name: configMap.metadata.name }));
    if (JSON.stringify(existing.data ?? {}) !== JSON.stringify(configMap.data)) {
      throw new ProviderError('RestoreRejected', `${where} already exists with other resource modifiers; Rehearsal will not use it`);
    }
  }

  private async deleteResourceModifiers(ref: RestoreRef): Promise<void> {
    if (!this.configMaps) return;
    const api = this.configMaps;
    const name = transformsConfigMapName(ref.name);
    try {
      await this.call(`deleting ConfigMap ${ref.namespace}/${name}`, () => api.deleteNamespacedConfigMap({ namespace: ref.namespace, name }));
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
  }

  private configMapApi(): VeleroConfigMapApi {
    if (!this.configMaps) throw new Error('VeleroProvider needs a ConfigMap client for restore transforms (options.configMaps)');
    return this.configMaps;
  }

  // ------------------------------------------------------------------ Kubernetes access

  private namespaceOf(providerNamespace: string | undefined): string {
    return providerNamespace || this.defaultNamespace;
  }

  private resource(plural: string, namespace: string) {
    return { group: this.group, version: VELERO_VERSION, namespace, plural };
  }

  private unavailable(plural: string, namespace: string, detail: string): ProviderError {
    return new ProviderError(
      'ProviderUnavailable',
      `Velero API ${plural}.${this.group}/${VELERO_VERSION} in namespace ${namespace} is unavailable: ${detail}`,
    );
  }

  /** kubeCall, with an unreachable or overloaded apiserver reported as ProviderUnavailable. */
  private async call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await kubeCall(request);
    } catch (error) {
      if (isKind(error, 'Unavailable')) {
        throw new ProviderError(
          'ProviderUnavailable',
          `Kubernetes API unavailable while ${what}: ${(error as Error).message}`,
        );
      }
      throw error;
    }
  }

  /** Every object of a collection, page by page; a 404 on the collection means Velero is absent. */
  private async listAll<T>(plural: string, namespace: string): Promise<T[]> {
    const items: T[] = [];
    let continueToken: string | undefined;
    do {
      let page: VeleroList<T>;
      try {
        page = (await this.call(`listing ${plural} in ${namespace}`, () =>
          this.api.listNamespacedCustomObject({
            ...this.resource(plural, namespace),
            limit: this.pageSize,
            ...(continueToken ? { _continue: continueToken } : {}),
          }),
        )) as VeleroList<T>;
      } catch (error) {
        if (isKind(error, 'NotFound')) {
          throw this.unavailable(plural, namespace, 'the cluster does not serve it (is Velero installed?)');
        }
        throw error;
      }
      items.push(...(page.items ?? []));
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    return items;
  }

  /** One object, or undefined when it does not exist (but ProviderUnavailable when Velero is absent). */
  private async getOptional<T>(plural: string, namespace: string, name: string): Promise<T | undefined> {
    try {
      return (await this.call(`reading ${plural} ${namespace}/${name}`, () =>
        this.api.getNamespacedCustomObject({ ...this.resource(plural, namespace), name }),
      )) as T;
    } catch (error) {
      if (!isKind(error, 'NotFound')) throw error;
    }
    // A 404 for one object also comes back when the whole resource type is missing: ask the
    // collection (status codes only, never message text) which of the two it is.
    try {
      await this.call(`probing ${plural} in ${namespace}`, () =>
        this.api.listNamespacedCustomObject({ ...this.resource(plural, namespace), limit: 1 }),
      );
    } catch (error) {
      if (isKind(error, 'NotFound')) {
        throw this.unavailable(plural, namespace, 'the cluster does not serve it (is Velero installed?)');
      }
      throw error;
    }
    return undefined;
  }
}
