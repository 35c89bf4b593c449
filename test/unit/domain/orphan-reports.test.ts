// Which live reports belong to a deleted test (the report cascade then confirms and acts).
import { describe, expect, it } from '@jest/globals';
import { isOrphan, orphanCandidates } from '../../../server/domain/retention/orphan-reports.js';
import type { ReportSummary } from '../../../server/domain/read-models/report-summary.js';

function stored(namespace: string, name: string, test: string, uid?: string): { key: string; summary: ReportSummary } {
  return {
    key: `${namespace}/${name}`,
    summary: { metadata: { name, namespace }, spec: { testRef: { name: test, namespace, ...(uid === undefined ? {} : { uid }) } } } as unknown as ReportSummary,
  };
}

describe('orphanCandidates', () => {
  const tests = new Map([
    ['team-a/shop', 'uid-shop-2'],
    ['team-a/ledger', 'uid-ledger'],
  ]);
  const testUid = (namespace: string, name: string): string | undefined => tests.get(`${namespace}/${name}`);

  it('groups reports of missing tests and of older tests of the same name; keeps those of existing tests', () => {
    const groups = orphanCandidates(
      [
        stored('team-a', 'shop-1', 'shop', 'uid-shop-1'),
        stored('team-a', 'shop-2', 'shop', 'uid-shop-1'),
        stored('team-a', 'shop-3', 'shop', 'uid-shop-2'),
        stored('team-a', 'ledger-1', 'ledger', 'uid-ledger'),
        stored('team-a', 'gone-1', 'gone', 'uid-gone'),
        stored('team-b', 'ledger-1', 'ledger', 'uid-ledger'),
      ],
      testUid,
    );
    expect(groups).toEqual([
      { namespace: 'team-a', name: 'shop', uid: 'uid-shop-1', keys: ['team-a/shop-1', 'team-a/shop-2'] },
      { namespace: 'team-a', name: 'gone', uid: 'uid-gone', keys: ['team-a/gone-1'] },
      { namespace: 'team-b', name: 'ledger', uid: 'uid-ledger', keys: ['team-b/ledger-1'] },
    ]);
  });

  it('treats a report without a testRef uid as an orphan only when no test of its name exists', () => {
    expect(isOrphan('', 'uid-shop-2')).toBe(false);
    expect(isOrphan('', undefined)).toBe(true);
    expect(isOrphan('uid-a', 'uid-a')).toBe(false);
    expect(orphanCandidates([stored('team-a', 'x', 'shop')], testUid)).toEqual([]);
  });
});
