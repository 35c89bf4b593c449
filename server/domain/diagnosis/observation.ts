// What a run's sandboxes looked like: the observation that server/triage/ gathers (pods that are
// not Ready, Warning events, claims, logs) and that the diagnosis and its hints read. Its own
// module so that diagnosis.ts and hints.ts both depend on it, not on each other.

export interface ObservedContainer {
  name: string;
  ready: boolean;
  /** @isInt */
  restartCount: number;
  state: 'waiting' | 'running' | 'terminated' | 'unknown';
  reason?: string;
  message?: string;
  /** @isInt */
  exitCode?: number;
  /** Reason of the previous termination (OOMKilled shows here while the container restarts). */
  lastTerminationReason?: string;
}

export interface ObservedPod {
  namespace: string;
  name: string;
  phase: string;
  ready: boolean;
  /** The PodScheduled condition when it is not True (the scheduler's reason and message). */
  unscheduled?: { reason: string; message: string };
  containers: ObservedContainer[];
  imagePullSecrets: string[];
}

export interface ObservedEvent {
  namespace: string;
  reason: string;
  message: string;
  /** Kind/name of the object, e.g. Pod/web-1. */
  object: string;
  /** @isInt */
  count: number;
  lastSeen: string;
}

export interface ObservedClaim {
  namespace: string;
  name: string;
  phase: string;
  storageClass?: string;
}

/** A sandbox's storage quota (issue 27): its limits and what is counted against them. */
export interface ObservedQuota {
  namespace: string;
  name: string;
  hard: Record<string, string>;
  used: Record<string, string>;
}

export interface ObservedService {
  namespace: string;
  name: string;
  externalName: string;
}

export interface ContainerLog {
  namespace: string;
  pod: string;
  container: string;
  /** An init container's log (issue 30). */
  init?: boolean;
  /** The previous instance's log of a container that restarted (issue 30). */
  previous?: boolean;
  /** Newest last; scrubbed of secrets (secret-scrub.ts) before they are stored. */
  lines: string[];
  /** True when older lines were left out to stay within the size bounds (log-bounds.ts). */
  truncated?: boolean;
  /**
   * How many older lines were left out; readers show it as a marker before the lines.
   * @isInt
   */
  omittedLines?: number;
}

/** Everything read from a run's sandboxes. */
export interface SandboxObservation {
  /** source → sandbox of the run. */
  sandboxes: { source: string; sandbox: string }[];
  /** Pods that are not Ready (Ready ones are left out). */
  pods: ObservedPod[];
  /** Warning events, newest first. */
  events: ObservedEvent[];
  claims: ObservedClaim[];
  /** Services of type ExternalName. */
  externalNames: ObservedService[];
  /** Image pull Secrets the failing pods name that do not exist in their sandbox ("ns/name"). */
  missingPullSecrets: string[];
  /** The sandboxes' storage quotas (rehearsal-sandbox-storage) that could be read. */
  storageQuotas?: ObservedQuota[];
  /**
   * PersistentVolumeClaims of the backup that are not in the sandboxes (the report's completeness):
   * a claim the apiserver refused is never an object, so no event or claim shows it.
   */
  missingClaims?: number;
  /** StorageClasses of the cluster; undefined when they could not be read. */
  storageClasses?: string[];
  logs: ContainerLog[];
  /** Why there are no logs, when there are none (KWOK has no kubelet; logs switched off). */
  logsNote?: string;
}
