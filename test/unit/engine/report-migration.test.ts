// The old-form migration over a fake cache and client: which reports are patched, with which
// resourceVersion and kept references; a lost race is left to the next pass; an unreachable
// apiserver ends the pass (the cascade retries it); reports that must stay are said once.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { ReportMigration } from '../../../server/engine/report-migration.js';
import { toKubeError } from '../../../server/kube/errors.js';
import type { OwnerReference, RestoreReport } from '../../../server/domain/resources/resources.js';

const testOwner: OwnerReference = { apiVersion: 'rehearsal.dev/v1alpha1', kind: 'RestoreTest', name: 'shop', uid: 'u1', controller: true };

function report(name: string, owners: OwnerReference[] | undefined, uid = 'u1'): RestoreReport {
  return {
    apiVersion: 'rehearsal.dev/v1alpha1',
    kind: 'RestoreReport',
    metadata: { name, namespace: 'team-a', resourceVersion: `rv-${name}`, ...(owners ? { ownerReferences: owners } : {}) },
    spec: { testRef: { name: 'shop', namespace: 'team-a', uid } },
  } as unknown as RestoreReport;
}

function setUp(reports: RestoreReport[], failures: Record<string, unknown> = {}) {
  const byKey = new Map(reports.map((r) => [`team-a/${r.metadata.name}`, r]));
  const patches: string[] = [];
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line).msg as string) });
  const migration = new ReportMigration({
    cache: { liveReports: () => [...byKey.keys()].map((key) => ({ key })), liveReport: (key: string) => byKey.get(key) },
    client: {
      replaceReportOwnerReferences: async (namespace: string, name: string, resourceVersion: string, keep: OwnerReference[]) => {
        if (failures[name]) throw toKubeError(failures[name]); // as the real client's kubeCall does
        patches.push(`${namespace}/${name}@${resourceVersion} keep=${keep.map((o) => o.kind).join(',')}`);
      },
    },
    log,
  });
  return { migration, patches, lines };
}

describe('ReportMigration', () => {
  it("patches only old-form reports whose evidence stays the same, guarded by the resourceVersion read", async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'c' };
    const { migration, patches } = setUp([
      report('new', undefined),
      report('old', [testOwner]),
      report('old-two', [configMap, testOwner]),
      report('old-other-uid', [testOwner], 'u9'),
    ]);
    await expect(migration.pass()).resolves.toEqual({ migrated: 2, kept: 1 });
    expect(patches).toEqual(['team-a/old@rv-old keep=', 'team-a/old-two@rv-old-two keep=ConfigMap']);
  });

  it('a report that changed or went meanwhile is left to the next pass; an unreachable apiserver ends the pass', async () => {
    const changed = setUp([report('a', [testOwner]), report('b', [testOwner])], { a: { code: 422, body: { reason: 'Invalid', message: 'test operation failed' } } });
    await expect(changed.migration.pass()).resolves.toEqual({ migrated: 1, kept: 0 });
    expect(changed.patches).toEqual(['team-a/b@rv-b keep=']);
    const down = setUp([report('a', [testOwner])], { a: new Error('connect ECONNREFUSED') });
    await expect(down.migration.pass()).rejects.toThrow(/unreachable/);
  });

  it('says once per report that it stays in the old form', async () => {
    const { migration, lines } = setUp([report('odd', [testOwner], '')]);
    await migration.pass();
    await migration.pass();
    expect(lines.filter((line) => line.startsWith('report stays in the old form'))).toHaveLength(1);
  });
});
