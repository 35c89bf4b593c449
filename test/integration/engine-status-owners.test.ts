// One owner per status field, on the real apiserver: after runs, metadata.managedFields of a
// RestoreTest shows each status field owned by exactly the field manager server/kube/test-status.ts
// names for it (rehearsal-schedule, rehearsal-run, rehearsal-evidence, rehearsal-preflight), and by
// no one else. A
// status written the way a Rehearsal before server-side apply wrote it (a full replace by
// "rehearsal") is handed over on the first write: the run it had queued ends without leaving
// parts of currentRun behind.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Rehearsal } from '../../server/app/rehearsal.js';
import type { RestoreTest, RestoreTestStatus } from '../../server/domain/resources/resources.js';
import { newRunId } from '../../server/domain/run/sandbox-names.js';
import { CONDITION_OWNERS, FIELD_OWNERS, STATUS_MANAGERS } from '../../server/kube/test-status.js';
import {
  createEngineFixture,
  createRestoreTest,
  getRestoreTest,
  restoreTestBody,
  trigger,
  uniqueTestName,
  waitForReports,
  type EngineFixture,
} from '../helpers/engine-fixture.js';
import { deleteNamespaces, waitFor } from '../helpers/kube.js';
import { rehearsalKubeconfig } from '../helpers/rehearsal-identity.js';
import { startInProcess } from '../helpers/rehearsal-server.js';

let fixture: EngineFixture;
let rehearsal: Rehearsal;

jest.setTimeout(200_000);

beforeAll(async () => {
  fixture = await createEngineFixture('owners');
  rehearsal = await startInProcess({
    kubeconfigPath: await rehearsalKubeconfig('engine-status-owners.kubeconfig'),
    veleroNamespace: fixture.veleroNamespace,
    probeTargets: fixture.endpoints.targets,
  });
}, 120_000);

afterAll(async () => {
  await rehearsal?.stop();
  await fixture?.stop();
  await deleteNamespaces(fixture.admin, [fixture.source, fixture.testNamespace, fixture.veleroNamespace]);
});

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1?: { 'f:status'?: Record<string, Record<string, unknown>> };
}

/**
 * The managers owning each status field ("phase", …; a condition as "conditions[Type]"), from
 * managedFields. Anything a manager owns inside a field counts as owning (part of) it.
 */
function statusOwners(test: RestoreTest): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  const own = (field: string, manager: string): void => {
    const list = owners.get(field) ?? [];
    if (!list.includes(manager)) owners.set(field, [...list, manager]);
  };
  const entries = (test.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];
  for (const entry of entries) {
    for (const [key, value] of Object.entries(entry.fieldsV1?.['f:status'] ?? {})) {
      if (key === '.') continue;
      if (key !== 'f:conditions') {
        own(key.slice(2), entry.manager);
        continue;
      }
      for (const item of Object.keys(value)) {
        if (item !== '.') own(`conditions[${(JSON.parse(item.slice(2)) as { type: string }).type}]`, entry.manager);
      }
    }
  }
  return owners;
}

/** The one owner each present status field must have, per the table of test-status.ts. */
function intendedOwners(status: RestoreTestStatus): Map<string, string[]> {
  const intended = new Map<string, string[]>();
  for (const [field, value] of Object.entries(status)) {
    if (value === undefined) continue;
    if (field === 'conditions') {
      for (const condition of status.conditions ?? []) intended.set(`conditions[${condition.type}]`, [STATUS_MANAGERS[CONDITION_OWNERS[condition.type]!]]);
    } else {
      intended.set(field, [STATUS_MANAGERS[FIELD_OWNERS[field as keyof typeof FIELD_OWNERS]]]);
    }
  }
  return intended;
}

