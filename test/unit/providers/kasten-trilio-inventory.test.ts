// What Kasten and Trilio back up, for coverage and test drafts (issue 32): Kasten Policies (their
// frequency, subFrequency and appNamespace selector) and RestorePoints, Trilio BackupPlans (the
// crons of the schedule Policies they name) and Backups, shaped as the vendors' documentation and
// CRDs write them; the providers list them across namespaces; and a test drafted from them runs an
// hour after the backup, at most daily, or at the default time with a note saying why.
import { describe, expect, it } from '@jest/globals';
import { computeCoverage, schedulesBacking, type BackupInventory } from '../../../server/domain/read-models/coverage.js';
import { ReportIndex } from '../../../server/domain/read-models/report-index.js';
import { FALLBACK_CRON } from '../../../server/domain/test-drafts/cadence.js';
import { draftRestoreTest } from '../../../server/domain/test-drafts/test-draft.js';
import type { ProviderCustomObjectsApi } from '../../../server/providers/custom-resources.js';
import {
  kastenBackupFacts,
  kastenPolicyCron,
  kastenScheduleFacts,
  kastenSelectedNamespaces,
} from '../../../server/providers/kasten/kasten-inventory.js';
import { KastenProvider } from '../../../server/providers/kasten/kasten.provider.js';
import type { KastenPolicy } from '../../../server/providers/kasten/kasten-types.js';
import { trilioBackupFacts, trilioInventorySchedules } from '../../../server/providers/trilio/trilio-inventory.js';
import { TrilioProvider } from '../../../server/providers/trilio/trilio.provider.js';
import type { TrilioBackupPlan, TrilioPolicy } from '../../../server/providers/trilio/trilio-types.js';

const NOW = new Date('2026-11-28T10:00:00Z'); // a Saturday

/** A Kasten Policy as docs.kasten.io writes one (config.kio.kasten.io/v1alpha1). */
function kastenPolicy(name: string, spec: KastenPolicy['spec'], namespace = 'kasten-io'): KastenPolicy {
  return { apiVersion: 'config.kio.kasten.io/v1alpha1', kind: 'Policy', metadata: { name, namespace }, spec };
}

const backupOf = (appNamespace: string): Pick<NonNullable<KastenPolicy['spec']>, 'actions' | 'selector'> => ({
  actions: [{ action: 'backup' }, { action: 'export' }],
  selector: { matchExpressions: [{ key: 'k10.kasten.io/appNamespace', operator: 'In', values: [appNamespace] }] },
});

/** The documented sample: hourly, retention 24 hourly / 7 daily, matchLabels on the app namespace. */
const SAMPLE_POLICY = kastenPolicy('sample-backup-policy', {
  frequency: '@hourly',
  actions: [{ action: 'backup' }],
  selector: { matchLabels: { 'k10.kasten.io/appNamespace': 'sampleapp' } },
});

/** Trilio's shapes (triliovault.trilio.io/v1): a BackupPlan in its namespace naming schedule Policies. */
function trilioPlan(namespace: string, name: string, policies: { full?: string; incremental?: string; policyNamespace?: string }, paused = false): TrilioBackupPlan {
  const reference = (policy: string | undefined) =>
    policy ? { kind: 'Policy', name: policy, ...(policies.policyNamespace ? { namespace: policies.policyNamespace } : {}) } : undefined;
  const full = reference(policies.full);
  const incremental = reference(policies.incremental);
  return {
    apiVersion: 'triliovault.trilio.io/v1',
    kind: 'BackupPlan',
    metadata: { name, namespace },
    spec: {
      backupConfig: {
        schedulePolicy: { ...(full ? { fullBackupPolicy: full } : {}), ...(incremental ? { incrementalBackupPolicy: incremental } : {}) },
      },
      ...(paused ? { backupPlanFlags: { pauseSchedule: true } } : {}),
    },
  };
}

