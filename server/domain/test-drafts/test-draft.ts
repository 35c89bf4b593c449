// A drafted RestoreTest for one backed-up namespace (issue 32): the provider and the backup source
// from the tool's schedule, the cron from its cadence (cadence.ts), the checks from the namespace's
// workloads and Services (draft-checks.ts). A draft is a proposal: nothing here writes, and what
// the user must complete is in the rehearsal.dev/generated-todo annotation, not hidden.
import { ANNOTATION_AUTHOR, API_VERSION, type Provider, type RestoreTest } from '../resources/resources.js';
import { draftCadence, FALLBACK_CRON, type DraftedCadence } from './cadence.js';
import { draftChecks } from './draft-checks.js';
import { labelName } from './draft-names.js';
import type { NamespaceFacts } from './namespace-facts.js';

export const ANNOTATION_GENERATED_FROM = 'rehearsal.dev/generated-from';
export const ANNOTATION_GENERATED_TODO = 'rehearsal.dev/generated-todo';

/** The backup schedule chosen for a namespace (its most frequent), or none. */
export interface DraftBackupSource {
  provider: Provider;
  /** "Schedule/daily" and "Backup/manual-1" entries, as coverage names them. */
  backedUpBy: readonly string[];
  schedule?: {
    /** The tool's word: Schedule (Velero, the default), Policy (Kasten), BackupPlan (Trilio). */
    kind?: string;
    name: string;
    /** Empty when the tool's objects do not give the cadence (note says why). */
    cron: string;
    /** What was assumed about the cadence, or why there is none: carried into the notes. */
    note?: string;
  };
}

export interface DraftOptions {
  /** Where the test would live (the request's namespace). */
  testNamespace: string;
  now: Date;
  delaySeconds?: number;
}

export interface TestDraft {
  /** The source namespace. */
  namespace: string;
  test: RestoreTest;
  /** How the draft was derived and what was left out, one sentence each. */
  notes: string[];
  /** What the user must complete before the test can pass; empty when nothing. */
  todo: string[];
}

/** `<namespace>-restore`, or a shortened form with a hash when that exceeds 63 characters. */
export function draftTestName(namespace: string): string {
  return labelName([namespace, 'restore']);
}

/** The first note: what backs the namespace up and when the test runs, and why. */
function cadenceNotes(source: DraftBackupSource, cadence: DraftedCadence): string[] {
  const schedule = source.schedule;
  if (!schedule) return [cadence.reason];
  const kind = schedule.kind ?? 'Schedule';
  const backedUp = `backed up by ${source.provider} ${kind} ${schedule.name}${schedule.cron ? ` (${schedule.cron})` : ''}`;
  // An empty cron's note is in the reason already.
  return [`${backedUp}; runs ${cadence.reason}`, ...(schedule.note && schedule.cron ? [schedule.note] : [])];
}

export function draftRestoreTest(facts: NamespaceFacts, source: DraftBackupSource, options: DraftOptions): TestDraft {
  const schedule = source.schedule;
  // A schedule whose tool does not say when it runs: the default time, with the tool's reason.
  const cadence: DraftedCadence =
    schedule && schedule.cron === ''
      ? { cron: FALLBACK_CRON, reason: `daily at 04:00 UTC: ${schedule.note ?? `the ${source.provider} ${schedule.kind ?? 'Schedule'} gives no cadence`}` }
      : draftCadence(schedule?.cron, options.now, options.delaySeconds);
  const drafted = draftChecks(facts);
  const notes = [...cadenceNotes(source, cadence), ...drafted.notes];
  const annotations: Record<string, string> = {
    [ANNOTATION_GENERATED_FROM]: schedule
      ? `${source.provider} ${schedule.kind ?? 'Schedule'}/${schedule.name}`
      : `${source.provider} ${source.backedUpBy.join(', ') || 'backups'}`,
  };
  if (drafted.todo.length > 0) annotations[ANNOTATION_GENERATED_TODO] = drafted.todo.join('; ');
  const test: RestoreTest = {
    apiVersion: API_VERSION,
    kind: 'RestoreTest',
    metadata: {
      name: draftTestName(facts.namespace),
      namespace: options.testNamespace,
      annotations,
    },
    spec: {
      provider: source.provider,
      backupSource: { backupName: 'latest', namespaces: [{ name: facts.namespace }] },
      schedule: { cron: cadence.cron, timezone: 'UTC' },
      // No checks drafted (an empty namespace): the default checks apply (all pods Ready, every
      // Service has a ready endpoint), which is what a test without healthChecks does anyway.
      ...(drafted.checks.length > 0 ? { healthChecks: { checks: drafted.checks } } : {}),
    },
  };
  if (drafted.checks.length === 0) notes.push('no workload or Service to check: the default checks apply');
  if (options.testNamespace !== facts.namespace) {
    // Decision 0018: a test restoring another namespace runs only for a recorded author.
    notes.push(
      `applied with kubectl or a GitOps tool, set the annotation ${ANNOTATION_AUTHOR} to the user (or ServiceAccount) that applies it, who needs get secrets in ${facts.namespace}; the API (generate --apply) records it itself`,
    );
  }
  return { namespace: facts.namespace, test, notes, todo: drafted.todo };
}
