import { describe, expect, it } from '@jest/globals';
import {
  backupCoversNamespace,
  compareNewestFirst,
  isLatest,
  namespacePatternMatches,
  restorableVeleroBackups,
  selectVeleroBackup,
  toBackupInfo,
} from '../../../server/providers/velero/backup-selection.js';
import type { BackupPhase, VeleroBackup } from '../../../server/providers/velero/velero-types.js';

const NOW = new Date('2026-03-10T12:00:00Z');

function backup(
  name: string,
  options: {
    phase?: BackupPhase;
    included?: string[];
    excluded?: string[];
    completed?: string;
    created?: string;
    expiration?: string;
    deleting?: boolean;
    totalItems?: number;
  } = {},
): VeleroBackup {
  return {
    metadata: {
      name,
      namespace: 'velero',
      creationTimestamp: options.created ?? options.completed ?? '2026-03-01T00:00:00Z',
      ...(options.deleting ? { deletionTimestamp: '2026-03-10T11:00:00Z' } : {}),
    },
    spec: {
      ...(options.included ? { includedNamespaces: options.included } : {}),
      ...(options.excluded ? { excludedNamespaces: options.excluded } : {}),
    },
    status: {
      phase: options.phase ?? 'Completed',
      ...(options.completed ? { completionTimestamp: options.completed } : {}),
      expiration: options.expiration ?? '2026-04-01T00:00:00Z',
      ...(options.totalItems !== undefined
        ? { progress: { totalItems: options.totalItems, itemsBackedUp: options.totalItems } }
        : {}),
    },
  };
}

function pick(backups: VeleroBackup[], sources: string[], name = 'latest') {
  const selection = selectVeleroBackup(backups, sources, name, 'velero', NOW);
  return selection.ok ? selection.backup.metadata.name : `error: ${selection.message}`;
}

describe('isLatest', () => {
  it.each([
    ['latest', true],
    ['', true],
    [undefined, true],
    ['nightly-20260301', false],
    ['Latest', false],
  ])('%p → %p', (name, expected) => {
    expect(isLatest(name)).toBe(expected);
  });
});

describe('namespacePatternMatches (Velero namespace globs)', () => {
  it.each([
    ['*', 'shop', true],
    ['shop', 'shop', true],
    ['shop', 'shop-db', false],
    ['shop-*', 'shop-db', true],
    ['shop-*', 'shop', false],
    ['ns?', 'ns1', true],
    ['ns?', 'ns10', false],
    ['ns[123]', 'ns2', true],
    ['ns[123]', 'ns4', false],
    ['ns[a-c]', 'nsb', true],
    ['ns[a-c]', 'nsd', false],
    ['ns[', 'ns[', false],
    ['a.b', 'axb', false],
  ])('%p matches %p: %p', (pattern, namespace, expected) => {
    expect(namespacePatternMatches(pattern, namespace)).toBe(expected);
  });
});

describe('backupCoversNamespace', () => {
  it.each<[string, string[] | undefined, string[] | undefined, string, boolean]>([
    ['listed', ['shop', 'billing'], undefined, 'shop', true],
    ['not listed', ['billing'], undefined, 'shop', false],
    ['empty list = all', [], undefined, 'shop', true],
    ['absent list = all', undefined, undefined, 'shop', true],
    ['star = all', ['*'], undefined, 'shop', true],
    ['star minus excluded', ['*'], ['shop'], 'shop', false],
    ['all minus excluded pattern', undefined, ['sho*'], 'shop', false],
    ['excluded other', ['*'], ['billing'], 'shop', true],
    ['glob include', ['sh*'], undefined, 'shop', true],
  ])('%s', (_label, included, excluded, namespace, expected) => {
    expect(backupCoversNamespace(backup('b', { included, excluded }), namespace)).toBe(expected);
  });
});

