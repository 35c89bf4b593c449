// Which Velero Backup a restore test uses. Pure: the provider lists the Backups and hands them
// here, so every rule below is covered by table tests (test/unit/providers/).
//
// Rules (decision 0002, plus the choices written down here):
// - "latest" or "" = the newest Backup whose phase is Completed and that covers EVERY source
//   namespace. PartiallyFailed backups are never picked implicitly: a backup that finished with
//   errors may lack exactly the objects the test is meant to prove, so using one must be a
//   deliberate choice. Backups being deleted (deletionTimestamp) or already past their expiration
//   (Velero's garbage collector is about to remove them) are skipped too.
// - "Newest" = latest completionTimestamp; ties (Velero records whole seconds) are broken by
//   creationTimestamp, then by name, descending (scheduled backups are named
//   <schedule>-<yyyyMMddHHmmss>, so name order follows time order).
// - A named backup must exist, must be Completed or PartiallyFailed (the phases Velero itself
//   accepts for a restore), must not be being deleted, and must cover every source namespace;
//   otherwise BackupNotFound with a message that says which rule failed.
// - Coverage: the backup's includedNamespaces contains the namespace, or is empty, or contains
//   '*', or contains a glob pattern (*, ?, [abc], [a-z]; Velero ≥1.18) matching it; and no
//   excludedNamespaces entry (name or pattern) matches it.
import type { BackupInfo } from '../provider.js';
import type { VeleroBackup } from './velero-types.js';

export const LATEST = 'latest';

export function isLatest(backupName: string | undefined): boolean {
  return backupName === undefined || backupName === '' || backupName === LATEST;
}

export type BackupSelection =
  | { ok: true; backup: VeleroBackup; info: BackupInfo }
  | { ok: false; reason: 'BackupNotFound'; message: string };

const GLOB_CHARS = /[*?[]/;

/** Velero's namespace glob: '*' any run of characters, '?' one character, [abc] / [a-z] a class. */
export function namespacePatternMatches(pattern: string, namespace: string): boolean {
  if (pattern === '*') return true;
  if (!GLOB_CHARS.test(pattern)) return pattern === namespace;
  let source = '^';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end <= index + 1) return false; // unclosed or empty class: Velero rejects the backup
      source += `[${pattern.slice(index + 1, end).replace(/[\\^\]]/g, '\\$&')}]`;
      index = end;
    } else source += char.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`${source}$`).test(namespace);
}

export function backupCoversNamespace(backup: VeleroBackup, namespace: string): boolean {
  const included = backup.spec?.includedNamespaces ?? [];
  const excluded = backup.spec?.excludedNamespaces ?? [];
  const isIncluded =
    included.length === 0 || included.some((pattern) => namespacePatternMatches(pattern, namespace));
  return isIncluded && !excluded.some((pattern) => namespacePatternMatches(pattern, namespace));
}

export function uncoveredNamespaces(backup: VeleroBackup, sourceNamespaces: readonly string[]): string[] {
  return sourceNamespaces.filter((namespace) => !backupCoversNamespace(backup, namespace));
}

function timeOf(value: string | undefined): number {
  const parsed = value ? Date.parse(value) : NaN;
  return Number.isNaN(parsed) ? -Infinity : parsed;
}

/** Newest first (see the ordering rule at the top). */
export function compareNewestFirst(left: VeleroBackup, right: VeleroBackup): number {
  return (
    timeOf(right.status?.completionTimestamp) - timeOf(left.status?.completionTimestamp) ||
    timeOf(right.metadata.creationTimestamp) - timeOf(left.metadata.creationTimestamp) ||
    (right.metadata.name < left.metadata.name ? -1 : right.metadata.name > left.metadata.name ? 1 : 0)
  );
}

function isExpired(backup: VeleroBackup, now: Date): boolean {
  return timeOf(backup.status?.expiration) <= now.getTime();
}

export function toBackupInfo(backup: VeleroBackup): BackupInfo {
  const included = backup.spec?.includedNamespaces ?? [];
  const info: BackupInfo = {
    name: backup.metadata.name,
    // Velero reads an empty list as "all namespaces"; say so explicitly in the report.
    includedNamespaces: included.length === 0 ? ['*'] : [...included],
  };
  if (backup.status?.completionTimestamp) info.completedAt = backup.status.completionTimestamp;
  if (typeof backup.status?.progress?.totalItems === 'number')
    info.totalItems = backup.status.progress.totalItems;
  // itemsPerKind stays unset: Velero keeps per-kind counts only inside the backup tarball.
  return info;
}

function list(names: readonly string[]): string {
  return names.join(', ');
}

/** The Backups "latest" chooses from (and a randomWithin draw samples, issue 32): see the rules above. */
export function restorableVeleroBackups(
  backups: readonly VeleroBackup[],
  sourceNamespaces: readonly string[],
  now: Date,
): VeleroBackup[] {
  if (sourceNamespaces.length === 0) return [];
  return backups.filter(
    (backup) =>
      backup.status?.phase === 'Completed' &&
      !backup.metadata.deletionTimestamp &&
      !isExpired(backup, now) &&
      uncoveredNamespaces(backup, sourceNamespaces).length === 0,
  );
}

export function selectVeleroBackup(
  backups: readonly VeleroBackup[],
  sourceNamespaces: readonly string[],
  backupName: string | undefined,
  veleroNamespace: string,
  now: Date,
): BackupSelection {
  if (sourceNamespaces.length === 0) {
    return {
      ok: false,
      reason: 'BackupNotFound',
      message: 'no source namespaces given, so no backup can cover them',
    };
  }
  if (isLatest(backupName)) {
    const candidates = restorableVeleroBackups(backups, sourceNamespaces, now).sort(compareNewestFirst);
    const newest = candidates[0];
    if (!newest) {
      return {
        ok: false,
        reason: 'BackupNotFound',
        message:
          `no Completed Velero backup in namespace ${veleroNamespace} covers ${list(sourceNamespaces)} ` +
          `(${backups.length} backup(s) considered; PartiallyFailed backups are used only when named explicitly)`,
      };
    }
    return { ok: true, backup: newest, info: toBackupInfo(newest) };
  }

  const named = backups.find((backup) => backup.metadata.name === backupName);
  if (!named) {
    return {
      ok: false,
      reason: 'BackupNotFound',
      message: `Velero backup ${backupName} not found in namespace ${veleroNamespace}`,
    };
  }
  const phase = named.status?.phase ?? 'New';
  if (phase !== 'Completed' && phase !== 'PartiallyFailed') {
    return {
      ok: false,
      reason: 'BackupNotFound',
      message: `Velero backup ${backupName} is ${phase}; a restore needs a Completed or PartiallyFailed backup`,
    };
  }
  if (named.metadata.deletionTimestamp) {
    return { ok: false, reason: 'BackupNotFound', message: `Velero backup ${backupName} is being deleted` };
  }
  const missing = uncoveredNamespaces(named, sourceNamespaces);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: 'BackupNotFound',
      message: `Velero backup ${backupName} does not include namespace(s) ${list(missing)}`,
    };
  }
  return { ok: true, backup: named, info: toBackupInfo(named) };
}
