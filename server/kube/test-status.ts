// The one writer of RestoreTest.status. Every field has exactly one owner, and each owner writes
// only its own fields, by server-side apply on the status subresource under its own field manager
// (as cert-manager's certificate controllers do). An apply carries every field its owner wants to
// keep: a field the owner wrote before and leaves out is removed by the apiserver, and a field of
// another owner is never touched — no full replace can undo another writer's update any more.
//
//   field                              owner (field manager)   written by
//   observedGeneration                 rehearsal-schedule      schedule reconciler
//   conditions[type=ScheduleValid]     rehearsal-schedule      schedule reconciler
//   nextRunAt                          rehearsal-run           schedule reconciler
//   lastScheduleTime, handledTrigger   rehearsal-run           schedule reconciler
//   backupTrigger                      rehearsal-run           schedule reconciler (with the run it queues)
//   phase                              rehearsal-run           schedule reconciler (Idle; Running when it
//                                                              queues a run), run reconciler (the end)
//   currentRun                         rehearsal-run           schedule reconciler (queues it),
//                                                              run reconciler (every later stage, removes it)
//   lastScore, lastResult, lastRunAt,  rehearsal-run           run reconciler (when a run ends)
//     lastReport
//   conditions[type=LastRunPassed]     rehearsal-run           run reconciler (when a run ends)
//   conditions[type=RunAllowed]        rehearsal-run           run reconciler (when a run starts or is refused)
//   evidenceAnchor                     rehearsal-evidence      report signer (after each report)
//   preflight,                         rehearsal-preflight     pre-flight runner (after each new backup's
//     conditions[type=PreflightPassed]                         check, engine/preflight/preflight-runner.ts)
//
// A field manager names what a field is about, not which class writes it. "rehearsal-schedule" is
// the spec as read: which generation, and whether its schedule is valid. "rehearsal-run" is the run
// ledger: when the next run is due, which cron instant and trigger were consumed, the run queued
// for them, its progress and how the last one ended. Queuing a run must consume its instant (or
// trigger) in the same write — two writes could lose a run or start one twice after a crash — and
// one apply has one manager, so the schedule reconciler queues under "rehearsal-run"; nextRunAt
// moves with the instant consumed, so it is in that same write (one write per due instant, as
// before). Ownership of currentRun never moves: if it were created by one manager and removed by
// another, the apiserver would keep every part the creator still owns. A status written before server-side apply (one full replace by
// "rehearsal") is handed to these owners on the first apply: legacy-status-owners.ts.
//
// Force, decided per manager — each forces, for its own reason. Each field has one intended owner,
// so a conflict can only come from someone else's write (kubectl edit --subresource=status, a
// Rehearsal before server-side apply) to a field Rehearsal derives:
//   rehearsal-schedule  forces: its fields are a function of the spec, so another value is wrong
//                       by definition, and a conflict would stop the test's schedule.
//   rehearsal-run       forces: the run ledger must stay writable for the run to move on (a stuck
//                       run holds a slot of the concurrency limit). What force does not do — stop a
//                       writer acting on stale state; a manager never conflicts with itself — the
//                       resourceVersion in every apply does: an apply based on an older object
//                       fails with 409 Conflict, as the full replaces did before.
//   rehearsal-evidence  forces: the anchor is forward-only (ReportSigner.recordAnchor reads first
//                       and never writes an older one, with that read's resourceVersion), so forcing
//                       can only replace an anchor that is behind; not forcing would let whoever
//                       wrote the field once block every later anchor of the test.
//   rehearsal-preflight forces: its fields are the result of its own check of the newest backup,
//                       written whole each time; nothing else derives them.
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { API_VERSION, GROUP, VERSION, type RestoreTest, type RestoreTestStatus } from '../domain/resources/resources.js';
import { kubeCall } from './errors.js';
import { handOverLegacyStatus, type ManagedFieldsEntry, type StatusOwnership } from './legacy-status-owners.js';

export type StatusOwner = 'schedule' | 'run' | 'evidence' | 'preflight';

export const STATUS_MANAGERS: Readonly<Record<StatusOwner, string>> = {
  schedule: 'rehearsal-schedule',
  run: 'rehearsal-run',
  evidence: 'rehearsal-evidence',
  preflight: 'rehearsal-preflight',
};

