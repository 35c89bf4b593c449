// The janitor acts on the verdicts the inventory gathered (sandbox-verdict.ts decides): it deletes
// only what the verdict says, with the UID read alongside, warns once about namespaces it will never
// delete, and goes on past a failed delete. The inventory asks the apiserver for a test the cache
// lacks, so a test the cache has not seen yet is never taken for deleted.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { Janitor } from '../../../server/engine/sandbox/janitor.js';
import { SandboxInventory, type JudgedSandbox } from '../../../server/engine/sandbox/sandbox-inventory.js';
import type { RestoreTest } from '../../../server/domain/resources/resources.js';
import { KubeError } from '../../../server/kube/errors.js';

const NOW = new Date('2026-11-28T08:00:00Z');
const PAST = '2026-11-28T07:00:00.000Z';

function judged(name: string, action: 'delete' | 'keep', reason: JudgedSandbox['verdict']['reason']): JudgedSandbox {
  return {
    facts: { name, labels: {}, annotations: {}, deleting: false },
    uid: `uid-of-${name}`,
    verdict: { action, reason, message: reason },
  };
}

function recordingLog() {
  const lines: { msg: string; sandbox?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string; sandbox?: string }) });
  return { log, lines };
}

describe('Janitor', () => {
  it('deletes what the verdict says, with the UID read, and keeps the rest', async () => {
    const deletes: [string, string | undefined][] = [];
    const { log, lines } = recordingLog();
    const janitor = new Janitor({
      inventory: {
        list: async () => [
          judged('rehearsal-gone-abcde', 'delete', 'orphaned'),
          judged('rehearsal-shop-abcde', 'keep', 'kept'),
          judged('team-c', 'keep', 'unrecognised'),
          judged('rehearsal-old-abcde', 'delete', 'expired'),
        ],
      },
      sandboxes: { delete: async (name, uid) => void deletes.push([name, uid]) },
      log,
    });
    expect(await janitor.sweep()).toEqual({
      deleted: ['rehearsal-gone-abcde', 'rehearsal-old-abcde'],
      kept: ['rehearsal-shop-abcde', 'team-c'],
    });
    expect(deletes).toEqual([
      ['rehearsal-gone-abcde', 'uid-of-rehearsal-gone-abcde'],
      ['rehearsal-old-abcde', 'uid-of-rehearsal-old-abcde'],
    ]);
    await janitor.sweep();
    expect(lines.filter((line) => line.msg === 'not deleting a namespace no record vouches for').map((line) => line.sandbox)).toEqual(['team-c']);
  });

  it('goes on past a delete that fails', async () => {
    const { log } = recordingLog();
    const janitor = new Janitor({
      inventory: { list: async () => [judged('a-gone-abcde', 'delete', 'orphaned'), judged('b-gone-abcde', 'delete', 'orphaned')] },
      sandboxes: {
        delete: async (name) => {
          if (name.startsWith('a-')) throw new KubeError('Conflict', 409, 'Precondition failed: UID in precondition');
        },
      },
      log,
    });
    expect(await janitor.sweep()).toEqual({ deleted: ['b-gone-abcde'], kept: [] });
  });
});

describe('Janitor and the volumes of deleted sandboxes', () => {
  it('sweeps them after the namespaces, and a failing volume sweep leaves the namespace sweep intact', async () => {
    const { log, lines } = recordingLog();
    const order: string[] = [];
    let fail = false;
    const janitor = new Janitor({
      inventory: { list: async () => [judged('rehearsal-gone-abcde', 'delete', 'orphaned')] },
      sandboxes: { delete: async (name) => void order.push(`namespace ${name}`) },
      volumes: {
        sweep: async () => {
          order.push('volumes');
          if (fail) throw new KubeError('Forbidden', 403, 'persistentvolumes is forbidden');
          return { deleted: ['PersistentVolume/pvc-1'], kept: [] };
        },
      },
      log,
    });
    expect(await janitor.sweep()).toEqual({
      deleted: ['rehearsal-gone-abcde'],
      kept: [],
      volumes: { deleted: ['PersistentVolume/pvc-1'], kept: [] },
    });
    expect(order).toEqual(['namespace rehearsal-gone-abcde', 'volumes']);
    fail = true;
    expect(await janitor.sweep()).toEqual({ deleted: ['rehearsal-gone-abcde'], kept: [], volumes: { deleted: [], kept: [] } });
    expect(lines.map((line) => line.msg)).toContain('could not sweep the volumes of deleted sandboxes');
  });
});

describe('SandboxInventory', () => {
  const labels = {
    'rehearsal.dev/managed-by': 'rehearsal',
    'rehearsal.dev/test': 'shop',
    'rehearsal.dev/test-namespace': 'team-a',
    'rehearsal.dev/run': 'abcde',
  };
  const namespace = { metadata: { name: 'rehearsal-shop-abcde', uid: 'ns-uid', labels, annotations: { 'rehearsal.dev/expires-at': PAST } } };
  const shop: RestoreTest = {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreTest',
    metadata: { name: 'shop', namespace: 'team-a', uid: 'test-uid' },
    spec: { provider: 'velero', backupSource: { namespaces: [{ name: 'shop' }] }, schedule: { cron: '0 3 * * *' } },
  };

  function inventory(cached: RestoreTest | undefined, live: RestoreTest | undefined) {
    const asked: string[] = [];
    return {
      asked,
      inventory: new SandboxInventory({
        core: { listNamespace: async () => ({ items: [namespace] }), readNamespace: async () => namespace } as never,
        cache: { getTest: () => cached },
        client: {
          getTest: async (ns, name) => {
            asked.push(`test ${ns}/${name}`);
            if (!live) throw new KubeError('NotFound', 404, 'not found');
            return live;
          },
          getReport: async (ns, name) => {
            asked.push(`report ${ns}/${name}`);
            throw new KubeError('NotFound', 404, 'not found');
          },
        },
        now: () => NOW,
      }),
    };
  }

  it('confirms with the apiserver that a test the cache lacks is gone: an expired orphan is deleted', async () => {
    const { inventory: sandboxes, asked } = inventory(undefined, undefined);
    const [sandbox] = await sandboxes.list();
    expect([sandbox!.uid, sandbox!.verdict.action, sandbox!.verdict.reason]).toEqual(['ns-uid', 'delete', 'orphaned']);
    expect(asked).toEqual(['test team-a/shop']);
  });

  it('keeps the sandbox of a test the cache has not seen yet, and asks for its report', async () => {
    const { inventory: sandboxes, asked } = inventory(undefined, shop);
    const [sandbox] = await sandboxes.list();
    expect([sandbox!.verdict.action, sandbox!.verdict.reason]).toEqual(['keep', 'unrecorded']);
    expect(asked).toEqual(['test team-a/shop', 'report team-a/shop-abcde']);
  });

  it('finds one namespace by name, undefined when it does not exist', async () => {
    const { inventory: sandboxes } = inventory(shop, shop);
    expect((await sandboxes.find('rehearsal-shop-abcde'))!.facts.name).toBe('rehearsal-shop-abcde');
    const missing = new SandboxInventory({
      core: { listNamespace: async () => ({ items: [] }), readNamespace: async () => { throw new KubeError('NotFound', 404, 'gone'); } } as never,
      cache: { getTest: () => undefined },
      client: { getTest: async () => shop, getReport: async () => { throw new Error('unused'); } },
      now: () => NOW,
    });
    expect(await missing.find('nope')).toBeUndefined();
  });
});
