// What Kasten backs up, for backup coverage and test drafts (issue 32): its Policies that take
// backups, as schedules, and its RestorePoints, as backups. Pure: the provider lists the objects.
//
// A Policy's cadence is `frequency` (@hourly, @daily, @weekly, @monthly, @yearly) and, within the
// period, `subFrequency` (minutes, hours, weekdays, days, months; UTC). Kasten's API does not say
// when a Policy without `subFrequency` runs within its period: Rehearsal assumes the start (minute
// 0, midnight, Sunday, the 1st, January) and says so in the schedule's note, which a drafted test
// carries. An @onDemand Policy, or one whose frequency comes from a PolicyPreset (not read), gives
// no cadence at all: the note says why, and a test drafted from it runs at the default time.
//
// Which namespaces a Policy covers comes from its selector on k10.kasten.io/appNamespace
// (matchLabels, or matchExpressions In / NotIn); no selector means every application. A selector on
// other labels (namespace labels) cannot be resolved from names alone: such a Policy is left out,
// and its namespaces still count as backed up through their RestorePoints.
import type { BackupFacts, BackupScheduleFacts } from '../../domain/read-models/coverage.js';
import type { KastenPolicy, KastenRestorePoint, KastenSelector } from './kasten-types.js';

export const APP_NAMESPACE_LABEL = 'k10.kasten.io/appNamespace';

type SubFrequency = NonNullable<NonNullable<KastenPolicy['spec']>['subFrequency']>;

/** The cron fields each frequency fixes, in cron order (minute hour day-of-month month day-of-week). */
const FREQUENCIES: Record<string, readonly (keyof SubFrequency)[]> = {
  '@hourly': ['minutes'],
  '@daily': ['minutes', 'hours'],
  '@weekly': ['minutes', 'hours', 'weekdays'],
  '@monthly': ['minutes', 'hours', 'days'],
  '@yearly': ['minutes', 'hours', 'days', 'months'],
};

/** When in its period a Policy without that subFrequency field is taken to run: the start. */
const PERIOD_START: Record<keyof SubFrequency, number> = { minutes: 0, hours: 0, weekdays: 0, days: 1, months: 1 };

export interface KastenCadence {
  /** UTC cron; empty when the Policy gives no cadence. */
  cron: string;
  /** What Rehearsal assumed, or why there is no cadence; absent when the Policy says it all. */
  note?: string;
}

function policyName(policy: KastenPolicy): string {
  return `${policy.metadata.namespace ?? ''}/${policy.metadata.name}`.replace(/^\//, '');
}

/** The UTC cron of a Kasten Policy's frequency and subFrequency. */
export function kastenPolicyCron(policy: KastenPolicy): KastenCadence {
  const name = policyName(policy);
  const frequency = policy.spec?.frequency?.trim();
  if (!frequency) {
    const preset = policy.spec?.presetRef;
    return {
      cron: '',
      note: preset?.name
        ? `Kasten Policy ${name} takes its frequency from PolicyPreset ${preset.namespace ? `${preset.namespace}/` : ''}${preset.name}, which Rehearsal does not read`
        : `Kasten Policy ${name} has no frequency`,
    };
  }
  if (frequency === '@onDemand') return { cron: '', note: `Kasten Policy ${name} runs on demand only (@onDemand)` };
  const fields = FREQUENCIES[frequency];
  // Anything else is passed on as written: a cron Rehearsal can read is used, else the draft says it cannot be read.
  if (!fields) return { cron: frequency };
  const sub = policy.spec?.subFrequency ?? {};
  const assumed: string[] = [];
  const value = (field: keyof SubFrequency): string => {
    if (!fields.includes(field)) return '*';
    const listed = (sub[field] ?? []).filter((entry) => Number.isInteger(entry));
    if (listed.length > 0) return [...new Set(listed)].sort((a, b) => a - b).join(',');
    assumed.push(`${field} ${PERIOD_START[field]}`);
    return String(PERIOD_START[field]);
  };
  const cron = [value('minutes'), value('hours'), value('days'), value('months'), value('weekdays')].join(' ');
  return assumed.length > 0
    ? {
        cron,
        note: `Kasten Policy ${name} (${frequency}) gives no subFrequency ${assumed.map((entry) => entry.split(' ')[0]).join(', ')}; Kasten's API does not say when in the period it runs, so the start was assumed (${assumed.join(', ')}, UTC)`,
      }
    : { cron };
}

/**
 * The namespaces a selector picks by k10.kasten.io/appNamespace (["*"] and exclusions = every
 * application but those); null when it selects by anything else, or selects nothing.
 */
export function kastenSelectedNamespaces(
  selector: KastenSelector | undefined,
): { includedNamespaces: string[]; excludedNamespaces: string[] } | null {
  const labels = Object.entries(selector?.matchLabels ?? {});
  const expressions = selector?.matchExpressions ?? [];
  if (labels.some(([key]) => key !== APP_NAMESPACE_LABEL) || expressions.some((entry) => entry.key !== APP_NAMESPACE_LABEL)) {
    return null;
  }
  let included: Set<string> | undefined;
  const excluded = new Set<string>();
  // Every term must hold (a selector is an AND): intersect what the In terms allow.
  const allow = (names: readonly string[]): void => {
    included = new Set(included ? names.filter((name) => included!.has(name)) : names);
  };
  for (const [, value] of labels) allow([value]);
  for (const expression of expressions) {
    const values = expression.values ?? [];
    if (expression.operator === 'In') allow(values);
    else if (expression.operator === 'NotIn') values.forEach((value) => excluded.add(value));
    else return null; // Exists / DoesNotExist: every application has the label, but say nothing rather than guess
  }
  if (!included) return { includedNamespaces: ['*'], excludedNamespaces: [...excluded] };
  const names = [...included].filter((name) => !excluded.has(name));
  // Terms no namespace satisfies: the Policy backs nothing up (an empty list would read as "every namespace").
  return names.length > 0 ? { includedNamespaces: names, excludedNamespaces: [] } : null;
}

/** A Policy that takes backups, as a backup schedule; undefined for any other Policy or one whose namespaces cannot be told. */
export function kastenScheduleFacts(policy: KastenPolicy): BackupScheduleFacts | undefined {
  if (policy.metadata.deletionTimestamp) return undefined;
  if (!(policy.spec?.actions ?? []).some((entry) => entry.action === 'backup')) return undefined;
  const selected = kastenSelectedNamespaces(policy.spec?.selector);
  if (!selected) return undefined;
  const cadence = kastenPolicyCron(policy);
  return {
    kind: 'Policy',
    name: policyName(policy),
    cron: cadence.cron,
    ...(cadence.note ? { cadenceNote: cadence.note } : {}),
    paused: false,
    includedNamespaces: selected.includedNamespaces,
    excludedNamespaces: selected.excludedNamespaces,
  };
}

/** RestorePoints hold restorable backups of their own namespace; one being deleted does not count. */
export function kastenBackupFacts(points: readonly KastenRestorePoint[]): BackupFacts[] {
  return points
    .filter((point) => point.metadata.namespace && !point.metadata.deletionTimestamp)
    .map((point) => {
      const completedAt = point.status?.actionTime ?? point.metadata.creationTimestamp;
      return {
        kind: 'RestorePoint',
        name: point.metadata.name,
        includedNamespaces: [point.metadata.namespace!],
        excludedNamespaces: [],
        ...(completedAt ? { completedAt } : {}),
      };
    });
}
