// The dashboard's YAML export (web/src/export.ts, a small writer instead of a YAML library in the
// bundle): what it writes reads back, with the yaml package, as exactly the data exported.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { csvCell, toCsv, toYaml } from '../../../web/src/export.js';

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

describe('csvCell and toCsv', () => {
  it.each([
    ['plain text', 'shop-daily', 'shop-daily'],
    ['a comma', 'a,b', '"a,b"'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a line feed', 'one\ntwo', '"one\ntwo"'],
    ['a carriage return', 'one\rtwo', '"one\rtwo"'],
    ['empty text', '', ''],
    ['a formula', '=HYPERLINK("http://evil","x")', '"\'=HYPERLINK(""http://evil"",""x"")"'],
    ['a plus', '+1+2', "'+1+2"],
    ['a minus', '-2+3', "'-2+3"],
    ['an at sign', '@SUM(A1)', "'@SUM(A1)"],
    ['a leading tab', '\t=1', "'\t=1"],
    ['a leading carriage return', '\r=1', '"\'\r=1"'],
    ['a formula sign inside, not first', 'a=b', 'a=b'],
  ])('%s', (_case, value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('writes numbers and booleans as they are, and nothing for null or undefined', () => {
    expect([csvCell(-3), csvCell(87), csvCell(false), csvCell(null), csvCell(undefined)]).toEqual(['-3', '87', 'false', '', '']);
  });

  it('ends every record with CRLF (RFC 4180)', () => {
    expect(toCsv([['a', 'b'], [1, 'x,y']])).toBe('a,b\r\n1,"x,y"\r\n');
    expect(toCsv([])).toBe('');
  });
});
