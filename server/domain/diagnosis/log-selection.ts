// Which container logs a diagnosis reads (spec.logCollection, issue 30): a pure choice over the
// sandbox's Pods, so the rules are tested without a kubelet. failing = the containers that are
// not Ready in Pods that are not Ready (what the diagnosis is about); all = every container of
// every Pod. Init containers of the chosen Pods come along (a failed migration explains a crash
// loop); a container that restarted also gives its previous instance's log, where a crash-looping
// container's last words are.
import type { LogCollectionSettings } from '../run/log-collection.js';

/** A Pod as the selection needs it (server/triage/ builds it from the Pod's status). */
export interface LoggablePod {
  namespace: string;
  name: string;
  ready: boolean;
  containers: LoggableContainer[];
}

export interface LoggableContainer {
  name: string;
  init: boolean;
  ready: boolean;
  restartCount: number;
  /** The container has (or had) an instance whose log the kubelet can give. */
  started: boolean;
}

/** One log to read: the current instance's, or the previous one's. */
export interface LogSource {
  namespace: string;
  pod: string;
  container: string;
  init: boolean;
  previous: boolean;
}

export function selectLogSources(pods: readonly LoggablePod[], settings: LogCollectionSettings): LogSource[] {
  const sources: LogSource[] = [];
  for (const pod of pods) {
    if (settings.containers === 'failing' && pod.ready) continue;
    for (const container of pod.containers) {
      if (container.init ? !settings.initContainers : settings.containers === 'failing' && container.ready) continue;
      const source = { namespace: pod.namespace, pod: pod.name, container: container.name, init: container.init };
      if (container.started) sources.push({ ...source, previous: false });
      if (settings.previous && container.restartCount > 0) sources.push({ ...source, previous: true });
    }
  }
  return sources;
}