describe('selectVeleroBackup: latest', () => {
  const older = backup('nightly-1', { included: ['shop'], completed: '2026-03-08T02:00:00Z' });
  const newer = backup('nightly-2', { included: ['shop'], completed: '2026-03-09T02:00:00Z' });
  const newestOtherNamespace = backup('billing-3', {
    included: ['billing'],
    completed: '2026-03-10T02:00:00Z',
  });
  const newestFailed = backup('nightly-3', {
    included: ['shop'],
    phase: 'Failed',
    completed: '2026-03-10T03:00:00Z',
  });
  const newestPartial = backup('nightly-4', {
    included: ['shop'],
    phase: 'PartiallyFailed',
    completed: '2026-03-10T04:00:00Z',
  });
  const newestInProgress = backup('nightly-5', { included: ['shop'], phase: 'InProgress' });

  it.each<[string, VeleroBackup[], string[], string]>([
    ['newest Completed covering the source', [older, newer], ['shop'], 'nightly-2'],
    ['order of the list does not matter', [newer, older], ['shop'], 'nightly-2'],
    [
      'a newer backup of another namespace is ignored',
      [older, newer, newestOtherNamespace],
      ['shop'],
      'nightly-2',
    ],
    ['Failed is ignored', [older, newestFailed], ['shop'], 'nightly-1'],
    ['PartiallyFailed is ignored unless named', [older, newestPartial], ['shop'], 'nightly-1'],
    ['InProgress is ignored', [older, newestInProgress], ['shop'], 'nightly-1'],
    [
      'every source must be covered',
      [
        backup('shop-only', { included: ['shop'], completed: '2026-03-09T05:00:00Z' }),
        backup('both', { included: ['shop', 'billing'], completed: '2026-03-09T01:00:00Z' }),
      ],
      ['shop', 'billing'],
      'both',
    ],
    [
      'a star backup covers everything',
      [older, backup('everything', { included: ['*'], completed: '2026-03-09T06:00:00Z' })],
      ['shop'],
      'everything',
    ],
    [
      'a star backup excluding the source does not',
      [
        older,
        backup('all-but-shop', { included: ['*'], excluded: ['shop'], completed: '2026-03-09T06:00:00Z' }),
      ],
      ['shop'],
      'nightly-1',
    ],
    [
      'an expired backup is skipped',
      [
        older,
        backup('expired', {
          included: ['shop'],
          completed: '2026-03-09T06:00:00Z',
          expiration: '2026-03-10T00:00:00Z',
        }),
      ],
      ['shop'],
      'nightly-1',
    ],
    [
      'a backup being deleted is skipped',
      [older, backup('deleting', { included: ['shop'], completed: '2026-03-09T06:00:00Z', deleting: true })],
      ['shop'],
      'nightly-1',
    ],
    [
      'same completion second: newer creation wins',
      [
        backup('a', {
          included: ['shop'],
          completed: '2026-03-09T06:00:00Z',
          created: '2026-03-09T05:00:00Z',
        }),
        backup('b', {
          included: ['shop'],
          completed: '2026-03-09T06:00:00Z',
          created: '2026-03-09T05:30:00Z',
        }),
      ],
      ['shop'],
      'b',
    ],
    [
      'same completion and creation: later name wins',
      [
        backup('sched-20260309060000', {
          included: ['shop'],
          completed: '2026-03-09T06:00:00Z',
          created: '2026-03-09T06:00:00Z',
        }),
        backup('sched-20260309050000', {
          included: ['shop'],
          completed: '2026-03-09T06:00:00Z',
          created: '2026-03-09T06:00:00Z',
        }),
      ],
      ['shop'],
      'sched-20260309060000',
    ],
    [
      'a completed backup without completionTimestamp ranks last',
      [backup('no-time', { included: ['shop'] }), older],
      ['shop'],
      'nightly-1',
    ],
  ])('%s', (_label, backups, sources, expected) => {
    expect(pick(backups, sources)).toBe(expected);
    expect(pick(backups, sources, '')).toBe(expected);
  });

  it('explains when nothing qualifies', () => {
    const selection = selectVeleroBackup(
      [newestPartial, newestOtherNamespace],
      ['shop'],
      'latest',
      'velero',
      NOW,
    );
    expect(selection).toEqual({
      ok: false,
      reason: 'BackupNotFound',
      message: expect.stringContaining('no Completed Velero backup in namespace velero covers shop'),
    });
  });

  it('refuses an empty source list', () => {
    expect(selectVeleroBackup([older], [], 'latest', 'velero', NOW).ok).toBe(false);
  });
});

