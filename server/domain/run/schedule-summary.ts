// One phrase for a test's schedule, for places that show it as text (the PDF, tables): since
// issue 32 a schedule may be a cron, new backups of the source, or both, and an onBackup-only
// test has no cron to print.
import { everyNthOf } from './backup-trigger.js';

/** 2nd, 3rd, 4th, 11th, 21st … */
function ordinal(value: number): string {
  const teen = value % 100 >= 11 && value % 100 <= 13;
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[value % 10] ?? 'th';
  return `${value}${suffix}`;
}

export function onBackupPhrase(onBackup: { everyNth?: number } | undefined): string | undefined {
  if (!onBackup) return undefined;
  const everyNth = everyNthOf(onBackup);
  return everyNth === 1 ? 'on each new backup' : `on every ${ordinal(everyNth)} new backup`;
}

/** "0 2 * * *", "on each new backup", or "0 2 * * * and on every 3rd new backup". */
export function scheduleSummary(schedule: { cron?: string; onBackup?: { everyNth?: number } }): string {
  const parts = [schedule.cron, onBackupPhrase(schedule.onBackup)].filter((part): part is string => Boolean(part));
  return parts.join(' and ');
}