function trilioSchedule(namespace: string, name: string, schedule: string[], type: NonNullable<TrilioPolicy['spec']>['type'] = 'Schedule'): TrilioPolicy {
  return { apiVersion: 'triliovault.trilio.io/v1', kind: 'Policy', metadata: { name, namespace }, spec: { type, scheduleConfig: { schedule } } };
}

const EMPTY = { namespace: 'x', workloads: [], services: [] };

/** The test drafted for `namespace` from an inventory, as the drafts service picks its schedule. */
function draftFrom(inventory: BackupInventory, namespace: string, provider: 'kasten' | 'trilio') {
  const schedule = schedulesBacking(inventory, namespace, NOW)[0];
  return draftRestoreTest(
    { ...EMPTY, namespace },
    {
      provider,
      backedUpBy: [],
      ...(schedule
        ? { schedule: { name: schedule.name, cron: schedule.cron, ...(schedule.kind ? { kind: schedule.kind } : {}), ...(schedule.cadenceNote ? { note: schedule.cadenceNote } : {}) } }
        : {}),
    },
    { testNamespace: 'rehearsal-system', now: NOW },
  );
}

describe('Kasten Policy cadence: frequency and subFrequency as a UTC cron', () => {
  it.each([
    ['@hourly at minutes 0, 30, 55 (the application-scoped example)', { frequency: '@hourly', subFrequency: { minutes: [55, 0, 30], hours: [0], weekdays: [0], days: [1], months: [1] } }, '0,30,55 * * * *'],
    ['@daily at 02:30', { frequency: '@daily', subFrequency: { minutes: [30], hours: [2] } }, '30 2 * * *'],
    ['@weekly on Friday at 22:00', { frequency: '@weekly', subFrequency: { minutes: [0], hours: [22], weekdays: [5] } }, '0 22 * * 5'],
    ['@monthly on the 1st and 15th at 03:00', { frequency: '@monthly', subFrequency: { minutes: [0], hours: [3], days: [1, 15] } }, '0 3 1,15 * *'],
    ['@yearly on 1 March at 00:10', { frequency: '@yearly', subFrequency: { minutes: [10], hours: [0], days: [1], months: [3] } }, '10 0 1 3 *'],
  ])('%s', (_label, spec, expected) => {
    expect(kastenPolicyCron(kastenPolicy('p', spec))).toEqual({ cron: expected });
  });

  it('assumes the start of the period where subFrequency is absent, and says so', () => {
    expect(kastenPolicyCron(SAMPLE_POLICY)).toEqual({
      cron: '0 * * * *',
      note: expect.stringMatching(/Kasten Policy kasten-io\/sample-backup-policy \(@hourly\) gives no subFrequency minutes.*assumed \(minutes 0, UTC\)/),
    });
    expect(kastenPolicyCron(kastenPolicy('d', { frequency: '@daily', subFrequency: { hours: [5] } }))).toEqual({
      cron: '0 5 * * *',
      note: expect.stringContaining('(minutes 0, UTC)'),
    });
  });

  it('gives no cadence for @onDemand, a PolicyPreset or no frequency, with the reason', () => {
    expect(kastenPolicyCron(kastenPolicy('manual', { frequency: '@onDemand' }))).toEqual({ cron: '', note: expect.stringContaining('on demand only') });
    expect(kastenPolicyCron(kastenPolicy('preset', { presetRef: { name: 'gold', namespace: 'kasten-io' } }))).toEqual({
      cron: '',
      note: expect.stringContaining('PolicyPreset kasten-io/gold, which Rehearsal does not read'),
    });
    expect(kastenPolicyCron(kastenPolicy('bare', {})).cron).toBe('');
  });
});

