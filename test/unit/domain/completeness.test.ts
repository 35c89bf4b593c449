import { describe, expect, it } from '@jest/globals';
import { compareKinds } from '../../../server/domain/run/completeness.js';

const sandbox = 'rehearsal-shop-ab12c';

describe('compareKinds', () => {
  it('counts by name: an extra object of a kind cannot hide a missing one', () => {
    expect(
      compareKinds(
        [{ apiVersion: 'v1', kind: 'ConfigMap', sandbox, names: ['shop-config', 'kube-root-ca.crt'] }],
        [{ apiVersion: 'v1', kind: 'ConfigMap', sandbox, names: ['kube-root-ca.crt', 'something-else'] }],
      ),
    ).toEqual([{ kind: 'ConfigMap', backedUp: 2, restored: 1 }]);
  });

  it('a kind with nothing in the sandbox is 0 restored', () => {
    expect(
      compareKinds([{ apiVersion: 'v1', kind: 'Secret', sandbox, names: ['db-credentials'] }], []),
    ).toEqual([{ kind: 'Secret', backedUp: 1, restored: 0 }]);
  });

  it('counts Pods and EndpointSlices by number (controllers replace them under new names), capped', () => {
    expect(
      compareKinds(
        [
          { apiVersion: 'v1', kind: 'Pod', sandbox, names: ['web-1', 'web-2'] },
          { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', sandbox, names: ['web-abcde'] },
        ],
        [
          { apiVersion: 'v1', kind: 'Pod', sandbox, names: ['web-x', 'web-y', 'web-z'] },
          { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', sandbox, names: [] },
        ],
      ),
    ).toEqual([
      { kind: 'EndpointSlice', backedUp: 1, restored: 0 },
      { kind: 'Pod', backedUp: 2, restored: 2 },
    ]);
  });

  it('sums a kind over sandboxes, each compared with its own sandbox', () => {
    expect(
      compareKinds(
        [
          { apiVersion: 'v1', kind: 'Secret', sandbox: 'sb-0', names: ['a'] },
          { apiVersion: 'v1', kind: 'Secret', sandbox: 'sb-1', names: ['a'] },
        ],
        // "a" exists in sb-0 only: sb-1's Secret is missing, however sb-0 looks.
        [{ apiVersion: 'v1', kind: 'Secret', sandbox: 'sb-0', names: ['a'] }],
      ),
    ).toEqual([{ kind: 'Secret', backedUp: 2, restored: 1 }]);
  });

  it('names the group only when two groups share a Kind', () => {
    const kinds = compareKinds(
      [
        { apiVersion: 'apps/v1', kind: 'Deployment', sandbox, names: ['web'] },
        { apiVersion: 'example.com/v1', kind: 'Deployment', sandbox, names: ['web'] },
        { apiVersion: 'v1', kind: 'Service', sandbox, names: ['web'] },
      ],
      [],
    );
    expect(kinds.map((entry) => entry.kind)).toEqual(['Deployment.apps', 'Deployment.example.com', 'Service']);
  });
});

describe('compareKinds: a claim counts only with its data (issue 27)', () => {
  const claims = (names: string[], where = sandbox) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', sandbox: where, names });
  const cases: [string, ReturnType<typeof claims>[], ReturnType<typeof claims>[], string[], number][] = [
    // [what, backed up, present, claims without data ("sandbox/claim"), restored]
    ['every claim there, all with their data (or none to restore)', [claims(['data-db-0', 'data-db-1'])], [claims(['data-db-0', 'data-db-1'])], [], 2],
    ['one claim there without its data', [claims(['data-db-0', 'data-db-1'])], [claims(['data-db-0', 'data-db-1'])], [`${sandbox}/data-db-1`], 1],
    ['a claim without data that is also missing counts once', [claims(['data-db-0'])], [], [`${sandbox}/data-db-0`], 0],
    ['the same claim name in another sandbox keeps its count', [claims(['data-db-0']), claims(['data-db-0'], 'sb-2')], [claims(['data-db-0']), claims(['data-db-0'], 'sb-2')], ['sb-2/data-db-0'], 1],
  ];
  it.each(cases)('%s', (_what, expected, present, without, restored) => {
    expect(compareKinds(expected, present, new Set(without))).toEqual([{ kind: 'PersistentVolumeClaim', backedUp: expected.reduce((sum, entry) => sum + entry.names.length, 0), restored }]);
  });

  it('leaves every other kind alone, even of the same name', () => {
    expect(
      compareKinds(
        [{ apiVersion: 'v1', kind: 'ConfigMap', sandbox, names: ['data-db-0'] }, claims(['data-db-0'])],
        [{ apiVersion: 'v1', kind: 'ConfigMap', sandbox, names: ['data-db-0'] }, claims(['data-db-0'])],
        new Set([`${sandbox}/data-db-0`]),
      ),
    ).toEqual([
      { kind: 'ConfigMap', backedUp: 1, restored: 1 },
      { kind: 'PersistentVolumeClaim', backedUp: 1, restored: 0 },
    ]);
  });
});
