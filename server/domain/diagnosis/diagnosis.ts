// Failure triage (issue 16): what a failed or partial run's sandbox looked like before it could be
// deleted, and what probably went wrong. The observation is gathered by server/triage/; this
// module only shapes it, maps the common causes to remediation hints (hints.ts) and keeps
// the result bounded.
import { hintsFor, type Hint } from './hints.js';
import { boundLogs } from './log-bounds.js';
import type { ContainerLog, ObservedClaim, ObservedEvent, ObservedPod, SandboxObservation } from './observation.js';
import { scrubText } from './secret-scrub.js';
import { resolveLogCollection, type LogCollectionSettings } from '../run/log-collection.js';

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
  /** The test's spec.logCollection the logs were collected with, defaults applied (issue 30). */
  logCollection?: LogCollectionSettings;
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
  /** Absent: every default (the test has no spec.logCollection). */
  logCollection?: LogCollectionSettings;
}

/**
 * Bound of the JSON before compression: the logs' own bound (64 KiB per run, log-bounds.ts) and
 * room for the pods, events and hints. Compressed, a diagnosis is a few KB to a few tens of KB.
 */
export const MAX_DIAGNOSIS_BYTES = 96_000;
const MAX_EVENTS = 25;
const MAX_PODS = 20;
const MAX_MESSAGE_LENGTH = 500;

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

function clipPod(pod: ObservedPod): ObservedPod {
  return {
    ...pod,
    ...(pod.unscheduled ? { unscheduled: { ...pod.unscheduled, message: clip(pod.unscheduled.message, MAX_MESSAGE_LENGTH) } } : {}),
    containers: pod.containers.map((container) =>
      container.message ? { ...container, message: clip(scrubText(container.message), MAX_MESSAGE_LENGTH) } : container,
    ),
  };
}

export function diagnose(observation: SandboxObservation, context: DiagnosisContext): RunDiagnosis {
  const settings = context.logCollection ?? resolveLogCollection(undefined);
  // Events are always read (the hints need them); events: false only keeps them out of the diagnosis.
  const events = settings.events ? observation.events : [];
  const diagnosis: RunDiagnosis = {
    test: context.test,
    runId: context.runId,
    report: context.report,
    result: context.result,
    collectedAt: context.collectedAt.toISOString(),
    sandboxes: observation.sandboxes.map((entry) => entry.sandbox),
    hints: hintsFor(observation),
    pods: observation.pods.slice(0, MAX_PODS).map(clipPod),
    events: events
      .slice(0, MAX_EVENTS)
      .map((event) => ({ ...event, message: clip(scrubText(event.message), MAX_MESSAGE_LENGTH) })),
    claims: observation.claims,
    logs: boundLogs(observation.logs, settings.lines),
    ...(observation.logsNote ? { logsNote: observation.logsNote } : {}),
    logCollection: settings,
    truncated: observation.pods.length > MAX_PODS || events.length > MAX_EVENTS,
  };
  return bound(diagnosis, MAX_DIAGNOSIS_BYTES);
}

function size(diagnosis: RunDiagnosis): number {
  return new TextEncoder().encode(JSON.stringify(diagnosis)).length;
}

/**
 * Drops detail until the JSON fits; hints always stay. Log lines go first, oldest first and from
 * the longest log (a quarter of its lines at a time, counted in omittedLines), so every container
 * keeps its newest lines as long as possible; then the emptied logs, events and pods.
 */
export function bound(diagnosis: RunDiagnosis, maxBytes: number): RunDiagnosis {
  const result: RunDiagnosis = { ...diagnosis, logs: [...diagnosis.logs], events: [...diagnosis.events], pods: [...diagnosis.pods] };
  while (size(result) > maxBytes) {
    let longest = -1;
    result.logs.forEach((log, position) => {
      if (log.lines.length > 0 && (longest < 0 || log.lines.length > result.logs[longest]!.lines.length)) longest = position;
    });
    if (longest < 0) break;
    const log = result.logs[longest]!;
    const dropped = Math.max(1, Math.floor(log.lines.length / 4));
    // A log cut to nothing goes: an empty entry would only say "there was a log".
    if (dropped >= log.lines.length) result.logs.splice(longest, 1);
    else result.logs[longest] = { ...log, lines: log.lines.slice(dropped), truncated: true, omittedLines: (log.omittedLines ?? 0) + dropped };
    result.truncated = true;
  }
  for (const list of ['logs', 'events', 'pods'] as const) {
    while (size(result) > maxBytes && result[list].length > 0) {
      result[list].pop();
      result.truncated = true;
    }
  }
  return result;
}