describe('Kasten selectors and Policies as schedules', () => {
  it('reads k10.kasten.io/appNamespace from matchLabels and In/NotIn expressions; anything else is not guessed', () => {
    expect(kastenSelectedNamespaces({ matchLabels: { 'k10.kasten.io/appNamespace': 'shop' } })).toEqual({ includedNamespaces: ['shop'], excludedNamespaces: [] });
    expect(kastenSelectedNamespaces(backupOf('shop').selector)).toEqual({ includedNamespaces: ['shop'], excludedNamespaces: [] });
    expect(
      kastenSelectedNamespaces({ matchExpressions: [{ key: 'k10.kasten.io/appNamespace', operator: 'NotIn', values: ['kasten-io', 'kube-system'] }] }),
    ).toEqual({ includedNamespaces: ['*'], excludedNamespaces: ['kasten-io', 'kube-system'] });
    expect(kastenSelectedNamespaces(undefined)).toEqual({ includedNamespaces: ['*'], excludedNamespaces: [] });
    expect(kastenSelectedNamespaces({ matchLabels: { tier: 'gold' } })).toBeNull();
    // In shop and In orders at once selects nothing: not "every namespace".
    expect(
      kastenSelectedNamespaces({
        matchLabels: { 'k10.kasten.io/appNamespace': 'shop' },
        matchExpressions: [{ key: 'k10.kasten.io/appNamespace', operator: 'In', values: ['orders'] }],
      }),
    ).toBeNull();
  });

  it('keeps only Policies that take backups, whose namespaces it can name', () => {
    expect(kastenScheduleFacts(SAMPLE_POLICY)).toMatchObject({
      kind: 'Policy',
      name: 'kasten-io/sample-backup-policy',
      cron: '0 * * * *',
      includedNamespaces: ['sampleapp'],
      paused: false,
    });
    expect(kastenScheduleFacts(kastenPolicy('import', { frequency: '@hourly', actions: [{ action: 'import' }] }))).toBeUndefined();
    expect(kastenScheduleFacts(kastenPolicy('labels', { frequency: '@daily', actions: [{ action: 'backup' }], selector: { matchLabels: { tier: 'gold' } } }))).toBeUndefined();
  });

  it('counts RestorePoints not being deleted as backups of their namespace', () => {
    expect(
      kastenBackupFacts([
        { metadata: { name: 'rp-1', namespace: 'shop', creationTimestamp: '2026-11-27T00:05:00Z' }, status: { actionTime: '2026-11-27T00:00:00Z' } },
        { metadata: { name: 'rp-0', namespace: 'shop', deletionTimestamp: '2026-11-28T00:00:00Z' } },
      ]),
    ).toEqual([{ kind: 'RestorePoint', name: 'rp-1', includedNamespaces: ['shop'], excludedNamespaces: [], completedAt: '2026-11-27T00:00:00Z' }]);
  });
});

describe('Trilio BackupPlans as schedules', () => {
  const policies = [
    trilioSchedule('shop', 'nightly', ['30 1 * * *']),
    trilioSchedule('trilio-system', 'hourly-and-nightly', ['0 */1 * * *', '0 0 * * *']),
    trilioSchedule('shop', 'keep-7', [], 'Retention'),
  ];

  it('takes every cron of the schedule Policies a plan names (in its namespace unless the reference says), per plan', () => {
    const schedules = trilioInventorySchedules(
      [
        trilioPlan('shop', 'shop-plan', { full: 'nightly' }),
        trilioPlan('orders', 'orders-plan', { full: 'hourly-and-nightly', incremental: 'hourly-and-nightly', policyNamespace: 'trilio-system' }),
      ],
      policies,
    );
    expect(schedules.map((schedule) => [schedule.name, schedule.cron, schedule.includedNamespaces])).toEqual([
      ['shop-plan', '30 1 * * *', ['shop']],
      ['orders-plan', '0 */1 * * *', ['orders']],
      ['orders-plan', '0 0 * * *', ['orders']],
    ]);
    expect(schedules.every((schedule) => schedule.kind === 'BackupPlan' && schedule.cadenceNote?.includes('as UTC'))).toBe(true);
  });

  it('says why a plan has no cadence (no schedule Policy, or one that holds no cron), and reads pauseSchedule', () => {
    const [onDemand] = trilioInventorySchedules([trilioPlan('a', 'a-plan', {})], policies);
    expect(onDemand).toMatchObject({ cron: '', cadenceNote: expect.stringContaining('names no schedule Policy'), includedNamespaces: ['a'] });
    const [retention] = trilioInventorySchedules([trilioPlan('shop', 'p', { full: 'keep-7' })], policies);
    expect(retention).toMatchObject({ cron: '', cadenceNote: expect.stringContaining('no cron found in schedule Policy shop/keep-7') });
    const [missing] = trilioInventorySchedules([trilioPlan('shop', 'p', { full: 'gone' })], policies);
    expect(missing!.cadenceNote).toContain('shop/gone');
    expect(trilioInventorySchedules([trilioPlan('shop', 'p', { full: 'nightly' }, true)], policies)[0]!.paused).toBe(true);
  });

  it('counts only Available Backups', () => {
    expect(
      trilioBackupFacts([
        { metadata: { name: 'b-1', namespace: 'shop' }, status: { status: 'Available', completionTimestamp: '2026-11-28T01:40:00Z' } },
        { metadata: { name: 'b-2', namespace: 'shop' }, status: { status: 'InProgress' } },
        { metadata: { name: 'b-3', namespace: 'shop' }, status: { status: 'Failed' } },
      ]),
    ).toEqual([{ kind: 'Backup', name: 'b-1', includedNamespaces: ['shop'], excludedNamespaces: [], completedAt: '2026-11-28T01:40:00Z' }]);
  });
});

