// Reads a run's sandboxes for the diagnosis: Pods that are not Ready, Warning events, claims,
// ExternalName Services, pull Secrets the failing Pods name, StorageClasses, and the container logs
// the test's spec.logCollection asks for (issue 30: domain/diagnosis/log-selection.ts chooses them,
// the diagnosis scrubs and bounds them). Reads only; every namespace read is a sandbox of the run. A part that
// cannot be read is left out (a diagnosis with less detail beats none).
import type { CoreV1Api, CoreV1Event, StorageV1Api, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type {
  ContainerLog,
  ObservedClaim,
  ObservedContainer,
  ObservedEvent,
  ObservedPod,
  ObservedService,
  SandboxObservation,
} from '../domain/diagnosis/observation.js';
import { selectLogSources, type LoggablePod, type LogSource } from '../domain/diagnosis/log-selection.js';
import { resolveLogCollection, type LogCollectionSettings } from '../domain/run/log-collection.js';
import { SANDBOX_STORAGE_QUOTA_NAME } from '../domain/run/storage-quota.js';
import { isKind, kubeCall } from '../kube/errors.js';

export interface SandboxObserverOptions {
  core: Pick<
    CoreV1Api,
    | 'listNamespacedPod'
    | 'listNamespacedEvent'
    | 'listNamespacedPersistentVolumeClaim'
    | 'listNamespacedService'
    | 'readNamespacedSecret'
    | 'readNamespacedPodLog'
    | 'readNamespacedResourceQuota'
  >;
  storage: Pick<StorageV1Api, 'listStorageClass'>;
  /** Read container logs (false where there is no kubelet to ask, e.g. KWOK). */
  logs: boolean;
}

/**
 * Most bytes one log read returns (memory; the diagnosis keeps far less, log-bounds.ts). The
 * kubelet applies it after tailLines, from the oldest of those lines, so a read that reaches it
 * is marked truncated.
 */
const LOG_READ_LIMIT_BYTES = 1024 * 1024;

function isReady(pod: V1Pod): boolean {
  return (pod.status?.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

/** A Pod as the log selection sees it. */
export function loggablePod(pod: V1Pod): LoggablePod {
  const containerOfStatus = (status: V1ContainerStatus, init: boolean) => ({
    name: status.name,
    init,
    ready: status.ready,
    restartCount: status.restartCount ?? 0,
    started: Boolean(status.state?.running ?? status.state?.terminated ?? status.lastState?.terminated),
  });
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    ready: isReady(pod),
    containers: [
      ...(pod.status?.initContainerStatuses ?? []).map((status) => containerOfStatus(status, true)),
      ...(pod.status?.containerStatuses ?? []).map((status) => containerOfStatus(status, false)),
    ],
  };
}

function containerOf(status: V1ContainerStatus): ObservedContainer {
  const state = status.state;
  const base = { name: status.name, ready: status.ready, restartCount: status.restartCount ?? 0 };
  const last = status.lastState?.terminated?.reason;
  const lastTermination = last ? { lastTerminationReason: last } : {};
  if (state?.waiting) {
    return {
      ...base,
      state: 'waiting',
      ...(state.waiting.reason ? { reason: state.waiting.reason } : {}),
      ...(state.waiting.message ? { message: state.waiting.message } : {}),
      ...lastTermination,
    };
  }
  if (state?.terminated) {
    return {
      ...base,
      state: 'terminated',
      ...(state.terminated.reason ? { reason: state.terminated.reason } : {}),
      ...(state.terminated.message ? { message: state.terminated.message } : {}),
      exitCode: state.terminated.exitCode,
      ...lastTermination,
    };
  }
  return { ...base, state: state?.running ? 'running' : 'unknown', ...lastTermination };
}

export function observePod(pod: V1Pod): ObservedPod | undefined {
  const conditions = pod.status?.conditions ?? [];
  const ready = isReady(pod);
  if (ready || pod.metadata?.deletionTimestamp) return undefined;
  const scheduled = conditions.find((condition) => condition.type === 'PodScheduled');
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    phase: pod.status?.phase ?? 'Unknown',
    ready,
    ...(scheduled && scheduled.status !== 'True'
      ? { unscheduled: { reason: scheduled.reason ?? '', message: scheduled.message ?? '' } }
      : {}),
    containers: [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]
      .filter((status) => !status.ready)
      .map(containerOf),
    imagePullSecrets: (pod.spec?.imagePullSecrets ?? []).map((ref) => ref.name ?? '').filter(Boolean),
  };
}

function eventOf(event: CoreV1Event): ObservedEvent {
  return {
    namespace: event.metadata?.namespace ?? '',
    reason: event.reason ?? '',
    message: event.message ?? '',
    object: `${event.involvedObject?.kind ?? ''}/${event.involvedObject?.name ?? ''}`,
    count: event.count ?? event.series?.count ?? 1,
    lastSeen: toIso(event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp),
  };
}

function toIso(value: Date | string | undefined): string {
  if (!value) return '';
  return value instanceof Date ? value.toISOString() : String(value);
}

async function optional<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await kubeCall(read);
  } catch {
    return undefined;
  }
}

