// What Trilio backs up, for backup coverage and test drafts (issue 32): its BackupPlans, as
// schedules, and its Available Backups, as backups. Pure: the provider lists the objects.
//
// A BackupPlan backs up the namespace it lives in. Its cadence is in the Policies of type Schedule
// that spec.backupConfig.schedulePolicy names (fullBackupPolicy, incrementalBackupPolicy; a
// reference without a namespace means the plan's), each holding cron expressions in
// spec.scheduleConfig.schedule. Every distinct cron becomes one schedule of the plan's name, so
// coverage takes the most frequent and a drafted test follows it. TVK runs those crons as
// Kubernetes CronJobs, which Rehearsal reads as UTC (the note says so). A plan without a schedule
// Policy, or whose Policies cannot be found, still backs its namespace up (on demand): it gets an
// empty cron and a note saying why. `pauseSchedule` (spec.backupPlanFlags or status) pauses it.
// ClusterBackupPlans are not read: Rehearsal restores Trilio Backups of one namespace.
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import type { TrilioBackup, TrilioBackupPlan, TrilioObjectReference, TrilioPolicy } from './trilio-types.js';

function keyOf(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

/** The schedules of one BackupPlan: one per distinct cron of its schedule Policies, or one without a cron and a note. */
export function trilioScheduleFacts(
  plan: TrilioBackupPlan,
  policies: ReadonlyMap<string, TrilioPolicy>,
): BackupScheduleFacts[] {
  const namespace = plan.metadata.namespace;
  if (!namespace || plan.metadata.deletionTimestamp) return [];
  const base = {
    kind: 'BackupPlan',
    name: plan.metadata.name,
    paused: plan.spec?.backupPlanFlags?.pauseSchedule === true || plan.status?.pauseSchedule === true,
    includedNamespaces: [namespace],
    excludedNamespaces: [],
  };
  const schedulePolicy = plan.spec?.backupConfig?.schedulePolicy;
  const references = [schedulePolicy?.fullBackupPolicy, schedulePolicy?.incrementalBackupPolicy].filter(
    (reference): reference is TrilioObjectReference => Boolean(reference?.name),
  );
  if (references.length === 0) {
    return [{ ...base, cron: '', cadenceNote: `Trilio BackupPlan ${namespace}/${plan.metadata.name} names no schedule Policy (backups on demand only)` }];
  }
  const crons = new Set<string>();
  const missing: string[] = [];
  for (const reference of references) {
    const key = keyOf(reference.namespace || namespace, reference.name);
    const policy = policies.get(key);
    const schedule = policy?.spec?.type === 'Schedule' ? policy.spec.scheduleConfig?.schedule ?? [] : [];
    if (schedule.length === 0) missing.push(key);
    for (const cron of schedule) if (cron.trim()) crons.add(cron.trim());
  }
  if (crons.size === 0) {
    return [{ ...base, cron: '', cadenceNote: `Trilio BackupPlan ${namespace}/${plan.metadata.name}: no cron found in schedule Policy ${missing.join(', ')}` }];
  }
  const note = `Trilio runs the crons of BackupPlan ${namespace}/${plan.metadata.name} as CronJobs; Rehearsal reads them as UTC`;
  return [...crons].sort().map((cron) => ({ ...base, cron, cadenceNote: note }));
}

/** Every BackupPlan's schedules, resolving their Policies among those listed. */
export function trilioInventorySchedules(
  plans: readonly TrilioBackupPlan[],
  policies: readonly TrilioPolicy[],
): BackupScheduleFacts[] {
  const byKey = new Map(policies.map((policy) => [keyOf(policy.metadata.namespace, policy.metadata.name), policy]));
  return plans.flatMap((plan) => trilioScheduleFacts(plan, byKey));
}

/** Available Backups (the only ones a restore can use) hold restorable data of their own namespace. */
export function trilioBackupFacts(backups: readonly TrilioBackup[]): BackupFacts[] {
  return backups
    .filter((backup) => backup.metadata.namespace && !backup.metadata.deletionTimestamp && backup.status?.status === 'Available')
    .map((backup) => ({
      kind: 'Backup',
      name: backup.metadata.name,
      includedNamespaces: [backup.metadata.namespace!],
      excludedNamespaces: [],
      ...(backup.status?.completionTimestamp ? { completedAt: backup.status.completionTimestamp } : {}),
    }));
}