describe('drafts from Kasten and Trilio schedules', () => {
  const kastenInventory: BackupInventory = {
    schedules: [
      kastenPolicy('shop-daily', { frequency: '@daily', subFrequency: { minutes: [30], hours: [2] }, ...backupOf('shop') }),
      kastenPolicy('shop-weekly', { frequency: '@weekly', subFrequency: { minutes: [0], hours: [22], weekdays: [5] }, ...backupOf('shop') }),
      kastenPolicy('ledger-manual', { frequency: '@onDemand', ...backupOf('ledger') }),
      kastenPolicy('team-hourly', { frequency: '@hourly', ...backupOf('team') }, 'team'),
    ].flatMap((policy) => kastenScheduleFacts(policy) ?? []),
    backups: kastenBackupFacts([{ metadata: { name: 'rp-ledger', namespace: 'ledger' }, status: { actionTime: '2026-11-27T12:00:00Z' } }]),
    clusterNamespaces: ['shop', 'ledger', 'team'],
  };

  it('Kasten: the most frequent Policy, an hour later, at most daily; the tool and Policy named', () => {
    const shop = draftFrom(kastenInventory, 'shop', 'kasten');
    expect(shop.test.spec).toMatchObject({ provider: 'kasten', backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] }, schedule: { cron: '30 3 * * *', timezone: 'UTC' } });
    expect(shop.test.metadata.annotations!['rehearsal.dev/generated-from']).toBe('kasten Policy/kasten-io/shop-daily');
    expect(shop.notes[0]).toBe('backed up by kasten Policy kasten-io/shop-daily (30 2 * * *); runs daily at 03:30 UTC, 1h after the backup (at most once a day)');

    // An application-scoped hourly Policy without subFrequency: the assumed start of the hour is said.
    const team = draftFrom(kastenInventory, 'team', 'kasten');
    expect(team.test.spec.schedule.cron).toBe('0 0 * * *');
    expect(team.notes).toContainEqual(expect.stringContaining('gives no subFrequency minutes'));
  });

  it('Kasten: an @onDemand Policy gives the default time, and the notes say the API gave no cadence', () => {
    const ledger = draftFrom(kastenInventory, 'ledger', 'kasten');
    expect(ledger.test.spec.schedule.cron).toBe(FALLBACK_CRON);
    expect(ledger.notes[0]).toBe('backed up by kasten Policy kasten-io/ledger-manual; runs daily at 04:00 UTC: Kasten Policy kasten-io/ledger-manual runs on demand only (@onDemand)');
    // Coverage still counts ledger as backed up, by its Policy and its RestorePoint.
    const coverage = computeCoverage({ inventory: kastenInventory, tests: [], reports: ReportIndex.from([]), now: NOW, minimumWindowSeconds: 86_400 });
    expect(coverage.namespaces.find((entry) => entry.namespace === 'ledger')!.backedUpBy).toEqual(['Policy/kasten-io/ledger-manual', 'RestorePoint/rp-ledger']);
  });

  it('Trilio: the most frequent cron of the BackupPlan; without a schedule Policy, the default and why', () => {
    const inventory: BackupInventory = {
      schedules: trilioInventorySchedules(
        [trilioPlan('shop', 'shop-plan', { full: 'nightly' }), trilioPlan('orders', 'orders-plan', { full: 'weekly', incremental: 'six-hourly' }), trilioPlan('adhoc', 'adhoc-plan', {})],
        [trilioSchedule('shop', 'nightly', ['30 1 * * *']), trilioSchedule('orders', 'weekly', ['0 2 * * 0']), trilioSchedule('orders', 'six-hourly', ['0 */6 * * *'])],
      ),
      backups: [],
      clusterNamespaces: [],
    };
    const shop = draftFrom(inventory, 'shop', 'trilio');
    expect(shop.test.spec).toMatchObject({ provider: 'trilio', schedule: { cron: '30 2 * * *' } });
    expect(shop.test.metadata.annotations!['rehearsal.dev/generated-from']).toBe('trilio BackupPlan/shop-plan');
    expect(shop.notes).toContainEqual(expect.stringContaining('as CronJobs; Rehearsal reads them as UTC'));
    expect(draftFrom(inventory, 'orders', 'trilio').test.spec.schedule.cron).toBe('0 1 * * *');
    const adhoc = draftFrom(inventory, 'adhoc', 'trilio');
    expect(adhoc.test.spec.schedule.cron).toBe(FALLBACK_CRON);
    expect(adhoc.notes[0]).toContain('names no schedule Policy (backups on demand only)');
  });
});