/** Waits until the test's run has ended in status, its evidence anchor names `report` and its backup was pre-flighted. */
async function settled(name: string, report: string): Promise<RestoreTest> {
  return waitFor(
    async () => {
      const test = await getRestoreTest(fixture, name);
      const status = test.status;
      return !status?.currentRun && status?.lastReport === report && status.evidenceAnchor?.report === report && status.preflight ? test : undefined;
    },
    { timeoutMs: 30_000, description: `the status of ${name} to record ${report}` },
  );
}

describe('RestoreTest.status', () => {
  it('has exactly one owner per field after runs: the schedule, the run ledger, the evidence anchor', async () => {
    const name = uniqueTestName('owners');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    for (let run = 1; run <= 2; run++) {
      await trigger(fixture, name);
      await waitForReports(fixture, name, run, 150_000);
    }
    const reports = await waitForReports(fixture, name, 2);
    const test = await settled(name, reports[1]!.metadata.name);
    const status = test.status!;
    // Every owner wrote: the schedule's fields, the ended run's, the anchor.
    // The pre-flight check of the newest backup writes too (its own manager, decision 0021).
    for (const field of ['observedGeneration', 'nextRunAt', 'phase', 'lastScore', 'lastResult', 'lastRunAt', 'lastReport', 'handledTrigger', 'evidenceAnchor', 'preflight']) {
      expect(status).toHaveProperty(field);
    }
    expect(status.conditions?.map((condition) => condition.type).sort()).toEqual(['LastRunPassed', 'PreflightPassed', 'RunAllowed', 'ScheduleValid']);
    const owners = statusOwners(test);
    expect(Object.fromEntries([...owners].sort())).toEqual(Object.fromEntries([...intendedOwners(status)].sort()));
    // Only the four managers write status, each through the status subresource by apply.
    const statusEntries = ((test.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? []).filter((entry) => entry.fieldsV1?.['f:status']);
    expect(statusEntries.map((entry) => [entry.manager, entry.operation, entry.subresource]).sort()).toEqual([
      ['rehearsal-evidence', 'Apply', 'status'],
      ['rehearsal-preflight', 'Apply', 'status'],
      ['rehearsal-run', 'Apply', 'status'],
      ['rehearsal-schedule', 'Apply', 'status'],
    ]);
  });

  it('written by a Rehearsal before server-side apply: handed over, and its queued run ends without a trace', async () => {
    const name = uniqueTestName('legacy');
    await createRestoreTest(fixture, restoreTestBody(fixture, name, {}));
    const now = new Date().toISOString();
    const runId = newRunId((size) => randomBytes(size));
    // The old writer: a full replace of status by "rehearsal", a run queued (as a trigger did).
    await waitFor(
      async () => {
        const test = await getRestoreTest(fixture, name);
        try {
          await fixture.custom.replaceNamespacedCustomObjectStatus({
            group: 'rehearsal.dev',
            version: 'v1alpha1',
            namespace: fixture.testNamespace,
            plural: 'restoretests',
            name,
            fieldManager: 'rehearsal',
            body: {
              ...test,
              status: {
                ...test.status,
                phase: 'Running',
                handledTrigger: 'legacy-request',
                currentRun: { id: runId, trigger: 'manual', scheduledAt: now, queuedAt: now, stage: 'Queued' },
              },
            },
          });
          return true;
        } catch {
          return undefined; // the engine wrote meanwhile (a Conflict): read again
        }
      },
      { description: 'the old writer’s status' },
    );
    const [report] = await waitForReports(fixture, name, 1, 150_000);
    expect(report!.spec.runId).toBe(runId);
    const test = await settled(name, report!.metadata.name);
    expect(test.status?.currentRun).toBeUndefined();
    expect(test.status?.phase).toBe('Completed');
    const entries = (test.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];
    expect(entries.some((entry) => entry.manager === 'rehearsal' && entry.subresource === 'status')).toBe(false);
    expect(Object.fromEntries([...statusOwners(test)].sort())).toEqual(Object.fromEntries([...intendedOwners(test.status!)].sort()));
  });
});
