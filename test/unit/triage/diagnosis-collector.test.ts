// The collector diagnoses every failed or partial run with the logs its test asks for (issue 30):
// the test's spec.logCollection reaches the observer and is recorded in the stored diagnosis; a
// test without it (or gone) gets the defaults; a passed run is not diagnosed.
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import type { RunDiagnosis } from '../../../server/domain/diagnosis/diagnosis.js';
import type { SandboxObservation } from '../../../server/domain/diagnosis/observation.js';
import type { RestoreReport, RestoreTest } from '../../../server/domain/resources/resources.js';
import { resolveLogCollection, type LogCollectionSettings } from '../../../server/domain/run/log-collection.js';
import { DiagnosticsCollector } from '../../../server/triage/diagnosis-collector.js';
import { restoreReport, restoreTest } from '../../contract/support/fake-cluster.js';

function harness(tests: RestoreTest[]) {
  const asked: LogCollectionSettings[] = [];
  const saved: RunDiagnosis[] = [];
  const collector = new DiagnosticsCollector({
    observer: {
      observe: async (sandboxes, settings): Promise<SandboxObservation> => {
        asked.push(settings!);
        return { sandboxes, pods: [], events: [], claims: [], externalNames: [], missingPullSecrets: [], logs: [] };
      },
    },
    store: {
      save: async (_report, diagnosis) => {
        saved.push(diagnosis);
        return { created: true, bytes: 1 };
      },
      load: async () => undefined,
      remove: async () => undefined,
      sweep: async () => 0,
    },
    cache: { onReportChange: () => undefined, isLiveReport: () => true },
    reports: { getReport: async () => Promise.reject(new Error('not used')) },
    tests: { getTest: (namespace, name) => tests.find((test) => test.metadata.namespace === namespace && test.metadata.name === name) },
    log: pino({ level: 'silent' }),
    now: () => new Date('2026-03-15T12:00:00Z'),
    maxReportAgeMs: 3_600_000,
  });
  return { collector, asked, saved };
}

const report = (test: string, result: 'pass' | 'partial' | 'fail'): RestoreReport =>
  restoreReport({ test, completedAt: '2026-03-15T11:59:00Z', result });

describe('DiagnosticsCollector and spec.logCollection', () => {
  it("passes the test's settings (defaults filled in) to the observer and records them", async () => {
    const chatty = restoreTest({ name: 'chatty', spec: { logCollection: { lines: 400, containers: 'all', previous: false } } });
    const { collector, asked, saved } = harness([chatty]);
    await collector.beforeSandboxRelease(report('chatty', 'fail'));
    const expected = { lines: 400, containers: 'all', initContainers: true, previous: false, events: true };
    expect(asked).toEqual([expected]);
    expect(saved.map((diagnosis) => diagnosis.logCollection)).toEqual([expected]);
  });

  it('diagnoses a partial run too, with the defaults when the test has no logCollection or is gone', async () => {
    const { collector, asked, saved } = harness([restoreTest({ name: 'plain' })]);
    await collector.beforeSandboxRelease(report('plain', 'partial'));
    await collector.beforeSandboxRelease(report('deleted', 'fail'));
    expect(asked).toEqual([resolveLogCollection(undefined), resolveLogCollection(undefined)]);
    expect(saved.map((diagnosis) => diagnosis.result)).toEqual(['partial', 'fail']);
  });

  it('does not diagnose a passed run', async () => {
    const { collector, asked } = harness([restoreTest({ name: 'fine' })]);
    await collector.beforeSandboxRelease(report('fine', 'pass'));
    expect(asked).toEqual([]);
  });
});