describe('the providers list the inventory across namespaces', () => {
  function clusterApi(items: Record<string, unknown[]>): { api: ProviderCustomObjectsApi; listed: string[] } {
    const listed: string[] = [];
    const api = {
      listClusterCustomObject: async (param: { group: string; version: string; plural: string }) => {
        listed.push(`${param.plural}.${param.group}/${param.version}`);
        return { items: items[param.plural] ?? [] };
      },
    } as unknown as ProviderCustomObjectsApi;
    return { api, listed };
  }

  it('Kasten: Policies and RestorePoints', async () => {
    const { api, listed } = clusterApi({
      policies: [SAMPLE_POLICY],
      restorepoints: [{ metadata: { name: 'rp', namespace: 'sampleapp' }, status: { actionTime: '2026-11-28T00:00:00Z' } }],
    });
    const inventory = await new KastenProvider(api).listBackupInventory();
    expect(listed.sort()).toEqual(['policies.config.kio.kasten.io/v1alpha1', 'restorepoints.apps.kio.kasten.io/v1alpha1']);
    expect(inventory.schedules.map((schedule) => schedule.name)).toEqual(['kasten-io/sample-backup-policy']);
    expect(inventory.backups.map((backup) => backup.name)).toEqual(['rp']);
  });

  it('Trilio: BackupPlans, Policies and Backups', async () => {
    const { api, listed } = clusterApi({
      backupplans: [trilioPlan('shop', 'shop-plan', { full: 'nightly' })],
      policies: [trilioSchedule('shop', 'nightly', ['30 1 * * *'])],
      backups: [{ metadata: { name: 'b', namespace: 'shop' }, status: { status: 'Available' } }],
    });
    const inventory = await new TrilioProvider(api).listBackupInventory();
    expect(listed.sort()).toEqual(['backupplans.triliovault.trilio.io/v1', 'backups.triliovault.trilio.io/v1', 'policies.triliovault.trilio.io/v1']);
    expect(inventory.schedules.map((schedule) => schedule.cron)).toEqual(['30 1 * * *']);
    expect(inventory.backups.map((backup) => backup.name)).toEqual(['b']);
  });
});