export class SandboxObserver {
  constructor(private readonly options: SandboxObserverOptions) {}

  async observe(
    sandboxes: { source: string; sandbox: string }[],
    logCollection: LogCollectionSettings = resolveLogCollection(undefined),
  ): Promise<SandboxObservation> {
    const { core } = this.options;
    const observation: SandboxObservation = {
      sandboxes,
      pods: [],
      events: [],
      claims: [],
      externalNames: [],
      missingPullSecrets: [],
      logs: [],
    };
    const classes = await optional(() => this.options.storage.listStorageClass({}));
    if (classes) observation.storageClasses = classes.items.map((item) => item.metadata?.name ?? '');
    for (const { sandbox: namespace } of sandboxes) {
      const [pods, events, claims, services, quota] = await Promise.all([
        optional(() => core.listNamespacedPod({ namespace })),
        optional(() => core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' })),
        optional(() => core.listNamespacedPersistentVolumeClaim({ namespace })),
        optional(() => core.listNamespacedService({ namespace })),
        optional(() => core.readNamespacedResourceQuota({ namespace, name: SANDBOX_STORAGE_QUOTA_NAME })),
      ]);
      if (quota) {
        (observation.storageQuotas ??= []).push({
          namespace,
          name: SANDBOX_STORAGE_QUOTA_NAME,
          hard: { ...(quota.status?.hard ?? quota.spec?.hard ?? {}) },
          used: { ...(quota.status?.used ?? {}) },
        });
      }
      const failing = (pods?.items ?? []).map(observePod).filter((pod): pod is ObservedPod => pod !== undefined);
      observation.pods.push(...failing);
      observation.events.push(...(events?.items ?? []).map(eventOf));
      observation.claims.push(
        ...(claims?.items ?? []).map(
          (claim): ObservedClaim => ({
            namespace,
            name: claim.metadata?.name ?? '',
            phase: claim.status?.phase ?? 'Pending',
            ...(claim.spec?.storageClassName ? { storageClass: claim.spec.storageClassName } : {}),
          }),
        ),
      );
      observation.externalNames.push(
        ...(services?.items ?? [])
          .filter((service) => service.spec?.type === 'ExternalName' && service.spec.externalName)
          .map((service): ObservedService => ({ namespace, name: service.metadata?.name ?? '', externalName: service.spec!.externalName! })),
      );
      for (const name of new Set(failing.flatMap((pod) => pod.imagePullSecrets))) {
        if (await this.secretMissing(namespace, name)) observation.missingPullSecrets.push(`${namespace}/${name}`);
      }
      if (this.options.logs) {
        const present = (pods?.items ?? []).filter((pod) => !pod.metadata?.deletionTimestamp).map(loggablePod);
        observation.logs.push(...(await this.logsOf(selectLogSources(present, logCollection), logCollection.lines)));
      }
    }
    observation.events.sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
    if (!this.options.logs) observation.logsNote = 'container logs are not collected on this server (REHEARSAL_DIAGNOSTICS_LOGS=false)';
    else if (observation.logs.length === 0) {
      observation.logsNote = `no container log to collect (containers: ${logCollection.containers})`;
    }
    return observation;
  }

  private async secretMissing(namespace: string, name: string): Promise<boolean> {
    try {
      await kubeCall(() => this.options.core.readNamespacedSecret({ namespace, name }));
      return false;
    } catch (error) {
      return isKind(error, 'NotFound');
    }
  }

  private async logsOf(sources: LogSource[], lines: number): Promise<ContainerLog[]> {
    const logs: ContainerLog[] = [];
    for (const source of sources) {
      const text = await optional(() =>
        this.options.core.readNamespacedPodLog({
          namespace: source.namespace,
          name: source.pod,
          container: source.container,
          tailLines: lines,
          limitBytes: LOG_READ_LIMIT_BYTES,
          previous: source.previous,
        }),
      );
      if (!text) continue;
      const content = String(text);
      logs.push({
        namespace: source.namespace,
        pod: source.pod,
        container: source.container,
        ...(source.init ? { init: true } : {}),
        ...(source.previous ? { previous: true } : {}),
        lines: content.split('\n').filter(Boolean),
        ...(content.length >= LOG_READ_LIMIT_BYTES ? { truncated: true } : {}),
      });
    }
    return logs;
  }
}
