// When the pre-flight runner looks (server/engine/preflight/preflight-runner.ts): once per
// leadership term per test, again when a backup completes, never for a backup already checked,
// one look at a time, nothing written after the term ended; and what it writes.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import type { ClusterFacts } from '../../../server/domain/preflight/preflight-checks.js';
import type { RestoreTest, RestoreTestStatus } from '../../../server/domain/resources/resources.js';
import { PreflightRunner } from '../../../server/engine/preflight/preflight-runner.js';
import { ProviderError, type BackupInfo, type BackupProvider } from '../../../server/providers/provider.js';

const NOW = new Date('2026-12-07T06:00:00Z');

function test(name: string, status: RestoreTestStatus = {}, suspend = false): RestoreTest {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name, namespace: 'team' },
    spec: {
      provider: 'velero',
      backupSource: { backupName: 'latest', namespaces: [{ name: 'shop' }] },
      schedule: { cron: '0 3 * * *', timezone: 'UTC', suspend },
    },
    status,
  } as RestoreTest;
}

const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'shop' }, spec: { storageClassName: 'fast' } };

function harness(options: { newest?: () => BackupInfo; classes?: string[]; manifests?: () => Promise<unknown> } = {}) {
  const tests = new Map<string, RestoreTest>();
  const writes: { test: string; status: RestoreTestStatus }[] = [];
  const events: string[] = [];
  const selections: string[] = [];
  let term = new AbortController();
  let newest: BackupInfo = { name: 'b1', completedAt: '2026-12-07T05:00:00Z', includedNamespaces: ['shop'] };
  const provider = {
    name: 'velero',
    selectBackup: async (_sources: readonly string[], name: string) => {
      selections.push(name);
      return options.newest ? options.newest() : newest;
    },
    backupManifests: options.manifests ?? (async () => ({ kinds: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', sourceNamespace: 'shop', names: ['data'] }], objects: [claim] })),
  } as unknown as BackupProvider;
  const facts: ClusterFacts = { serves: () => true, storageClasses: new Set(options.classes ?? ['fast']), quota: {} };
  const counted: string[] = [];
  const runner = new PreflightRunner({
    providers: { velero: provider },
    facts: { read: async () => facts },
    getTest: (namespace, name) => tests.get(`${namespace}/${name}`),
    writeStatus: async (written, status) => {
      writes.push({ test: written.metadata.name, status });
      const key = `team/${written.metadata.name}`;
      tests.set(key, { ...tests.get(key)!, status: { ...tests.get(key)!.status, ...status } });
    },
    record: (_test, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
    metrics: { preflightChecks: { inc: (labels: { result: string }) => counted.push(labels.result) } } as never,
    term: () => term.signal,
    now: () => NOW,
    log: pino({ level: 'silent' }),
  });
  return {
    runner,
    tests,
    writes,
    events,
    selections,
    counted,
    add: (each: RestoreTest) => tests.set(`team/${each.metadata.name}`, each),
    setNewest: (backup: string) => (newest = { ...newest, name: backup }),
    newTerm: () => {
      term.abort();
      term = new AbortController();
    },
    endTerm: () => term.abort(),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('PreflightRunner', () => {
  it('looks once per term, writes the result, and not again for the same backup', async () => {
    const h = harness();
    const one = test('one');
    h.add(one);
    h.runner.consider(one);
    await settle();
    expect(h.writes).toHaveLength(1);
    expect(h.writes[0]!.status.preflight).toEqual({
      backupName: 'b1',
      backupCompletedAt: '2026-12-07T05:00:00Z',
      checkedAt: NOW.toISOString(),
      result: 'passed',
      summary: 'passed: 5 checks',
    });
    expect(h.writes[0]!.status.conditions).toEqual([
      expect.objectContaining({ type: 'PreflightPassed', status: 'True', reason: 'Passed', message: 'backup b1: passed: 5 checks' }),
    ]);
    expect(h.events).toEqual(['Normal PreflightPassed: backup b1: passed: 5 checks']);
    expect(h.counted).toEqual(['passed']);

    // Later passes in the same term: no look at all.
    h.runner.consider(h.tests.get('team/one')!);
    await settle();
    expect(h.selections).toEqual(['latest']);
    // A new term looks again, finds b1 checked, writes nothing.
    h.newTerm();
    h.runner.consider(h.tests.get('team/one')!);
    await settle();
    expect(h.selections).toEqual(['latest', 'latest']);
    expect(h.writes).toHaveLength(1);
  });

  it('looks again when a backup completes, and fails a backup whose StorageClass is gone', async () => {
    const h = harness({ classes: ['standard'] });
    const one = test('one', { preflight: { backupName: 'b1', checkedAt: NOW.toISOString(), result: 'passed', summary: 'passed: 5 checks' } });
    h.add(one);
    h.runner.consider(one);
    await settle();
    expect(h.writes).toEqual([]);
    h.setNewest('b2');
    h.runner.backupCompleted([h.tests.get('team/one')!]);
    await settle();
    expect(h.writes).toHaveLength(1);
    expect(h.writes[0]!.status.preflight).toMatchObject({ backupName: 'b2', result: 'failed', summary: 'failed: StorageClass fast does not exist (claims shop/data)' });
    expect(h.writes[0]!.status.conditions?.[0]).toMatchObject({ type: 'PreflightPassed', status: 'False', reason: 'Failed' });
    expect(h.events).toEqual(['Warning PreflightFailed: backup b2: failed: StorageClass fast does not exist (claims shop/data)']);
  });

  it('records a backup it cannot read as an error (condition Unknown), and looks again next time', async () => {
    const h = harness({ manifests: async () => Promise.reject(new Error('the object store at 127.0.0.1:9 answered HTTP 403')) });
    const one = test('one');
    h.add(one);
    h.runner.consider(one);
    await settle();
    expect(h.writes[0]!.status.preflight).toMatchObject({ result: 'error', summary: 'error: could not read velero backup b1: the object store at 127.0.0.1:9 answered HTTP 403' });
    expect(h.writes[0]!.status.conditions?.[0]).toMatchObject({ status: 'Unknown', reason: 'Error' });
    h.runner.backupCompleted([h.tests.get('team/one')!]);
    await settle();
    expect(h.writes).toHaveLength(2);
  });

  it('skips suspended tests, tools without manifests, and a source with no backup yet', async () => {
    const none = harness({ newest: () => { throw new ProviderError('BackupNotFound', 'no backup covers shop'); } });
    const one = test('one');
    none.add(one);
    none.runner.consider(one);
    await settle();
    expect(none.writes).toEqual([]);

    const h = harness();
    const suspended = test('paused', {}, true);
    const kasten = { ...test('k'), spec: { ...test('k').spec, provider: 'kasten' } } as RestoreTest;
    h.add(suspended);
    h.add(kasten);
    h.runner.consider(suspended);
    h.runner.consider(kasten);
    h.runner.backupCompleted([kasten]);
    await settle();
    expect(h.selections).toEqual([]);
  });

  it('looks at one test at a time and writes nothing once the term has ended', async () => {
    let release: () => void = () => undefined;
    let inFlight = 0;
    let most = 0;
    const h = harness({
      manifests: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise<void>((resolve) => (release = resolve));
        inFlight -= 1;
        return { kinds: [], objects: [] };
      },
    });
    for (const name of ['a', 'b']) {
      h.add(test(name));
      h.runner.consider(h.tests.get(`team/${name}`)!);
    }
    await settle();
    expect(most).toBe(1);
    h.endTerm();
    release();
    await settle();
    expect(h.writes).toEqual([]);
    expect(h.selections).toEqual(['latest']);
  });
});