/** The owner of each status field (conditions: by type, below). */
export const FIELD_OWNERS: Readonly<Record<Exclude<keyof RestoreTestStatus, 'conditions'>, StatusOwner>> = {
  observedGeneration: 'schedule',
  nextRunAt: 'run',
  phase: 'run',
  currentRun: 'run',
  lastScheduleTime: 'run',
  handledTrigger: 'run',
  backupTrigger: 'run',
  lastScore: 'run',
  lastResult: 'run',
  lastRunAt: 'run',
  lastReport: 'run',
  evidenceAnchor: 'evidence',
  preflight: 'preflight',
};

/** The owner of each condition type Rehearsal writes (status.conditions is a map keyed by type). */
export const CONDITION_OWNERS: Readonly<Record<string, StatusOwner>> = {
  ScheduleValid: 'schedule',
  LastRunPassed: 'run',
  RunAllowed: 'run',
  PreflightPassed: 'preflight',
};

/** The fields of `status` that `owner` owns: exactly what an apply by that owner carries. */
export function ownedStatus(owner: StatusOwner, status: RestoreTestStatus | undefined): RestoreTestStatus {
  const owned: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(status ?? {})) {
    if (field === 'conditions' || value === undefined) continue;
    if (FIELD_OWNERS[field as keyof typeof FIELD_OWNERS] === owner) owned[field] = value;
  }
  const conditions = (status?.conditions ?? []).filter((condition) => CONDITION_OWNERS[condition.type] === owner);
  if (conditions.length > 0) owned.conditions = conditions;
  return owned as RestoreTestStatus;
}

/** The table above as field managers, for handing over what the pre-SSA writers owned. */
const OWNERSHIP: StatusOwnership = {
  field: (name) => {
    const owner = FIELD_OWNERS[name as keyof typeof FIELD_OWNERS] as StatusOwner | undefined;
    return owner && STATUS_MANAGERS[owner];
  },
  condition: (type) => {
    const owner = CONDITION_OWNERS[type];
    return owner && STATUS_MANAGERS[owner];
  },
};

const applyPatch = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const TESTS = 'restoretests';

export class TestStatusWriter {
  constructor(
    private readonly api: CustomObjectsApi,
    private readonly log?: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The test as the apiserver has it now (with managedFields). */
  async get(namespace: string, name: string): Promise<RestoreTest> {
    return (await kubeCall(() =>
      this.api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: TESTS, name }),
    )) as RestoreTest;
  }

  /**
   * Applies the fields `owner` owns in `status` (the rest of `status` is ignored), guarded by the
   * resourceVersion of `test`. Returns the stored test. Throws KubeError (NotFound, Conflict…).
   */
  async apply(owner: StatusOwner, test: Pick<RestoreTest, 'metadata'>, status: RestoreTestStatus): Promise<RestoreTest> {
    const written = await this.applyOnce(owner, test.metadata, status);
    // A test whose status a Rehearsal before server-side apply wrote still has that writer's
    // entry, which co-owns every field and so keeps any field an owner leaves out. Hand its
    // fields to their owners, then apply again so that leaving a field out removes it.
    const handedOver = handOverLegacyStatus(
      (written.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields,
      this.now(),
      OWNERSHIP,
    );
    if (!handedOver) return written;
    const { namespace, name } = written.metadata;
    const migrated = (await kubeCall(() =>
      this.api.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace: namespace!,
          plural: TESTS,
          name,
          body: { metadata: { resourceVersion: written.metadata.resourceVersion, managedFields: handedOver } },
          fieldManager: STATUS_MANAGERS[owner],
        },
        mergePatch,
      ),
    )) as RestoreTest;
    this.log?.info({ test: `${namespace}/${name}` }, 'status fields of the pre-server-side-apply writer handed to their owners');
    return this.applyOnce(owner, migrated.metadata, status);
  }

  private async applyOnce(owner: StatusOwner, metadata: RestoreTest['metadata'], status: RestoreTestStatus): Promise<RestoreTest> {
    const { namespace, name, resourceVersion } = metadata;
    return (await kubeCall(() =>
      this.api.patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: VERSION,
          namespace: namespace!,
          plural: TESTS,
          name,
          body: {
            apiVersion: API_VERSION,
            kind: 'RestoreTest',
            metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
            status: ownedStatus(owner, status),
          },
          fieldManager: STATUS_MANAGERS[owner],
          force: true,
        },
        applyPatch,
      ),
    )) as RestoreTest;
  }
}
