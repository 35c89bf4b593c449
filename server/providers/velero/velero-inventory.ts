// What Velero backs up, for the coverage view (issue 16): its Schedules (not paused or paused;
// the domain skips paused ones) and its Backups that completed, fully or partially. A Backup that
// failed holds no restorable data, so it does not make a namespace "backed up".
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import type { VeleroBackup, VeleroSchedule } from './velero-types.js';

const RESTORABLE_PHASES = new Set(['Completed', 'PartiallyFailed']);

export function toScheduleFacts(schedule: VeleroSchedule): BackupScheduleFacts {
  return {
    name: schedule.metadata.name,
    cron: schedule.spec?.schedule ?? '',
    paused: schedule.spec?.paused === true,
    includedNamespaces: [...(schedule.spec?.template?.includedNamespaces ?? [])],
    excludedNamespaces: [...(schedule.spec?.template?.excludedNamespaces ?? [])],
    ...(schedule.status?.lastBackup ? { lastBackup: schedule.status.lastBackup } : {}),
  };
}

/** The backups that hold restorable data, as coverage facts. */
export function toBackupFacts(backups: readonly VeleroBackup[]): BackupFacts[] {
  return backups
    .filter((backup) => RESTORABLE_PHASES.has(backup.status?.phase ?? '') && !backup.metadata.deletionTimestamp)
    .map((backup) => ({
      name: backup.metadata.name,
      includedNamespaces: [...(backup.spec?.includedNamespaces ?? [])],
      excludedNamespaces: [...(backup.spec?.excludedNamespaces ?? [])],
      ...(backup.status?.completionTimestamp ? { completedAt: backup.status.completionTimestamp } : {}),
    }));
}