describe('selectVeleroBackup: named', () => {
  it.each<[string, VeleroBackup[], string[], string, string]>([
    ['a Completed backup', [backup('b1', { included: ['shop'] })], ['shop'], 'b1', 'b1'],
    [
      'a PartiallyFailed backup, named explicitly',
      [backup('b1', { included: ['shop'], phase: 'PartiallyFailed' })],
      ['shop'],
      'b1',
      'b1',
    ],
    [
      'an expired but existing backup',
      [backup('b1', { included: ['shop'], expiration: '2026-01-01T00:00:00Z' })],
      ['shop'],
      'b1',
      'b1',
    ],
    ['missing', [backup('b1')], ['shop'], 'b2', 'error: Velero backup b2 not found in namespace velero'],
    [
      'Failed',
      [backup('b1', { included: ['shop'], phase: 'Failed' })],
      ['shop'],
      'b1',
      'error: Velero backup b1 is Failed; a restore needs a Completed or PartiallyFailed backup',
    ],
    [
      'InProgress',
      [backup('b1', { included: ['shop'], phase: 'InProgress' })],
      ['shop'],
      'b1',
      'error: Velero backup b1 is InProgress; a restore needs a Completed or PartiallyFailed backup',
    ],
    [
      'not covering every source',
      [backup('b1', { included: ['shop'] })],
      ['shop', 'billing', 'crm'],
      'b1',
      'error: Velero backup b1 does not include namespace(s) billing, crm',
    ],
    [
      'being deleted',
      [backup('b1', { deleting: true })],
      ['shop'],
      'b1',
      'error: Velero backup b1 is being deleted',
    ],
  ])('%s', (_label, backups, sources, name, expected) => {
    expect(pick(backups, sources, name)).toBe(expected);
  });
});

describe('toBackupInfo', () => {
  it('reports name, completion, namespaces and item count', () => {
    expect(
      toBackupInfo(backup('b1', { included: ['shop'], completed: '2026-03-09T02:00:00Z', totalItems: 42 })),
    ).toEqual({
      name: 'b1',
      completedAt: '2026-03-09T02:00:00Z',
      includedNamespaces: ['shop'],
      totalItems: 42,
    });
  });

  it('spells out "all namespaces" for an empty list', () => {
    expect(toBackupInfo(backup('b1')).includedNamespaces).toEqual(['*']);
  });

  it('sorts newest first', () => {
    const list = [
      backup('x', { completed: '2026-03-01T00:00:00Z' }),
      backup('y', { completed: '2026-03-03T00:00:00Z' }),
      backup('z', { completed: '2026-03-02T00:00:00Z' }),
    ];
    expect(list.sort(compareNewestFirst).map((item) => item.metadata.name)).toEqual(['y', 'z', 'x']);
  });
});

describe('restorableVeleroBackups (the candidates of a randomWithin draw, issue 32)', () => {
  it('keeps exactly what latest may choose: Completed, not being deleted, not expired, covering every source', () => {
    const backups = [
      backup('ok', { completed: '2026-03-09T01:00:00Z', included: ['shop', 'shop-db'] }),
      backup('ok-all', { completed: '2026-03-08T01:00:00Z' }),
      backup('partial', { phase: 'PartiallyFailed', completed: '2026-03-09T02:00:00Z' }),
      backup('failed', { phase: 'Failed', completed: '2026-03-09T03:00:00Z' }),
      backup('running', { phase: 'InProgress' }),
      backup('deleting', { completed: '2026-03-07T01:00:00Z', deleting: true }),
      backup('expired', { completed: '2026-02-01T01:00:00Z', expiration: '2026-03-01T00:00:00Z' }),
      backup('shop-only', { completed: '2026-03-09T04:00:00Z', included: ['shop'] }),
    ];
    expect(restorableVeleroBackups(backups, ['shop', 'shop-db'], NOW).map((b) => b.metadata.name).sort()).toEqual(['ok', 'ok-all']);
    expect(restorableVeleroBackups(backups, [], NOW)).toEqual([]);
    // latest chooses the newest of the same set
    const latest = selectVeleroBackup(backups, ['shop', 'shop-db'], 'latest', 'velero', NOW);
    expect(latest.ok && latest.backup.metadata.name).toBe('ok');
  });
});
