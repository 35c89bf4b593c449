// Issue 32 in the engine: the Preparing read of a randomWithin test asks the provider for every
// restorable backup, draws one seeded by the test uid and run id with the window ending at the
// run's recorded start, and hands the choice and its record to the run policy. Asked again (a
// restart, or a provider hiccup in Preparing) for the same run it draws the same backup, even when
// a newer backup has completed since.
import { describe, expect, it } from '@jest/globals';
import { KubeRunReads } from '../../../server/engine/run/kube-run-reads.js';
import type { CurrentRun, RestoreTest } from '../../../server/domain/resources/resources.js';
import { ProviderError, type BackupInfo, type BackupProvider } from '../../../server/providers/provider.js';

const RUN_START = '2026-03-31T02:00:00Z';

function daily(days: number, from = Date.parse('2026-03-31T01:00:00Z')): BackupInfo[] {
  return Array.from({ length: days }, (_, index) => {
    const at = new Date(from - index * 86_400_000).toISOString();
    return { name: `daily-${index}`, completedAt: at, includedNamespaces: ['shop'] };
  });
}

function provider(list: () => BackupInfo[], latestCalls: string[] = []): BackupProvider {
  return {
    name: 'velero',
    selectBackup: async (_sources, backupName) => {
      latestCalls.push(backupName);
      return list()[0]!;
    },
    listRestorableBackups: async () => list(),
    startRestore: async () => ({ namespace: 'velero', name: 'x' }),
    getRestoreProgress: async () => ({ state: 'running', phase: 'InProgress', warnings: 0, errors: 0 }),
    deleteRestore: async () => undefined,
  };
}

function reads(backupProvider: BackupProvider): KubeRunReads {
  return new KubeRunReads({ providers: { velero: backupProvider } } as unknown as ConstructorParameters<typeof KubeRunReads>[0]);
}

function test(select?: { strategy: 'latest' | 'randomWithin'; within?: string }, backupName = 'latest'): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name: 'shop', namespace: 'rehearsal-system', uid: 'uid-shop' },
    spec: {
      provider: 'velero',
      backupSource: { backupName, namespaces: [{ name: 'shop' }], ...(select ? { select } : {}) },
      schedule: { cron: '@daily' },
    },
  };
}

function run(id: string): CurrentRun {
  return { id, trigger: 'schedule', scheduledAt: RUN_START, queuedAt: RUN_START, startedAt: RUN_START, stage: 'Preparing' };
}

describe('KubeRunReads.selectBackup with randomWithin', () => {
  it('draws among the window, records how, and draws the same again for the same run after a newer backup appeared', async () => {
    let backups = daily(40);
    const reader = reads(provider(() => backups));
    const sampled = test({ strategy: 'randomWithin', within: '720h' });
    const first = await reader.selectBackup(sampled, run('r1'));
    expect(first.state).toBe('found');
    if (first.state !== 'found') return;
    expect(first.backup.selection).toMatchObject({ strategy: 'randomWithin', within: '720h', candidates: 30, windowEnd: '2026-03-31T02:00:00.000Z' });
    expect(first.backup.selection!.reason).toContain(first.backup.name);
    backups = [{ name: 'newer', completedAt: '2026-03-31T03:00:00Z', includedNamespaces: ['shop'] }, ...backups];
    expect(await reader.selectBackup(sampled, run('r1'))).toEqual(first);
  });

  it('chooses different backups across runs', async () => {
    const reader = reads(provider(() => daily(30)));
    const names = new Set<string>();
    for (let index = 0; index < 20; index += 1) {
      const observed = await reader.selectBackup(test({ strategy: 'randomWithin', within: '720h' }), run(`r${index}`));
      if (observed.state === 'found') names.add(observed.backup.name);
    }
    expect(names.size).toBeGreaterThan(5);
  });

  it('leaves latest, and a test without select, to the provider\'s own choice, with no selection record', async () => {
    const calls: string[] = [];
    const reader = reads(provider(() => daily(3), calls));
    for (const spec of [test(), test({ strategy: 'latest' })]) {
      const observed = await reader.selectBackup(spec, run('r1'));
      expect(observed).toEqual({ state: 'found', backup: { name: 'daily-0', completedAt: daily(1)[0]!.completedAt } });
    }
    expect(calls).toEqual(['latest', 'latest']);
  });

  it('fails BackupNotFound when nothing is restorable, and passes on the provider\'s refusal', async () => {
    expect(await reads(provider(() => [])).selectBackup(test({ strategy: 'randomWithin', within: '24h' }), run('r1'))).toMatchObject({
      state: 'rejected',
      reason: 'BackupNotFound',
    });
    const refusing: BackupProvider = {
      ...provider(() => []),
      listRestorableBackups: async () => {
        throw new ProviderError('BackupNotFound', 'kasten keeps one restore point per namespace, so randomWithin needs exactly one source namespace');
      },
    };
    expect(await reads(refusing).selectBackup(test({ strategy: 'randomWithin', within: '24h' }), run('r1'))).toMatchObject({
      state: 'rejected',
      message: expect.stringContaining('exactly one source namespace'),
    });
  });
});

describe('KubeRunReads.selectBackup for a run queued by a new backup (issue 32)', () => {
  it('restores exactly the backup that queued it: not the newest, not a draw', async () => {
    const asked: string[] = [];
    const backups = daily(3);
    const reader = reads({
      ...provider(() => backups),
      selectBackup: async (_sources, backupName) => {
        asked.push(backupName);
        return backups.find((backup) => backup.name === backupName) ?? backups[0]!;
      },
    });
    const byBackup: CurrentRun = { ...run('r1'), trigger: 'backup', triggerBackup: 'daily-1' };
    for (const spec of [test(), test({ strategy: 'randomWithin', within: '720h' })]) {
      const observed = await reader.selectBackup(spec, byBackup);
      expect(observed).toMatchObject({ state: 'found', backup: { name: 'daily-1' } });
      expect(observed.state === 'found' && observed.backup.selection).toBeUndefined();
    }
    expect(asked).toEqual(['daily-1', 'daily-1']);
  });

  it('fails BackupNotFound when that backup is gone, rather than restoring another', async () => {
    const reader = reads({
      ...provider(() => daily(3)),
      selectBackup: async (_sources, backupName) => {
        throw new ProviderError('BackupNotFound', `backup ${backupName} not found`);
      },
    });
    const observed = await reader.selectBackup(test(), { ...run('r1'), trigger: 'backup', triggerBackup: 'daily-9' });
    expect(observed).toEqual({ state: 'rejected', reason: 'BackupNotFound', message: 'backup daily-9 not found' });
  });
});
