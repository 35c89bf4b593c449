// The test page's RPO and volume table (web/src/components/recovery-point.tsx) print what these view
// models give: the measured RPO against the test's maxRPO, and one row per restored volume.
import { describe, expect, it } from '@jest/globals';
import type { Report } from '../../../web/src/format.js';
import { byteSize, rpoView, volumeRows } from '../../../web/src/recovery-point.js';
import { makeReport, makeRestoreTest } from '../../fixtures/evidence/reports.js';

const START = new Date('2026-03-01T00:00:00Z');

function report(shape: {
  rpoSeconds?: number;
  maxRPO?: string;
  volumes?: NonNullable<Report['spec']['volumes']>;
}): Report {
  const test = makeRestoreTest('payments', ['payments'], {
    maxRTO: '15m',
    ...(shape.maxRPO ? { maxRPO: shape.maxRPO } : {}),
  });
  return JSON.parse(
    JSON.stringify(
      makeReport(test, 0, START, {
        result: 'pass',
        rtoSeconds: 300,
        ...(shape.rpoSeconds !== undefined ? { rpoSeconds: shape.rpoSeconds } : {}),
        ...(shape.volumes ? { volumes: shape.volumes } : {}),
      }),
    ),
  ) as Report;
}

describe('dashboard RPO', () => {
  it('shows the measured RPO over its target in the bad tone, naming the check and the newest data', () => {
    expect(rpoView(report({ rpoSeconds: 11_407, maxRPO: '3h' }))).toEqual({
      measured: '3h10m7s',
      verdict: 'target 3h: over target',
      tone: 'bad',
      // The run starts 2026-03-01 02:00:07; the newest data is 3h10m7s older.
      source: 'Measured by check ledger-newest: the newest restored data is from 2026-02-28 22:50 UTC.',
    });
  });

  it('says within target, or that no target is set', () => {
    expect(rpoView(report({ rpoSeconds: 600, maxRPO: '1h' }))).toMatchObject({
      measured: '10m',
      verdict: 'target 1h: within target',
      tone: 'ok',
    });
    expect(rpoView(report({ rpoSeconds: 600 }))).toMatchObject({
      measured: '10m',
      verdict: 'no RPO target set',
      tone: 'muted',
    });
  });

  it('shows nothing when no freshness check measured one', () => {
    expect(rpoView(report({}))).toBeUndefined();
  });
});

describe('dashboard volume table', () => {
  it('has one row per volume: pod or claim in its sandbox, volume, method, phase, bytes, duration', () => {
    const rows = volumeRows(
      report({
        volumes: [
          {
            namespace: 'rehearsal-payments-1',
            pod: 'payments-db-0',
            volume: 'data',
            method: 'file-system',
            phase: 'Failed',
            dataRestored: false,
            message: 'kopia: snapshot not found',
          },
          {
            namespace: 'rehearsal-payments-1',
            claim: 'ledger-archive',
            method: 'csi-data-mover',
            phase: 'Completed',
            dataRestored: true,
            bytes: 1_073_741_824,
            durationSeconds: 94,
          },
        ],
      }),
    );
    expect(rows.map(({ key: _key, ...row }) => row)).toEqual([
      {
        podOrClaim: 'rehearsal-payments-1/payments-db-0',
        volume: 'data',
        method: 'file-system',
        phase: 'Failed',
        bytes: '—',
        duration: '—',
        dataRestored: false,
        message: 'kopia: snapshot not found',
      },
      {
        podOrClaim: 'rehearsal-payments-1/ledger-archive',
        volume: '—',
        method: 'csi-data-mover',
        phase: 'Completed',
        bytes: '1.0 GiB',
        duration: '94s',
        dataRestored: true,
        message: '',
      },
    ]);
    expect(new Set(rows.map((row) => row.key)).size).toBe(2);
  });

  it('is empty without volume data', () => {
    expect(volumeRows(report({}))).toEqual([]);
  });

  it('prints bytes in binary units', () => {
    expect([512, 25_690_112, 1_073_741_824].map(byteSize)).toEqual(['512 B', '24.5 MiB', '1.0 GiB']);
  });
});
