// The dashboard's YAML export (web/src/export.ts, a small writer instead of a YAML library in the
// bundle): what it writes reads back, with the yaml package, as exactly the data exported.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { toYaml } from '../../../web/src/export.js';

const REPORT = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreReport',
  metadata: { name: 'shop-daily-4zcqk', namespace: 'team-a', labels: { 'rehearsal.dev/test': 'shop-daily' }, ownerReferences: [] },
  spec: {
    score: 87,
    result: 'partial',
    checks: [
      { name: 'orders', status: 'fail', message: 'query returned 0 rows: expected "3"', duration: '0.1s' },
      { name: 'web', status: 'pass', message: 'GET /healthz: 200', duration: '1s' },
    ],
    rto: { measured: '2m5s', withinSLA: true, phases: {} },
    tricky: ['yes', 'no', 'null', '', ' padded ', '0123', '1e3', 'a: b', '- dash', '#hash', 'true', 'multi\nline', '@daily', '0 2 * * *'],
    nothing: null,
    empty: [],
  },
};

describe('toYaml', () => {
  it('round-trips reports, including strings YAML would otherwise read as other types', () => {
    expect(parse(toYaml([REPORT, { ...REPORT, metadata: { ...REPORT.metadata, name: 'second' } }]))).toEqual([
      REPORT,
      { ...REPORT, metadata: { ...REPORT.metadata, name: 'second' } },
    ]);
  });

  it('writes scalars, empty lists and empty objects', () => {
    expect(toYaml([])).toBe('[]\n');
    expect(parse(toYaml({ a: {}, b: [], c: 0, d: false }))).toEqual({ a: {}, b: [], c: 0, d: false });
  });
});
