// storeReport: the engine's write of a signed report. A create leaves a managedFields entry listing
// every field, which cost the apiserver about as much memory as the report itself; the writer
// clears it after the create, also when a retry finds the report already there. (On the real
// apiserver: test/integration/evidence-tail.test.ts checks the stored reports and verifies them.)
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { storeReport } from '../../../server/engine/run/report-writer.js';
import type { RestoreReport } from '../../../server/domain/resources/resources.js';
import { KubeError } from '../../../server/kube/errors.js';

const report = {
  apiVersion: 'rehearsal.dev/v1alpha1',
  kind: 'RestoreReport',
  metadata: { name: 'shop-abc123', namespace: 'team-a' },
  spec: { runId: 'abc123' },
} as unknown as RestoreReport;

const managed = [{ manager: 'rehearsal', operation: 'Update', fieldsV1: { 'f:spec': {} } }];

function fakeClient(options: { exists?: boolean; clearFails?: boolean; managedFields?: unknown[] } = {}) {
  const calls: string[] = [];
  const stored = { ...report, metadata: { ...report.metadata, managedFields: options.managedFields ?? managed } };
  return {
    calls,
    createReport: async (body: RestoreReport): Promise<RestoreReport> => {
      calls.push(`create ${body.metadata.name}`);
      if (options.exists) throw new KubeError('AlreadyExists', 409, 'exists');
      return stored as RestoreReport;
    },
    getReport: async (namespace: string, name: string): Promise<RestoreReport> => {
      calls.push(`get ${namespace}/${name}`);
      return stored as RestoreReport;
    },
    deleteReport: async (): Promise<void> => undefined,
    clearReportManagedFields: async (namespace: string, name: string): Promise<RestoreReport> => {
      calls.push(`clear ${namespace}/${name}`);
      if (options.clearFails) throw new KubeError('Forbidden', 403, 'no patch');
      return report;
    },
  };
}

function capturingLog() {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  return { log, lines };
}

describe('storeReport', () => {
  it('creates the report and clears its managedFields', async () => {
    const client = fakeClient();
    const written = await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123', 'clear team-a/shop-abc123']);
    expect((written.metadata as { managedFields?: unknown }).managedFields).toBeUndefined();
  });

  it('clears them on the stored report when the create answers AlreadyExists (a retry)', async () => {
    const client = fakeClient({ exists: true });
    await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123', 'get team-a/shop-abc123', 'clear team-a/shop-abc123']);
  });

  it('does not patch a report that has none', async () => {
    const client = fakeClient({ managedFields: [] });
    await storeReport(client, report, capturingLog().log);
    expect(client.calls).toEqual(['create shop-abc123']);
  });

  it('keeps the created report and logs when clearing fails (memory, not correctness)', async () => {
    const client = fakeClient({ clearFails: true });
    const { log, lines } = capturingLog();
    const written = await storeReport(client, report, log);
    expect((written.metadata as { managedFields?: unknown }).managedFields).toEqual(managed);
    expect(lines.join('')).toContain("could not clear the report's managedFields");
  });
});
