// Failure triage (issue 16): what a failed or partial run's sandbox looked like before it could be
// deleted, and what probably went wrong. The observation is gathered by server/triage/; this
// module only shapes it, maps the common causes to remediation hints (hints.ts) and keeps
// the result bounded.
import { hintsFor, type Hint } from './hints.js';
import type { ContainerLog, ObservedClaim, ObservedEvent, ObservedPod, SandboxObservation } from './observation.js';

export interface RunDiagnosis {
  test: { name: string; namespace: string };
  runId: string;
  /** The RestoreReport the diagnosis belongs to. */
  report: string;
  result: string;
  collectedAt: string;
  sandboxes: string[];
  hints: Hint[];
  pods: ObservedPod[];
  events: ObservedEvent[];
  claims: ObservedClaim[];
  logs: ContainerLog[];
  logsNote?: string;
  /** True when parts were left out to stay within the size bound. */
  truncated: boolean;
  /**
   * True when the restored application's own text (log lines, event and container messages) was
   * left out: the caller may not get secrets in every source namespace.
   */
  redacted?: boolean;
}

export interface DiagnosisContext {
  test: { name: string; namespace: string };
  runId: string;
  report: string;
  result: string;
  collectedAt: Date;
}

/** Bound of the JSON before compression; the compressed object is a few KB. */
export const MAX_DIAGNOSIS_BYTES = 24_000;
const MAX_EVENTS = 25;
const MAX_PODS = 20;
const MAX_LOG_LINES = 20;
const MAX_LINE_LENGTH = 300;
const MAX_MESSAGE_LENGTH = 500;

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function clipPod(pod: ObservedPod): ObservedPod {
  return {
    ...pod,
    ...(pod.unscheduled ? { unscheduled: { ...pod.unscheduled, message: clip(pod.unscheduled.message, MAX_MESSAGE_LENGTH) } } : {}),
    containers: pod.containers.map((container) =>
      container.message ? { ...container, message: clip(container.message, MAX_MESSAGE_LENGTH) } : container,
    ),
  };
}

export function diagnose(observation: SandboxObservation, context: DiagnosisContext): RunDiagnosis {
  const diagnosis: RunDiagnosis = {
    test: context.test,
    runId: context.runId,
    report: context.report,
    result: context.result,
    collectedAt: context.collectedAt.toISOString(),
    sandboxes: observation.sandboxes.map((entry) => entry.sandbox),
    hints: hintsFor(observation),
    pods: observation.pods.slice(0, MAX_PODS).map(clipPod),
    events: observation.events
      .slice(0, MAX_EVENTS)
      .map((event) => ({ ...event, message: clip(event.message, MAX_MESSAGE_LENGTH) })),
    claims: observation.claims,
    logs: observation.logs.map((log) => ({
      ...log,
      lines: log.lines.slice(-MAX_LOG_LINES).map((line) => clip(line, MAX_LINE_LENGTH)),
    })),
    ...(observation.logsNote ? { logsNote: observation.logsNote } : {}),
    truncated: observation.pods.length > MAX_PODS || observation.events.length > MAX_EVENTS,
  };
  return bound(diagnosis, MAX_DIAGNOSIS_BYTES);
}

function size(diagnosis: RunDiagnosis): number {
  return new TextEncoder().encode(JSON.stringify(diagnosis)).length;
}

/** Drops detail (logs first, then events, then pods) until the JSON fits; hints always stay. */
export function bound(diagnosis: RunDiagnosis, maxBytes: number): RunDiagnosis {
  const result: RunDiagnosis = { ...diagnosis, logs: [...diagnosis.logs], events: [...diagnosis.events], pods: [...diagnosis.pods] };
  for (const list of ['logs', 'events', 'pods'] as const) {
    while (size(result) > maxBytes && result[list].length > 0) {
      result[list].pop();
      result.truncated = true;
    }
  }
  return result;
}
